"""One compute serving many fake nodes: registration, periodic, restart.

A resource tracker with the fake driver serving ``--nodes`` nodes (1,000;
100 with ``--quick``) reports to a real nova-lite-placement process (its
own SQLite file, 2 workers; ``NOVA_LITE_BENCH_PLACEMENT=inprocess`` runs
it in this process instead). The cell conductor's record methods are
called in-process (the conductor manager itself, on a SQLite cell
database), so the figures are the tracker's and placement's, not the
message bus's. Measured:

* first registration: the start-up update with no provider in placement;
* periodic with nothing changed, with the trees trusted
  (``resource_provider_association_refresh`` not due: the default) and
  with the one-read-per-tree generation check (refresh 0);
* restart: a new tracker and driver whose providers already exist, with
  the provider trees saved by the previous run (one listing) and without
  them (three reads per provider);
* placement requests (reads, writes) per node for each phase;
* resident memory of this (compute) process.
"""

import os
import time

import fixtures
import oslo_messaging as messaging

from nova_lite.clients import placement as placement_client
from nova_lite.clients import report
from nova_lite.compute import resource_tracker
from nova_lite.compute import tree_cache
from nova_lite.conductor import manager as conductor_manager
from nova_lite import context as nl_context
from nova_lite.testing import placement_fixture
from nova_lite import testing
from nova_lite.virt import fake

HOST = 'bench-host'


class _LocalConductor:
    """The cell conductor's methods without the bus (same objects)."""

    def __init__(self):
        self._manager = conductor_manager.ConductorManager(host='cond')

    def __getattr__(self, name):
        method = getattr(self._manager, name)

        def call(context, *args, **kwargs):
            kwargs.pop('timeout', None)
            try:
                return method(context, *args, **kwargs)
            except messaging.ExpectedException as wrapped:
                raise wrapped.exc_info[1]
        return call


class _Counter:
    def __init__(self, client):
        self.reads = self.writes = 0
        self._request = client.request
        client.request = self._record

    def _record(self, method, path, *args, **kwargs):
        if method == 'GET':
            self.reads += 1
        else:
            self.writes += 1
        return self._request(method, path, *args, **kwargs)

    def take(self):
        counts = (self.reads, self.writes)
        self.reads = self.writes = 0
        return counts


def _rss_mb():
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return round(int(line.split()[1]) / 1024.0, 1)
    return None


def _placement_client(stack, tmp):
    if os.environ.get('NOVA_LITE_BENCH_PLACEMENT') == 'inprocess':
        return stack.useFixture(placement_fixture.PlacementFixture()).client
    from tests.functional.placement import server
    url = 'sqlite:///' + os.path.join(tmp, 'placement.sqlite')
    endpoint = stack.useFixture(server.PlacementServer(url, workers=2))
    return placement_client.PlacementClient(endpoint=endpoint.endpoint)


def _tracker(client, conductor):
    driver = fake.FakeDriver()
    driver.init_host(HOST)
    return resource_tracker.ResourceTracker(
        HOST, driver, report.ReportClient(client), conductor)


def _phase(name, nodes, counter, func):
    t0 = time.perf_counter()
    result = func()
    seconds = time.perf_counter() - t0
    reads, writes = counter.take()
    return {'phase': name, 'seconds': round(seconds, 2),
            'reads_per_node': round(reads / float(nodes), 3),
            'writes_per_node': round(writes / float(nodes), 3),
            'errors': result.errors, 'unreported': result.unreported}


class _Stack(fixtures.Fixture):
    """Configuration, cell database and placement for the benchmark."""

    def __init__(self, nodes):
        super().__init__()
        self.nodes = nodes

    def _setUp(self):
        conf = self.useFixture(testing.ConfFixture())
        self.useFixture(testing.DatabaseFixture(cells=('cell1',),
                                                with_cell0=False))
        conf.flags(nodes=str(self.nodes), nested_nodes='0',
                   group='fake_driver')
        conf.flags(connect_retries=0, group='placement')
        self.conf = conf
        self.client = _placement_client(self, conf.tempdir)


def run(args):
    nodes = int(os.environ.get('NOVA_LITE_BENCH_NODES',
                               100 if args.quick else 1000))
    rows = []
    with _Stack(nodes) as stack:
        counter = _Counter(stack.client)
        conductor = _LocalConductor()
        ctxt = nl_context.get_admin_context()
        tracker = _tracker(stack.client, conductor)
        rows.append(_phase('first_registration', nodes, counter,
                           lambda: tracker.update_available_resource(
                               ctxt, startup=True)))
        rows.append(_phase('periodic_no_change', nodes, counter,
                           lambda: tracker.update_available_resource(ctxt)))
        stack.conf.flags(resource_provider_association_refresh=0,
                         group='compute')
        rows.append(_phase('periodic_generation_check', nodes, counter,
                           lambda: tracker.update_available_resource(ctxt)))
        stack.conf.flags(resource_provider_association_refresh=300,
                         group='compute')
        tracker = None
        restarted = _tracker(stack.client, conductor)
        rows.append(_phase('restart', nodes, counter,
                           lambda: restarted.update_available_resource(
                               ctxt, startup=True)))
        restarted = None
        os.remove(tree_cache.cache_path(stack.conf.tempdir, HOST))
        cold = _tracker(stack.client, conductor)
        rows.append(_phase('restart_without_tree_cache', nodes, counter,
                           lambda: cold.update_available_resource(
                               ctxt, startup=True)))
        rss = _rss_mb()
    for row in rows:
        row['rss_mb'] = rss
    return {'nodes': nodes,
            'placement': os.environ.get('NOVA_LITE_BENCH_PLACEMENT',
                                        'process'),
            'rows': rows}
