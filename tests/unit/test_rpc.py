"""Unit tests of nova_lite.rpc: exchanges, transport cache, client routing."""

import oslo_messaging as messaging
import testtools

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import rpc
from nova_lite.scheduler import rpcapi as scheduler_rpcapi
from nova_lite import testing


class ExchangeTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())

    def test_default_vhost_uses_base_exchange(self):
        for url in ('fake://', 'fake:///', 'rabbit://u:p@127.0.0.1:5672/',
                    'rabbit://u:p@127.0.0.1:5672//'):
            self.assertEqual('nova_lite', rpc.exchange_for_url(url), url)

    def test_vhost_suffixes_exchange(self):
        self.assertEqual('nova_lite_cell1',
                         rpc.exchange_for_url('fake:///cell1'))
        self.assertEqual('nova_lite_a_b',
                         rpc.exchange_for_url('rabbit://u:p@h:5672/a/b'))

    def test_transport_carries_its_exchange(self):
        transport = rpc.get_cell_transport('fake:///cellx')
        self.assertEqual('nova_lite_cellx', rpc.exchange_for(transport))

    def test_client_and_server_targets_get_exchange(self):
        transport = rpc.get_cell_transport('fake:///celly')
        client = rpc.get_client(messaging.Target(topic='t'),
                                transport=transport)
        self.assertEqual('nova_lite_celly', client.target.exchange)


class TransportTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())

    def test_cell0_has_no_bus(self):
        self.assertIsNone(rpc.get_cell_transport('none:///'))

    def test_transports_cached_per_url(self):
        a = rpc.get_cell_transport('fake:///a')
        self.assertIs(a, rpc.get_cell_transport('fake:///a'))
        self.assertIsNot(a, rpc.get_cell_transport('fake:///b'))

    def test_default_transport_is_cached_transport_of_conf_url(self):
        self.assertIs(rpc.get_transport(),
                      rpc.get_cell_transport('fake:///'))

    def test_bad_url_is_config_error(self):
        exc = self.assertRaises(exception.ConfigInvalid,
                                rpc.get_cell_transport,
                                'nosuchdriver://u:secret@h/')
        self.assertNotIn('secret', str(exc))


class RPCAPITestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.conf = self.useFixture(testing.ConfFixture())

    def test_topics(self):
        self.assertEqual('conductor', conductor_rpcapi.RPC_TOPIC)
        self.assertEqual('scheduler', scheduler_rpcapi.RPC_TOPIC)
        self.assertEqual('compute', compute_rpcapi.RPC_TOPIC)

    def test_compute_client_follows_targeted_cell(self):
        api = compute_rpcapi.ComputeAPI()
        ctxt = nl_context.get_admin_context()
        default_client = api.router(ctxt)
        self.assertEqual('nova_lite', default_client.target.exchange)
        ctxt.mq_connection = rpc.get_cell_transport('fake:///cell2')
        cell_client = api.router(ctxt)
        self.assertEqual('nova_lite_cell2', cell_client.target.exchange)
        self.assertIs(cell_client, api.router(ctxt))

    def test_compute_prepare_addresses_host(self):
        api = compute_rpcapi.ComputeAPI()
        cctxt = api.prepare(nl_context.get_admin_context(), 'host7')
        self.assertEqual('host7', cctxt.target.server)


class FakeCallContext:
    """Stands in for a prepared client context; records what is sent."""

    def __init__(self, sent, prepare_kwargs):
        self.sent = sent
        self.prepare_kwargs = prepare_kwargs

    def call(self, ctxt, method, **kwargs):
        self.sent.append(('call', method, kwargs, self.prepare_kwargs))
        return 'reply'

    def cast(self, ctxt, method, **kwargs):
        self.sent.append(('cast', method, kwargs, self.prepare_kwargs))


class ClientContractTestCase(testtools.TestCase):
    """Each client method: its server method, kind, arguments, version."""

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())
        self.sent = []
        self.ctxt = nl_context.get_admin_context()

    def _capture(self, client):
        client.prepare = lambda **kw: FakeCallContext(self.sent, kw)

    def test_conductor_service_get_or_create(self):
        api = conductor_rpcapi.ConductorAPI()
        self._capture(api.client)
        self.assertEqual('reply', api.service_get_or_create(
            self.ctxt, 'h1', 'nova-lite-compute', 'compute'))
        self.assertEqual([('call', 'service_get_or_create',
                           {'host': 'h1', 'binary': 'nova-lite-compute',
                            'topic': 'compute'},
                           {'timeout': None})],
                         self.sent)

    def test_conductor_service_update(self):
        api = conductor_rpcapi.ConductorAPI()
        self._capture(api.client)
        api.service_update(self.ctxt, 7, {'report_count': 3}, timeout=10)
        self.assertEqual([('call', 'service_update',
                           {'service_id': 7, 'values': {'report_count': 3}},
                           {'timeout': 10})], self.sent)

    def test_base_api(self):
        from nova_lite import baserpc
        api = baserpc.BaseAPI('compute')
        self._capture(api.client)
        api.ping(self.ctxt, 'x', server='h1', timeout=5)
        api.report_state(self.ctxt, fanout=True)
        self.assertEqual(
            [('call', 'ping', {'arg': 'x'}, {'server': 'h1', 'timeout': 5}),
             ('cast', 'report_state', {}, {'server': None, 'fanout': True})],
            self.sent)
        self.assertEqual('baseapi', api.client.target.namespace)


class RemoteExceptionTestCase(testtools.TestCase):
    """An expected error from another service reads as its message."""

    def _remote(self, error):
        import sys

        from oslo_messaging._drivers import common as driver_common
        try:
            raise error
        except Exception:
            data = driver_common.serialize_remote_exception(sys.exc_info())
        return driver_common.deserialize_remote_exception(
            data, rpc.ALLOWED_EXMODS)

    def test_remote_no_valid_host_is_one_line(self):
        error = self._remote(exception.NoValidHost(reason='3 hosts, 0 fit'))
        self.assertIsInstance(error, exception.NoValidHost)
        self.assertEqual('No valid host was found. 3 hosts, 0 fit',
                         str(error))
        self.assertIn('Traceback (most recent call last)',
                      error.remote_text())

    def test_local_exception_unchanged(self):
        error = exception.NoValidHost(reason='none')
        self.assertEqual('No valid host was found. none', str(error))
        self.assertEqual(str(error), error.remote_text())
