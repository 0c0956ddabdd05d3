"""What a compute asks its cell conductor to delete an instance: its last
state (vm state ``deleted``...) and the soft delete in one call and one
transaction (conductor 1.5), or an update and a destroy when the
conductor is older (``[upgrade_levels] conductor``)."""

import fixtures
import testtools

from nova_lite.compute import vm_states
from nova_lite.conductor import manager as conductor_manager
from nova_lite import context as nl_context
from nova_lite import objects
from nova_lite.testing import integrated


class TerminateCallsTest(testtools.TestCase):

    def cloud(self, **flags):
        cloud = self.useFixture(integrated.IntegratedFixture(flags=flags))
        cloud.start_compute('host1')
        self.calls = []
        for name in ('instance_update', 'instance_destroy'):
            self._record(name)
        return cloud

    def _record(self, name):
        real = getattr(conductor_manager.ConductorManager, name)
        calls = self.calls

        def recorded(manager, context, instance_uuid, *args, **kwargs):
            calls.append((name, sorted(kwargs.get('values') or {})))
            return real(manager, context, instance_uuid, *args, **kwargs)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.conductor.manager.ConductorManager.%s' % name,
            recorded))

    def delete(self, cloud):
        server = cloud.create_server()
        server = cloud.wait_for_server(server['id'], 'ACTIVE')
        del self.calls[:]
        response = cloud.api.delete('/servers/%s' % server['id'])
        self.assertEqual(204, response.status, response)
        cloud.wait_until_deleted(server['id'])
        cell = cloud.dbs.cells['cell1']
        with nl_context.target_cell(nl_context.get_admin_context(
                read_deleted='yes'), cell) as cctxt:
            row = objects.Instance.get_by_uuid(cctxt, server['id'])
        self.assertEqual((vm_states.DELETED, None, True),
                         (row.vm_state, row.task_state, row.deleted))
        self.assertIsNotNone(row.terminated_at)
        return self.calls

    def test_last_state_and_delete_in_one_call(self):
        calls = self.delete(self.cloud())
        self.assertEqual([('instance_destroy', [
            'power_state', 'task_state', 'terminated_at', 'vm_state'])],
            calls)

    def test_an_older_conductor_gets_an_update_then_a_destroy(self):
        calls = self.delete(self.cloud(upgrade_levels={'conductor': '1.4'}))
        self.assertEqual([
            ('instance_update', [
                'power_state', 'task_state', 'terminated_at', 'vm_state']),
            ('instance_destroy', [])], calls)
