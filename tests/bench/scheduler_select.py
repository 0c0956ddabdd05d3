"""select_destinations at 1,000 and 10,000 compute nodes in 2 cells.

Everything runs in this process: the scheduler manager (called directly,
no RPC hop), placement in-process (``PlacementFixture``: the WSGI app on
SQLite, reached without sockets), two SQLite cell databases and an API
database. Hosts are seeded straight into the databases for speed (10
nodes per compute service, one instance per node, providers with
VCPU/MEMORY_MB/DISK_GB inventory); each measured request places one
instance and claims it in placement.

Each size is also measured with requests of ``NOVA_LITE_BENCH_SCHED_
INSTANCES`` (default 10) instances, as a burst of servers asks (``instances``
in the row; placement synthetic): every instance is filtered, weighed,
picked and claimed, and ``*_ms`` give each phase's mean per request.
``NOVA_LITE_BENCH_SCHED_MODES`` (default ``synthetic,in-process,burst``)
picks the rows.

Reported per size: median and p99 latency, the share of time in placement
(the candidates query; claims are reported apart), filters, weighers and
the scheduler's DB reads, and the process RSS once every host state is
cached (the RSS includes placement and SQLite, so it is an upper bound of
the scheduler's own). When placement does not serve ``GET
/allocation_candidates`` yet, a synthetic answer (``limit`` random
candidates) stands in for it and the result says so (``placement`` =
``synthetic``): the scheduler's own costs are still real.

The machine may be shared: ``cpu_p50_ms`` (process CPU time per request,
placement's included when in-process) and ``load_avg_1m`` help read
latencies taken on a busy machine.
"""

import datetime
import os
import random
import time
import uuid

import fixtures
import sqlalchemy as sa

from nova_lite.clients import placement as placement_client
from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite.db.cell import models as cell_models
from nova_lite.db import types as db_types
from nova_lite import objects
from nova_lite.placement.db import models as pl_models
from nova_lite.testing import placement_fixture
from nova_lite.scheduler import manager as sched_manager
from nova_lite import testing
from tests.bench import stats

CONF = nl_conf.CONF
NODES_PER_HOST = 10
VCPUS, MEMORY_MB, DISK_GB = 64, 262144, 4000


def _rss_mb():
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return round(int(line.split()[1]) / 1024.0, 1)
    return None


class _Cloud(fixtures.Fixture):
    """Databases, placement and ``size`` seeded compute nodes."""

    def __init__(self, size):
        super().__init__()
        self.size = size

    def _setUp(self):
        # NOTE(bench): heartbeats are not running; keep computes "up".
        self.useFixture(testing.ConfFixture(service_down_time=86400))
        self.dbs = self.useFixture(testing.DatabaseFixture(
            cells=('cell1', 'cell2')))
        self.placement = self.useFixture(
            placement_fixture.PlacementFixture())
        self.nodes = []
        # NOTE(bench): one provider through the API syncs resource classes.
        self.placement.client.create_provider('warmup')
        self._seed()

    def _seed(self):
        rc_ids = self._resource_class_ids()
        provider_rows, inventory_rows = [], []
        per_cell = {'cell1': [], 'cell2': []}
        for index in range(self.size):
            cell = 'cell1' if index % 2 == 0 else 'cell2'
            node_uuid = str(uuid.UUID(int=index + 1))
            host = 'host%d' % (index // NODES_PER_HOST)
            nodename = 'node%d' % index
            per_cell[cell].append((node_uuid, host, nodename))
            self.nodes.append(node_uuid)
            rp_id = index + 100
            provider_rows.append({'id': rp_id, 'uuid': node_uuid,
                                  'name': nodename, 'generation': 1,
                                  'root_provider_id': rp_id})
            for rc, total in (('VCPU', VCPUS), ('MEMORY_MB', MEMORY_MB),
                              ('DISK_GB', DISK_GB)):
                inventory_rows.append({
                    'resource_provider_id': rp_id,
                    'resource_class_id': rc_ids[rc], 'total': total,
                    'reserved': 0, 'min_unit': 1, 'max_unit': total,
                    'step_size': 1, 'allocation_ratio': 1.0})
        engine = sa.create_engine(self.placement.url)
        with engine.begin() as conn:
            conn.execute(sa.insert(pl_models.ResourceProvider),
                         provider_rows)
            conn.execute(sa.insert(pl_models.Inventory), inventory_rows)
        engine.dispose()
        for cell, rows in per_cell.items():
            self._seed_cell(self.dbs.cells[cell], rows)

    def _resource_class_ids(self):
        engine = sa.create_engine(self.placement.url)
        with engine.connect() as conn:
            rows = conn.execute(sa.select(pl_models.ResourceClass.id,
                                          pl_models.ResourceClass.name))
            ids = {name: rc_id for rc_id, name in rows}
        engine.dispose()
        return ids

    def _seed_cell(self, cell, rows):
        now = db_types.utcnow()
        # NOTE(bench): rows written an hour ago, as in a cloud that runs:
        # the host manager's incremental reads find nothing changed.
        then = now - datetime.timedelta(hours=1)
        hosts = sorted({host for _u, host, _n in rows})
        engine = sa.create_engine(cell.database_connection)
        with engine.begin() as conn:
            conn.execute(sa.insert(cell_models.Service), [
                {'uuid': str(uuid.uuid4()), 'host': host,
                 'binary': 'nova-lite-compute', 'topic': 'compute',
                 'last_seen_up': now, 'created_at': then}
                for host in hosts])
            conn.execute(sa.insert(cell_models.ComputeNode), [
                {'uuid': node_uuid, 'host': host,
                 'hypervisor_hostname': nodename, 'vcpus': VCPUS,
                 'memory_mb': MEMORY_MB, 'local_gb': DISK_GB,
                 'vcpus_used': 1, 'memory_mb_used': 512,
                 'local_gb_used': 1, 'free_ram_mb': MEMORY_MB - 512,
                 'free_disk_gb': DISK_GB - 1, 'hypervisor_type': 'fake',
                 'hypervisor_version': 1000, 'cpu_info': '{}', 'mapped': 1,
                 'stats': {'num_instances': '1', 'io_workload': '0'},
                 'created_at': then, 'deleted': 0}
                for node_uuid, host, nodename in rows])
            conn.execute(sa.insert(cell_models.Instance), [
                {'uuid': str(uuid.uuid4()), 'host': host, 'node': nodename,
                 'project_id': 'p%d' % (i % 50), 'vm_state': 'active',
                 'created_at': then, 'deleted': 0}
                for i, (_u, host, nodename) in enumerate(rows)])
        engine.dispose()


class _SyntheticPlacement:
    """Answers candidates without placement (``limit`` random nodes) and
    forwards claims to the real in-process placement."""

    def __init__(self, real, nodes):
        self.real = real
        self.nodes = nodes
        self.rng = random.Random(1)

    def get_allocation_candidates(self, params, microversion=None):
        limit = int(dict(params).get('limit', len(self.nodes)))
        chosen = self.rng.sample(self.nodes, min(limit, len(self.nodes)))
        resources = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}
        return {
            'allocation_requests': [
                {'allocations': {n: {'resources': resources}},
                 'mappings': {'': [n]}} for n in chosen],
            'provider_summaries': {
                n: {'root_provider_uuid': n, 'parent_provider_uuid': None,
                    'resources': {}, 'traits': []} for n in chosen}}

    def __getattr__(self, name):
        return getattr(self.real, name)


def _serves_candidates(client):
    try:
        client.get_allocation_candidates({'resources': 'VCPU:1',
                                          'limit': '1'}, microversion='1.36')
        return True
    except placement_client.PlacementError:
        return False


def _measure(size, iterations, mode, instances=1):
    with _Cloud(size) as cloud:
        client = cloud.placement.client
        if mode == 'in-process' and not _serves_candidates(client):
            return None
        placement = client if mode == 'in-process' else \
            _SyntheticPlacement(client, cloud.nodes)
        mgr = sched_manager.SchedulerManager(host='bench',
                                             placement=placement)
        ctxt = nl_context.get_admin_context()
        spec = objects.RequestSpec.from_components(
            ctxt, flavor={'vcpus': 1, 'memory_mb': 512, 'root_gb': 1},
            project_id='p1', user_id='u1', num_instances=instances)

        def uuids():
            return [str(uuid.uuid4()) for _ in range(instances)]

        rss_before = _rss_mb()
        t0 = time.perf_counter()
        mgr.schedule(ctxt, spec, uuids())
        first_ms = round((time.perf_counter() - t0) * 1000, 1)
        rss_cached = _rss_mb()
        # As the service once started: a warm cache, the heap frozen.
        mgr.post_start_hook()
        samples, cpu = [], []
        phases = dict.fromkeys(sched_manager.Timings.PHASES, 0.0)
        for _ in range(iterations):
            t0, c0 = time.perf_counter(), time.process_time()
            mgr.schedule(ctxt, spec, uuids())
            samples.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            for name, seconds in mgr.last_timings.items():
                phases[name] += seconds
        mgr.cleanup_host()
        total = sum(samples)
        summary = stats.summarize(samples)
        row = {'hosts': size, 'cells': 2, 'instances': instances,
               'placement': mode, 'iterations': iterations,
               'p50_ms': summary['p50_ms'], 'p99_ms': summary['p99_ms'],
               'cpu_p50_ms': stats.summarize(cpu)['p50_ms'],
               'first_request_ms': first_ms,
               'load_avg_1m': os.getloadavg()[0]}
        for name, seconds in phases.items():
            row['share_%s' % name] = round(seconds / total, 3)
        row['share_other'] = round(1 - sum(phases.values()) / total, 3)
        for name, seconds in phases.items():
            row['%s_ms' % name] = round(seconds * 1000 / iterations, 2)
        row['cpu_mean_ms'] = round(sum(cpu) * 1000 / iterations, 2)
        row['rss_mb_before_cache'] = rss_before
        row['rss_mb_cached'] = rss_cached
        return row


def run(args):
    """Each size twice: placement synthetic (the scheduler's own cost) and
    in-process (end to end; fewer iterations, placement dominates)."""
    objects.register_all()
    iterations = 10 if args.quick else 50
    sizes = [1000, 10000]
    if os.environ.get('NOVA_LITE_BENCH_SCHED_SIZES'):
        sizes = [int(s) for s in
                 os.environ['NOVA_LITE_BENCH_SCHED_SIZES'].split(',')]
    instances = int(os.environ.get('NOVA_LITE_BENCH_SCHED_INSTANCES', 10))
    modes = os.environ.get('NOVA_LITE_BENCH_SCHED_MODES',
                           'synthetic,in-process,burst').split(',')
    rows = []
    for size in sizes:
        if 'synthetic' in modes:
            rows.append(_measure(size, iterations, 'synthetic'))
        if 'in-process' in modes:
            real = _measure(size, max(3, iterations // 10), 'in-process')
            if real is not None:
                rows.append(real)
        if 'burst' in modes and instances > 1:
            rows.append(_measure(size, max(3, iterations // 5),
                                 'synthetic', instances))
    return {'rows': rows,
            'note': 'scheduler called in-process (no RPC hop); placement '
                    '"synthetic" answers candidates without a query (the '
                    'scheduler alone), "in-process" is placement on SQLite '
                    'in this process'}
