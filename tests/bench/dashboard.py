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
idle poll: 304). The idle cost is the process CPU time spent answering
the live view's polls for ``IDLE_SECONDS`` (one every ``[dashboard]
refresh_interval``) over the wall time: a share of one core. Placement
runs in the same process, so its share is included (an upper bound).
"""

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


def run(args):
    size = 2000 if args.quick else 10000
    seconds = 10 if args.quick else IDLE_SECONDS
    rows = []
    with scheduler_select._Cloud(size) as cloud:
        _seed_allocations(cloud)
        app = deploy.deploy(CONF, placement_client=cloud.placement.client)
        cold, cold_ms = _get(app, '/dashboard')
        assert cold.status_int == 200, cold.status
        warm_ms = [_get(app, '/dashboard')[1] for _ in range(5)]
        data, data_ms = _get(app, '/dashboard/api/capacity')
        etag = data.headers['ETag']
        not_modified = [_get(app, '/dashboard/api/capacity',
                             {'If-None-Match': etag}) for _ in range(5)]
        assert all(r.status_int == 304 for r, _ms in not_modified)
        polls, idle_pct = _idle_cost(app, etag, seconds,
                                     CONF.dashboard.refresh_interval)
        rows.append({
            'nodes': size, 'page_cold_ms': round(cold_ms, 1),
            'page_warm_ms_p50': round(statistics.median(warm_ms), 1),
            'page_kb': round(len(cold.body) / 1024.0, 1),
            'data_api_ms': round(data_ms, 1),
            'data_api_kb': round(len(data.body) / 1024.0, 1),
            'poll_304_ms_p50': round(statistics.median(
                [ms for _r, ms in not_modified]), 1),
            'idle_polls': polls, 'idle_cpu_pct_of_core': idle_pct})
    return {'rows': rows}
