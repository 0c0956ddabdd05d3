"""The scheduler RPC contract: client method, version and arguments, and
the server endpoint serving that version."""

from unittest import mock

import oslo_messaging as messaging

from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite.scheduler import manager
from nova_lite.scheduler import rpcapi
from tests.unit.scheduler import fakes


class SchedulerRPCAPITestCase(fakes.TestCase):

    def _api(self):
        api = rpcapi.SchedulerAPI.__new__(rpcapi.SchedulerAPI)
        api.client = mock.Mock()
        return api

    def test_select_destinations_is_a_call_with_decisions(self):
        api = self._api()
        cctxt = api.client.prepare.return_value
        ctxt = nl_context.get_admin_context()
        result = api.select_destinations(ctxt, 'spec', ('a', 'b'))
        api.client.prepare.assert_called_once_with(timeout=60)
        cctxt.call.assert_called_once_with(
            mock.ANY, 'select_destinations', request_spec='spec',
            instance_uuids=['a', 'b'], return_alternates=True,
            return_decisions=True)
        # the context carries when the call stops waiting
        self.assertEqual(ctxt.request_id,
                         cctxt.call.call_args[0][0].request_id)
        self.assertIsNotNone(cctxt.call.call_args[0][0].reply_deadline)
        self.assertIs(cctxt.call.return_value, result)

    def test_select_destinations_without_decisions(self):
        api = self._api()
        cctxt = api.client.prepare.return_value
        ctxt = nl_context.get_admin_context()
        api.select_destinations(ctxt, 'spec', ('a',), return_decisions=False)
        cctxt.call.assert_called_once_with(
            mock.ANY, 'select_destinations', request_spec='spec',
            instance_uuids=['a'], return_alternates=True,
            return_decisions=False)

    def test_manager_serves_the_client_version(self):
        self.assertEqual('1.0', rpcapi.SchedulerAPI.VERSION)
        self.assertEqual(rpcapi.SchedulerAPI.VERSION,
                         manager.SchedulerManager.target.version)

    def test_novalidhost_is_expected(self):
        mgr = manager.SchedulerManager(host='s', placement=mock.Mock(),
                                       host_manager=mock.Mock())
        mgr.schedule = mock.Mock(
            side_effect=exception.NoValidHost(reason='why'))
        self.assertRaises(messaging.ExpectedException,
                          mgr.select_destinations,
                          nl_context.get_admin_context(), 'spec', ['a'])
