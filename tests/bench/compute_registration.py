"""One compute registering many nodes against a real placement process.

``tox -e bench -- compute_registration`` (``--quick``: 100 nodes instead
of 1,000; ``NOVA_LITE_BENCH_NODES`` overrides). A resource tracker with
the fake driver reports to a real nova-lite-placement process (2 workers
as in the lab, ``NOVA_LITE_BENCH_PLACEMENT_WORKERS``; its database on the
local MariaDB when it answers, SQLite otherwise, or as
``NOVA_LITE_BENCH_DATABASE`` says) and writes its ``compute_nodes`` rows
through a cell conductor served over RabbitMQ from this process (a
private exchange; ``fake://`` without RabbitMQ; the cell DB is SQLite).

Each mode runs on a fresh placement database:

* ``one_by_one``: what a compute did before batching (each node's rows
  and placement writes in turn, a conductor call per node);
* ``batched``: what it does now (rows ``RECORDS_PER_CALL`` per conductor
  call, providers and traits ``[placement] max_parallel_requests`` at a
  time, inventories in ``POST /reshaper`` batches).

Phases: the first registration (nothing in placement), every node's
inventory changed (the fake driver's VCPU count), and a restart without
the saved provider trees (every tree read back from placement).

For each: wall seconds, placement requests (reads, writes, and per node),
conductor RPC calls, CPU-seconds of this process (the compute and the
in-process conductor server) and of the placement process and its
workers (``/proc/<pid>/stat``), and the machine's load average before
and after: wall times move with the load of a shared machine, counts and
CPU-seconds much less.
"""

import contextlib
import os
import time
import uuid

import fixtures
import oslo_messaging as messaging

from nova_lite.clients import placement as placement_client
from nova_lite.clients import report
from nova_lite.clients import report_batch
from nova_lite.compute import node_records
from nova_lite.compute import resource_tracker
from nova_lite import conf as nl_conf
from nova_lite.compute import tree_cache
from nova_lite.conductor import manager as conductor_manager
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import context as nl_context
from nova_lite import rpc
from nova_lite import testing
from nova_lite.virt import fake
from tests.bench import rpc_floor
from tests import db_fixtures

CONF = nl_conf.CONF
HOST = 'bench-reg-host'
CLK_TCK = os.sysconf('SC_CLK_TCK')


def _ticks(pid):
    with open('/proc/%d/stat' % pid) as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return int(fields[1]), int(fields[11]) + int(fields[12])


def tree_cpu_seconds(root_pid):
    """CPU-seconds so far of ``root_pid`` and its live descendants."""
    parents = {}
    ticks = {}
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            parents[int(entry)], ticks[int(entry)] = _ticks(int(entry))
        except (OSError, IndexError, ValueError):
            continue
    members, todo = set(), [root_pid]
    while todo:
        pid = todo.pop()
        members.add(pid)
        todo.extend(p for p, ppid in parents.items()
                    if ppid == pid and p not in members)
    return sum(ticks.get(p, 0) for p in members) / CLK_TCK


class _CountingClient:
    """Counts a PlacementClient's reads and writes (thread-safe enough:
    one list append per request)."""

    def __init__(self, client):
        self.log = []
        self._request = client.request
        client.request = self._record

    def _record(self, method, path, *args, **kwargs):
        self.log.append(method)
        return self._request(method, path, *args, **kwargs)

    def take(self):
        log, self.log = self.log, []
        reads = sum(1 for m in log if m == 'GET')
        return reads, len(log) - reads


class _CountingConductor:
    """The conductor RPC client, counting calls."""

    def __init__(self, api):
        self._api = api
        self.calls = 0

    def __getattr__(self, name):
        method = getattr(self._api, name)

        def call(*args, **kwargs):
            self.calls += 1
            return method(*args, **kwargs)
        return call

    def take(self):
        calls, self.calls = self.calls, 0
        return calls


class _Conductor(fixtures.Fixture):
    """A conductor RPC server in this process, on RabbitMQ when it
    answers (a private exchange on its default vhost)."""

    def _setUp(self):
        url = (rpc_floor.RABBIT_URL if rpc_floor._rabbit_answers()
               else 'fake:///bench_registration')
        self.bus = url.split(':', 1)[0]
        transport = rpc.get_cell_transport(url)
        transport.nova_lite_exchange = 'bench_reg_%s' % uuid.uuid4().hex[:8]
        self.server = rpc.get_server(
            messaging.Target(topic=conductor_rpcapi.RPC_TOPIC,
                             server='bench-cond'),
            [conductor_manager.ConductorManager(host='bench-cond')],
            transport=transport)
        self.server.start()
        self.addCleanup(self.server.wait)
        self.addCleanup(self.server.stop)
        self.api = conductor_rpcapi.ConductorAPI(transport=transport)


class _Placement(fixtures.Fixture):
    def __init__(self, database, workers):
        super().__init__()
        self.database = database
        self.workers = workers

    def _setUp(self):
        from tests.functional.placement import server
        if self.database == 'mysql':
            url = db_fixtures.random_mysql_url('nl_bench_reg')
            self.addCleanup(db_fixtures.drop_mysql_database, url)
        else:
            tmp = self.useFixture(fixtures.TempDir()).path
            url = 'sqlite:///' + os.path.join(tmp, 'placement.sqlite')
        self.server = self.useFixture(server.PlacementServer(
            url, workers=self.workers))
        self.client = placement_client.PlacementClient(
            endpoint=self.server.endpoint)
        self.pid = self.server.process.pid


def _tracker(client, conductor, concurrency):
    driver = fake.FakeDriver()
    driver.init_host(HOST)
    return resource_tracker.ResourceTracker(
        HOST, driver, report.ReportClient(client, concurrency=concurrency),
        conductor)


@contextlib.contextmanager
def _one_by_one(enabled):
    """Batched inventory writes off (a batch never reaches the minimum),
    one compute_nodes row a conductor call."""
    saved = report_batch.RESHAPE_MIN, node_records.RECORDS_PER_CALL
    if enabled:
        report_batch.RESHAPE_MIN = float('inf')
        node_records.RECORDS_PER_CALL = 1
    try:
        yield
    finally:
        report_batch.RESHAPE_MIN, node_records.RECORDS_PER_CALL = saved


def _phase(name, nodes, counters, placement_pid, func):
    requests, conductor = counters
    requests.take()
    conductor.take()
    load_before = os.getloadavg()[0]
    cpu0 = time.process_time()
    pcpu0 = tree_cpu_seconds(placement_pid)
    t0 = time.perf_counter()
    result = func()
    seconds = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    pcpu = tree_cpu_seconds(placement_pid) - pcpu0
    reads, writes = requests.take()
    return {'phase': name, 'seconds': round(seconds, 2),
            'placement_reads': reads, 'placement_writes': writes,
            'requests_per_node': round((reads + writes) / float(nodes), 3),
            'conductor_calls': conductor.take(),
            'compute_cpu_s': round(cpu, 2),
            'placement_cpu_s': round(pcpu, 2),
            'errors': result.errors, 'unreported': result.unreported,
            'load_before': round(load_before, 2),
            'load_after': round(os.getloadavg()[0], 2)}


def _run_mode(mode, nodes, database, workers, conf):
    batched = mode == 'batched'
    concurrency = CONF.placement.max_parallel_requests if batched else 1
    rows = []
    cache = tree_cache.cache_path(conf.tempdir, HOST)
    if os.path.exists(cache):
        os.remove(cache)
    with _Placement(database, workers) as placement, _Conductor() as cond, \
            _one_by_one(not batched):
        requests = _CountingClient(placement.client)
        conductor = _CountingConductor(cond.api)
        counters = (requests, conductor)
        ctxt = nl_context.get_admin_context()
        tracker = _tracker(placement.client, conductor, concurrency)
        rows.append(_phase('first_registration', nodes, counters,
                           placement.pid,
                           lambda: tracker.update_available_resource(
                               ctxt, startup=True)))
        conf.flags(vcpus=CONF.fake_driver.vcpus * 2,
                   group='fake_driver')
        tracker.driver.init_host(HOST)
        rows.append(_phase('inventory_change_all', nodes, counters,
                           placement.pid,
                           lambda: tracker.update_available_resource(ctxt)))
        os.remove(tree_cache.cache_path(conf.tempdir, HOST))
        cold = _tracker(placement.client, conductor, concurrency)
        rows.append(_phase('restart_without_tree_cache', nodes, counters,
                           placement.pid,
                           lambda: cold.update_available_resource(
                               ctxt, startup=True)))
        conf.flags(vcpus=CONF.fake_driver.vcpus // 2,
                   group='fake_driver')
        bus = cond.bus
    for row in rows:
        row.update(mode=mode, bus=bus)
    return rows


def run(args):
    nodes = int(os.environ.get('NOVA_LITE_BENCH_NODES',
                               100 if args.quick else 1000))
    workers = int(os.environ.get('NOVA_LITE_BENCH_PLACEMENT_WORKERS', '2'))
    modes = os.environ.get('NOVA_LITE_BENCH_MODES',
                           'one_by_one,batched').split(',')
    database = db_fixtures.bench_database()
    rows = []
    with testing.ConfFixture() as conf, \
            testing.DatabaseFixture(cells=('cell1',), with_cell0=False):
        conf.flags(nodes=str(nodes), nested_nodes='0', group='fake_driver')
        conf.flags(connect_retries=0, group='placement')
        for mode in modes:
            rows.extend(_run_mode(mode, nodes, database, workers, conf))
    rpc.cleanup()
    return {'nodes': nodes, 'placement_database': database,
            'placement_workers': workers, 'cpus': os.cpu_count(),
            'rows': rows}
