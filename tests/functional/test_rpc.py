"""RPC between services in one process over ``fake://``.

Covers call, cast and fanout with the request context arriving intact
(request id, user, project, roles, admin flag; the request id is also the
handling thread's current context, which is what oslo.log prints), the
base API every service serves, and the isolation of cells sharing the
in-memory bus under different virtual hosts.
"""

import threading
import time

import oslo_messaging as messaging
from oslo_context import context as oslo_context
import testtools

from nova_lite import baserpc
from nova_lite import cells
from nova_lite import context as nl_context
from nova_lite import objects
from nova_lite import rpc
from nova_lite import testing

WAIT_SECONDS = 10


def wait_for(predicate, timeout=WAIT_SECONDS, interval=0.05):
    """Poll ``predicate`` until true; fail the test on timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise AssertionError('condition not met within %ss' % timeout)


class RecorderEndpoint:
    """Test endpoint (namespace ``test``) recording what arrives."""

    target = messaging.Target(namespace='test', version='1.0')

    def __init__(self, host):
        self.host = host
        self.received = []
        self.arrived = threading.Event()

    def _note(self, context, method, tag):
        current = oslo_context.get_current()
        self.received.append({
            'method': method, 'tag': tag, 'context': context.to_dict(),
            'context_class': type(context),
            'current_request_id': current.request_id if current else None})
        self.arrived.set()

    def echo(self, context, tag):
        self._note(context, 'echo', tag)
        return {'tag': tag, 'host': self.host}

    def remember(self, context, tag):
        self._note(context, 'remember', tag)


def make_context():
    return nl_context.RequestContext(
        user_id='alice', project_id='project-a', roles=['member', 'reader'],
        is_admin=False)


class RPCTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())
        self.dbs = self.useFixture(testing.DatabaseFixture(cells=('cell1',)))
        self.cell = self.dbs.cells['cell1']
        self.recorders = {}
        testing.start_service(self, 'conductor', host='cond1',
                              cell=self.cell)
        self.computes = [self._start_compute(h) for h in ('host1', 'host2')]

    def _start_compute(self, host):
        service = testing.make_service('compute', host=host, cell=self.cell)
        recorder = RecorderEndpoint(host)
        service.manager.additional_endpoints.append(recorder)
        self.recorders[host] = recorder
        service.start()
        self.addCleanup(service.stop)
        return service

    def _test_client(self):
        target = messaging.Target(topic='compute', namespace='test',
                                  version='1.0')
        return rpc.get_client(target)

    def assertContextIntact(self, sent, received):
        self.assertEqual(sent.request_id, received['request_id'])
        self.assertEqual(sent.user_id, received['user'])
        self.assertEqual(sent.project_id, received['project_id'])
        self.assertEqual(sorted(sent.roles), sorted(received['roles']))
        self.assertEqual(sent.is_admin, received['is_admin'])

    def assertArrivedIntact(self, sent, record):
        self.assertContextIntact(sent, record['context'])
        self.assertIs(nl_context.RequestContext, record['context_class'])
        self.assertEqual(sent.request_id, record['current_request_id'])

    def test_call_reaches_named_server_with_context(self):
        ctxt = make_context()
        client = self._test_client().prepare(server='host2')
        reply = client.call(ctxt, 'echo', tag='call-1')
        self.assertEqual({'tag': 'call-1', 'host': 'host2'}, reply)
        self.assertEqual([], self.recorders['host1'].received)
        self.assertArrivedIntact(ctxt, self.recorders['host2'].received[0])

    def test_cast_reaches_named_server_with_context(self):
        ctxt = make_context().elevated()
        client = self._test_client().prepare(server='host1')
        client.cast(ctxt, 'remember', tag='cast-1')
        self.assertTrue(self.recorders['host1'].arrived.wait(WAIT_SECONDS))
        record = self.recorders['host1'].received[0]
        self.assertEqual('cast-1', record['tag'])
        self.assertTrue(record['context']['is_admin'])
        self.assertIn('admin', record['context']['roles'])
        self.assertArrivedIntact(ctxt, record)

    def test_fanout_reaches_every_server_with_context(self):
        ctxt = make_context()
        client = self._test_client().prepare(fanout=True)
        client.cast(ctxt, 'remember', tag='fan-1')
        for host in ('host1', 'host2'):
            self.assertTrue(self.recorders[host].arrived.wait(WAIT_SECONDS))
            record = self.recorders[host].received[0]
            self.assertEqual('fan-1', record['tag'])
            self.assertArrivedIntact(ctxt, record)

    def test_cast_as_call_returns_after_handling(self):
        self.useFixture(testing.CastAsCallFixture())
        ctxt = make_context()
        self._test_client().prepare(server='host1').cast(
            ctxt, 'remember', tag='sync-1')
        self.assertEqual(['sync-1'], [r['tag'] for r in
                                      self.recorders['host1'].received])

    def test_base_api_ping_returns_received_context(self):
        ctxt = make_context()
        reply = baserpc.BaseAPI('compute').ping(ctxt, {'n': 1},
                                                server='host1')
        self.assertEqual({'n': 1}, reply['arg'])
        self.assertEqual('host1', reply['host'])
        self.assertEqual('nova-lite-compute', reply['binary'])
        self.assertContextIntact(ctxt, reply['context'])

    def test_base_api_report_state_fanout_heartbeats_every_compute(self):
        before = {s.host: s.record.report_count for s in self.computes}
        baserpc.BaseAPI('compute').report_state(make_context(), fanout=True)

        def all_beat():
            return all(s.record.report_count > before[s.host]
                       for s in self.computes)
        wait_for(all_beat)

    def test_computes_recorded_through_conductor_in_cell_db(self):
        ctxt = self._cell_context()
        services = objects.ServiceList.get_all(ctxt)
        by_host = {(s.host, s.binary) for s in services}
        self.assertEqual({('cond1', 'nova-lite-conductor'),
                          ('host1', 'nova-lite-compute'),
                          ('host2', 'nova-lite-compute')}, by_host)

    def test_conductor_errors_reach_caller_as_themselves(self):
        from nova_lite.conductor import rpcapi as conductor_rpcapi
        from nova_lite import exception
        api = conductor_rpcapi.ConductorAPI()
        record = self.computes[0].record
        self.assertRaises(exception.Invalid, api.service_update,
                          make_context(), record.id, {'disabled': True})
        self.assertRaises(exception.ServiceNotFound, api.service_update,
                          make_context(), 98765, {'report_count': 1})

    def _cell_context(self):
        ctxt = nl_context.get_admin_context()
        cells.set_target_cell(ctxt, self.cell)
        return ctxt


class CellIsolationTestCase(testtools.TestCase):
    """Two cells on ``fake://`` with different vhosts stay apart."""

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())
        self.dbs = self.useFixture(
            testing.DatabaseFixture(cells=('cell1', 'cell2')))

    def test_cells_do_not_answer_each_others_messages(self):
        mappings = [self.dbs.cells['cell1'], self.dbs.cells['cell2']]
        for cell in mappings:
            testing.start_service(self, 'conductor', host='cond-' + cell.name,
                                  cell=cell)
            testing.start_service(self, 'compute', host='cmp-' + cell.name,
                                  cell=cell)
        ctxt = make_context()
        for cell in mappings:
            transport = rpc.get_cell_transport(cell.transport_url)
            for topic, host in (('conductor', 'cond-'), ('compute', 'cmp-')):
                api = baserpc.BaseAPI(topic, transport=transport)
                for _ in range(3):
                    reply = api.ping(ctxt, cell.name)
                    self.assertEqual(host + cell.name, reply['host'])
        for cell in mappings:
            cctxt = nl_context.get_admin_context()
            cells.set_target_cell(cctxt, cell)
            hosts = {s.host for s in objects.ServiceList.get_all(cctxt)}
            self.assertEqual({'cond-' + cell.name, 'cmp-' + cell.name},
                             hosts)

    def test_no_bus_for_cell0(self):
        self.assertIsNone(
            rpc.get_cell_transport(self.dbs.cells['cell0'].transport_url))


class DatabaseFixtureTestCase(testtools.TestCase):
    """The harness maps cells and hosts in the API database."""

    def test_cells_and_hosts_mapped(self):
        from nova_lite.db.api import api as api_db
        self.useFixture(testing.ConfFixture())
        dbs = self.useFixture(testing.DatabaseFixture(cells=('cell1',)))
        dbs.map_host('host1', 'cell1')
        ctxt = nl_context.get_admin_context()
        names = {c.name: c.transport_url
                 for c in api_db.cell_mapping_get_all(ctxt)}
        self.assertEqual({'cell0': 'none:///', 'cell1': 'fake:///cell1'},
                         names)
        mapping = api_db.host_mapping_get_by_host(ctxt, 'host1')
        self.assertEqual(dbs.cells['cell1'].uuid, mapping.cell_mapping.uuid)
