"""What a compute asks its cell conductor to delete an instance.

Two calls: the instance read with its event started and its unfinished
migrations, then its last state (vm state ``deleted``...), the soft
delete and the event's finish in one transaction, with the node's usage
in the same call. The server's ``delete`` action lists its terminate
event finished ``Success``, as Nova's does.
"""

import threading

import fixtures
import testtools

from nova_lite import cells
from nova_lite.compute import vm_states
from nova_lite.conductor import manager as conductor_manager
from nova_lite import context as nl_context
from nova_lite import objects
from nova_lite.testing import integrated

# What a terminate calls, beside the instance's own writes.
_RECORDED = ('instance_get_by_uuid', 'instance_update', 'instance_destroy',
             'action_event_start', 'action_event_finish',
             'migration_get_all_by_filters', 'compute_node_update',
             'terminate_start', 'terminate_finish')
_LAST_STATE = ['power_state', 'task_state', 'terminated_at', 'vm_state']


class TerminateCallsTest(testtools.TestCase):

    def cloud(self):
        cloud = self.useFixture(integrated.IntegratedFixture())
        cloud.start_compute('host1')
        self.calls = []
        for name in _RECORDED:
            self._record(name)
        return cloud

    def _record(self, name):
        real = getattr(conductor_manager.ConductorManager, name)
        calls = self.calls

        def recorded(manager, context, *args, **kwargs):
            values = kwargs.get('values')
            calls.append(name if values is None or name == 'compute_node_'
                         'update' else (name, sorted(values)))
            return real(manager, context, *args, **kwargs)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.conductor.manager.ConductorManager.%s' % name,
            recorded))

    def active_server(self, cloud):
        server = cloud.create_server()
        server = cloud.wait_for_server(server['id'], 'ACTIVE')
        # The build's own usage refresh comes after ACTIVE shows.
        cloud.wait_for_builds()
        return server

    def delete(self, cloud):
        server = self.active_server(cloud)
        del self.calls[:]
        response = cloud.api.delete('/servers/%s' % server['id'])
        self.assertEqual(204, response.status, response)
        cloud.wait_until_deleted(server['id'])
        cell = cloud.dbs.cells['cell1']
        with cells.target_cell(nl_context.get_admin_context(
                read_deleted='yes'), cell) as cctxt:
            row = objects.Instance.get_by_uuid(cctxt, server['id'])
        self.assertEqual((vm_states.DELETED, None, True),
                         (row.vm_state, row.task_state, row.deleted))
        self.assertIsNotNone(row.terminated_at)
        self.assertEqual([('compute_terminate_instance', 'host1', 'Success')],
                         self.delete_events(cloud, server['id']))
        return self.calls

    def delete_events(self, cloud, server_id, message=None):
        path = '/servers/%s/os-instance-actions' % server_id
        actions = cloud.admin_api.get(path, version='2.21').body
        (delete,) = [a for a in actions['instanceActions']
                     if a['action'] == 'delete']
        self.assertEqual(message, delete['message'])
        detail = cloud.admin_api.get(
            '%s/%s' % (path, delete['request_id']),
            version='2.62').body['instanceAction']
        return [(e['event'], e['host'], e['result'])
                for e in detail['events']]

    def used_vcpus(self, cloud):
        cell = cloud.dbs.cells['cell1']
        with cells.target_cell(nl_context.get_admin_context(),
                               cell) as cctxt:
            (node,) = objects.ComputeNodeList.get_all_by_host(cctxt,
                                                              'host1')
        return node.vcpus_used

    def test_a_terminate_is_two_calls_with_the_node_usage(self):
        cloud = self.cloud()
        calls = self.delete(cloud)
        self.assertEqual(
            ['terminate_start', ('terminate_finish', _LAST_STATE)], calls)
        self.assertEqual(0, self.used_vcpus(cloud))

    def test_the_claim_is_given_back_before_the_conductor_is_asked(self):
        """The guest goes and its allocation with it before the first
        conductor call: a conductor busy with other work does not hold
        the claim up."""
        cloud = self.cloud()
        server = self.active_server(cloud)
        driver = cloud.computes['host1'].manager.driver
        seen = []
        real = conductor_manager.ConductorManager.terminate_start

        def terminate_start(manager, context, instance_uuid, *args, **kw):
            seen.append((bool(cloud.allocations(instance_uuid)),
                         instance_uuid in driver.list_instance_uuids()))
            return real(manager, context, instance_uuid, *args, **kw)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.conductor.manager.ConductorManager.terminate_start',
            terminate_start))
        response = cloud.api.delete('/servers/%s' % server['id'])
        self.assertEqual(204, response.status, response)
        cloud.wait_until_deleted(server['id'])
        self.assertEqual([(False, False)], seen)
        self.assertEqual([('compute_terminate_instance', 'host1', 'Success')],
                         self.delete_events(cloud, server['id']))

    def test_a_terminate_waits_for_another_usage_write_to_send_its_own(self):
        """Another terminate's (or build's) usage write holds the
        tracker's lock: this one waits for it and still sends the usage
        with its last state, no call of its own after."""
        cloud = self.cloud()
        server = self.active_server(cloud)
        tracker = cloud.computes['host1'].manager.rt
        waiting, release = threading.Event(), threading.Event()
        tracker._lock = _WaitSpy(tracker._lock, waiting)
        holding = threading.Event()

        def other_usage_write():
            node = server['OS-EXT-SRV-ATTR:hypervisor_hostname']
            with tracker.usage_change(node):
                holding.set()
                release.wait(30)
        holder = threading.Thread(target=other_usage_write)
        holder.start()
        self.addCleanup(holder.join)
        self.addCleanup(release.set)
        self.assertTrue(holding.wait(30))
        del self.calls[:]
        answers = []
        deleting = threading.Thread(target=lambda: answers.append(
            cloud.api.delete('/servers/%s' % server['id']).status))
        deleting.start()
        self.assertTrue(waiting.wait(30))
        release.set()
        deleting.join(30)
        self.assertEqual([204], answers)
        self.assertEqual(
            ['terminate_start', ('terminate_finish', _LAST_STATE)],
            self.calls)
        self.assertEqual(0, self.used_vcpus(cloud))

    def test_a_failed_terminate_finishes_its_event_as_an_error(self):
        cloud = self.cloud()
        server = self.active_server(cloud)
        self.useFixture(fixtures.MockPatchObject(
            cloud.computes['host1'].manager.driver, 'destroy',
            side_effect=RuntimeError('guest stuck')))
        del self.calls[:]
        response = cloud.api.delete('/servers/%s' % server['id'])
        self.assertEqual(204, response.status, response)
        # The started event finished Error (the write that would have
        # finished it did not happen), a fault, no task.
        self.assertEqual(['terminate_start', 'action_event_finish',
                          ('instance_update', ['task_state'])], self.calls)
        server = cloud.get_server(server['id'])
        self.assertEqual(('ACTIVE', None),
                         (server['status'], server['OS-EXT-STS:task_state']))
        self.assertEqual([('compute_terminate_instance', 'host1', 'Error')],
                         self.delete_events(cloud, server['id'], 'Error'))


class _WaitSpy:
    """A lock that sets ``waiting`` when a thread asks for it blocking."""

    def __init__(self, lock, waiting):
        self._lock = lock
        self._waiting = waiting

    def acquire(self, blocking=True, timeout=-1):
        if blocking:
            self._waiting.set()
        return self._lock.acquire(blocking, timeout)

    def release(self):
        self._lock.release()

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc):
        self.release()
