"""The client side of the ``compute_task`` RPC API: what goes on the bus."""

from unittest import mock

import testtools

from nova_lite.conductor import compute_task
from nova_lite.conductor import compute_task_rpcapi
from nova_lite import context as nl_context
from nova_lite import testing


class ComputeTaskAPITestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())
        self.api = compute_task_rpcapi.ComputeTaskAPI()
        self.prepared = mock.Mock()
        self.api.client = mock.Mock()
        self.api.client.prepare.return_value = self.prepared
        self.context = nl_context.get_admin_context()

    def test_target(self):
        target = compute_task_rpcapi.ComputeTaskAPI().client.target
        self.assertEqual(('conductor', 'compute_task', '1.0'),
                         (target.topic, target.namespace, target.version))
        self.assertEqual(('compute_task', '1.0'),
                         (compute_task.ComputeTaskManager.target.namespace,
                          compute_task.ComputeTaskManager.target.version))

    def test_schedule_and_build_instances_is_a_cast(self):
        self.api.schedule_and_build_instances(
            self.context, ['br'], ['spec'], image={'id': 'i'},
            requested_networks='none')
        self.api.client.prepare.assert_called_once_with(retry=None)
        self.prepared.cast.assert_called_once_with(
            self.context, 'schedule_and_build_instances',
            build_requests=['br'], request_specs=['spec'],
            image={'id': 'i'}, requested_networks='none')

    def test_build_instances_is_a_cast(self):
        self.api.build_instances(self.context, ['inst'], 'spec', [['sel']],
                                 exc_reason='boom')
        self.prepared.cast.assert_called_once_with(
            self.context, 'build_instances', instances=['inst'],
            request_spec='spec', host_lists=[['sel']], image=None,
            exc_reason='boom')

    def test_server_methods_match_client(self):
        for name in ('schedule_and_build_instances', 'build_instances'):
            self.assertTrue(callable(getattr(
                compute_task.ComputeTaskManager, name)), name)
