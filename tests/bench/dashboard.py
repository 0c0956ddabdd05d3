"""The capacity dashboard at 10,000 nodes: page render time and the idle
cost of its live view.

A cloud of 10,000 compute nodes in 2 cells is seeded straight into the
databases (as ``scheduler_select`` does: 10 nodes per compute service,
one instance per node), each instance with its allocation in placement
(in-process, SQLite). The compute API application (``deploy``) answers
in-process, without sockets.

Measured: ``GET /dashboard`` cold (cells and placement read) and warm
(cached snapshot; what a reload costs), ``GET /dashboard/api/capacity``
(the live view's document) and the same with ``If-None-Match`` (the
idle poll: 304); a live update: the poll after an allocation is written
on one node (a claim: its generation moves) and after it is deleted (no
generation moves), and the page after them. The idle cost is the
process CPU time spent answering the live view's polls for
``IDLE_SECONDS`` (one every ``[dashboard] refresh_interval``) over the
wall time: a share of one core. Placement
runs in the same process, so its share is included (an upper bound).
"""

import os
import statistics
import time
import uuid

import sqlalchemy as sa
import webob

from nova_lite.api import deploy
from nova_lite import conf as nl_conf
from nova_lite.placement.db import models as pl_models
from tests.bench import scheduler_select

CONF = nl_conf.CONF
IDLE_SECONDS = 30


def _seed_allocations(cloud):
    engine = sa.create_engine(cloud.placement.url)
    with engine.begin() as conn:
        rc_ids = {name: rc_id for rc_id, name in conn.execute(
            sa.select(pl_models.ResourceClass.id,
                      pl_models.ResourceClass.name))}
        conn.execute(sa.insert(pl_models.Project), [
            {'id': 1, 'external_id': 'bench'}])
        conn.execute(sa.insert(pl_models.User), [
            {'id': 1, 'external_id': 'bench'}])
        consumers, allocations = [], []
        for index in range(len(cloud.nodes)):
            consumer = str(uuid.uuid4())
            consumers.append({'uuid': consumer, 'project_id': 1,
                              'user_id': 1, 'generation': 1})
            for rc, used in (('VCPU', 1 + index % 32),
                             ('MEMORY_MB', 512 * (1 + index % 300)),
                             ('DISK_GB', 1 + index % 2000)):
                allocations.append({
                    'resource_provider_id': index + 100,
                    'consumer_id': consumer,
                    'resource_class_id': rc_ids[rc], 'used': used})
        conn.execute(sa.insert(pl_models.Consumer), consumers)
        conn.execute(sa.insert(pl_models.Allocation), allocations)
    engine.dispose()


def _get(app, path, headers=None):
    req = webob.Request.blank(path)
    req.headers['X-Auth-Token'] = 'admin'
    for key, value in (headers or {}).items():
        req.headers[key] = value
    started = time.perf_counter()
    resp = req.get_response(app)
    return resp, (time.perf_counter() - started) * 1000


def _idle_cost(app, etag, seconds, interval):
    cpu0, wall0 = time.process_time(), time.perf_counter()
    polls = 0
    while time.perf_counter() - wall0 < seconds:
        resp, _ms = _get(app, '/dashboard/api/capacity',
                         {'If-None-Match': etag})
        etag = resp.headers.get('ETag', etag)
        polls += 1
        time.sleep(interval)
    cpu = time.process_time() - cpu0
    wall = time.perf_counter() - wall0
    return polls, round(100.0 * cpu / wall, 2)


def _live_update(app, placement, etag, rounds=3):
    """What one placement change costs the live view: an allocation
    written on one node (as a boot's claim), then deleted (as a server's
    deletion); each followed by the poll that sees it (medians of
    ``rounds``, each on another node)."""
    rps = [p['uuid'] for p in placement.get_capacity()
           if 'VCPU' in p['inventories'] and p['usages']['VCPU'] <
           p['inventories']['VCPU']['total'] - 1][:rounds]
    claims, frees = [], []
    for rp in rps:
        consumer = str(uuid.uuid4())
        placement.request('PUT', '/allocations/%s' % consumer, body={
            'allocations': {rp: {'resources': {'VCPU': 1}}},
            'project_id': 'bench', 'user_id': 'bench',
            'consumer_generation': None}, microversion='1.28')
        claim, claim_ms = _get(app, '/dashboard/api/capacity',
                               {'If-None-Match': etag})
        assert claim.status_int == 200, claim.status
        placement.delete_allocations(consumer)
        free, free_ms = _get(app, '/dashboard/api/capacity',
                             {'If-None-Match': claim.headers['ETag']})
        assert free.status_int == 200, free.status
        etag = free.headers['ETag']
        claims.append(claim_ms)
        frees.append(free_ms)
    page, page_ms = _get(app, '/dashboard')
    return (statistics.median(claims), statistics.median(frees), page_ms,
            etag)


def run(args):
    size = 2000 if args.quick else 10000
    seconds = 10 if args.quick else IDLE_SECONDS
    rows = []
    with scheduler_select._Cloud(size) as cloud:
        _seed_allocations(cloud)
        app = deploy.deploy(CONF, placement_client=cloud.placement.client)
        load = os.getloadavg()[0]
        cpu0 = time.process_time()
        cold, cold_ms = _get(app, '/dashboard')
        cold_cpu_ms = (time.process_time() - cpu0) * 1000
        assert cold.status_int == 200, cold.status
        warm_ms = [_get(app, '/dashboard')[1] for _ in range(5)]
        data, data_ms = _get(app, '/dashboard/api/capacity')
        etag = data.headers['ETag']
        not_modified = [_get(app, '/dashboard/api/capacity',
                             {'If-None-Match': etag}) for _ in range(5)]
        assert all(r.status_int == 304 for r, _ms in not_modified)
        claim_ms, free_ms, page_ms, etag = _live_update(
            app, cloud.placement.client, etag)
        polls, idle_pct = _idle_cost(app, etag, seconds,
                                     CONF.dashboard.refresh_interval)
        rows.append({
            'nodes': size, 'load_avg_1m': round(load, 1),
            'page_cold_ms': round(cold_ms, 1),
            'page_cold_cpu_ms': round(cold_cpu_ms, 1),
            'page_warm_ms_p50': round(statistics.median(warm_ms), 1),
            'page_kb': round(len(cold.body) / 1024.0, 1),
            'data_api_ms': round(data_ms, 1),
            'data_api_kb': round(len(data.body) / 1024.0, 1),
            'poll_304_ms_p50': round(statistics.median(
                [ms for _r, ms in not_modified]), 1),
            'update_claim_ms_p50': round(claim_ms, 1),
            'update_free_ms_p50': round(free_ms, 1),
            'page_after_update_ms': round(page_ms, 1),
            'idle_polls': polls, 'idle_cpu_pct_of_core': idle_pct})
    return {'rows': rows}
