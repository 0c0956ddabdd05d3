"""Builds at the compute: the test plays the conductor's part.

The instance row is created in the cell DB and its allocation PUT in
placement by the test, as the super conductor and the scheduler would;
then ``build_and_run_instance`` is cast to the compute.
"""

import datetime
import logging
import threading

import fixtures
from oslo_context import context as oslo_context
from oslo_utils import timeutils
from oslo_utils import uuidutils
import testtools

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute import stale_builds
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite.conductor import manager as conductor_manager
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import instance_fault
from nova_lite.virt import fake_layout
from nova_lite import testing
from tests.functional.compute import base

FLAVOR = {'vcpus': 2, 'memory_mb': 1024, 'root_gb': 10, 'ephemeral_gb': 0}
NODE = 'host1-node-1'


class BuildTestBase(base.ComputeTestBase):

    def setUp(self):
        super().setUp()
        self.useFixture(testing.CastAsCallFixture())
        self.compute_api = compute_rpcapi.ComputeAPI()

    def _instance(self, node=NODE, claim=True):
        instance = objects.Instance(
            self.ctxt, uuid=uuidutils.generate_uuid(), project_id='p1',
            user_id='u1', vm_state=vm_states.BUILDING,
            task_state=task_states.SCHEDULING, flavor=FLAVOR,
            vcpus=2, memory_mb=1024, root_gb=10)
        instance.create()
        if claim:
            self.client.put_allocations(
                instance.uuid,
                {fake_layout.node_uuid(node): {'resources': {
                    'VCPU': 2, 'MEMORY_MB': 1024, 'DISK_GB': 10}}},
                'p1', 'u1')
        return instance

    def _build(self, compute, instance, node=NODE, host_list=None):
        self.compute_api.build_and_run_instance(
            self.ctxt, instance, 'host1', node, host_list=host_list)
        compute.manager.wait_for_builds(timeout=30)
        return objects.Instance.get_by_uuid(self.ctxt, instance.uuid)

    def assert_build_event_succeeded(self, instance):
        action = objects.InstanceAction.get_by_request_id(
            self.ctxt, instance.uuid, self.ctxt.request_id)
        events = objects.InstanceActionEventList.get_by_action(
            self.ctxt, action.id)
        self.assertEqual([('compute_build_and_run_instance', 'Success')],
                         [(e.event, e.result) for e in events])

    def _node(self, node=NODE):
        return objects.ComputeNode.get_by_host_and_nodename(
            self.ctxt, 'host1', node)


class BuildTestCase(BuildTestBase):

    def test_build_active_usage_then_terminate(self):
        compute = self.start_compute()
        instance = self._build(compute, self._instance())
        self.assertEqual((vm_states.ACTIVE, None, 'host1', NODE),
                         (instance.vm_state, instance.task_state,
                          instance.host, instance.node))
        self.assertIsNotNone(instance.launched_at)
        node = self._node()
        self.assertEqual((2, 1024, 10, 1, 0),
                         (node.vcpus_used, node.memory_mb_used,
                          node.local_gb_used, node.running_vms,
                          node.failed_builds))
        self.compute_api.terminate_instance(self.ctxt, instance)
        self.assertEqual({}, self.client.get_allocations(
            instance.uuid)['allocations'])
        node = self._node()
        self.assertEqual((0, 0), (node.vcpus_used, node.running_vms))
        self.assertRaises(exception.InstanceNotFound,
                          objects.Instance.get_by_uuid,
                          self.ctxt, instance.uuid)

    def test_failed_build_without_alternates_goes_to_error(self):
        self.flags(fail_spawn_nodes=[NODE], group='fake_driver')
        compute = self.start_compute()
        instance = self._build(compute, self._instance())
        self.assertEqual((vm_states.ERROR, None, None),
                         (instance.vm_state, instance.task_state,
                          instance.host))
        fault = objects.InstanceFault.get_latest_for_instance(
            self.ctxt, instance.uuid)
        self.assertIn('no alternate host', fault.message)
        self.assertEqual({}, self.client.get_allocations(
            instance.uuid)['allocations'])
        self.assertEqual(1, self._node().failed_builds)
        self.assertEqual([], compute.manager.driver.list_instance_uuids())

    def test_success_resets_failed_builds(self):
        self.flags(fail_spawn_nodes=[NODE], group='fake_driver')
        compute = self.start_compute()
        self._build(compute, self._instance())
        self.assertEqual(1, self._node().failed_builds)
        self.flags(fail_spawn_nodes=[], group='fake_driver')
        compute.manager.driver.init_host('host1')
        instance = self._build(compute, self._instance())
        self.assertEqual(vm_states.ACTIVE, instance.vm_state)
        self.assertEqual(0, self._node().failed_builds)

    def test_success_on_a_node_without_failures_asks_no_reset(self):
        calls = []
        real = conductor_rpcapi.ConductorAPI.compute_node_build_result

        def counting(api, *args, **kwargs):
            calls.append(args)
            return real(api, *args, **kwargs)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.conductor.rpcapi.ConductorAPI.'
            'compute_node_build_result', counting))
        compute = self.start_compute()
        for _ in range(2):
            self._build(compute, self._instance())
        self.assertEqual([], calls)
        self.assertEqual(0, self._node().failed_builds)

    def test_abort_goes_to_error_without_reschedule(self):
        self.flags(abort_spawn_nodes=[NODE], group='fake_driver')
        compute = self.start_compute()
        alternate = objects.Selection(
            compute_node_uuid=fake_layout.node_uuid('host1-node-2'),
            service_host='host1', nodename='host1-node-2',
            cell_uuid=self.cell.uuid, allocation_request=None,
            allocation_request_version=None)
        instance = self._build(compute, self._instance(),
                               host_list=[alternate])
        self.assertEqual(vm_states.ERROR, instance.vm_state)
        fault = objects.InstanceFault.get_latest_for_instance(
            self.ctxt, instance.uuid)
        self.assertIn('abort_spawn_nodes', fault.message)
        self.assertEqual({}, self.client.get_allocations(
            instance.uuid)['allocations'])

    def test_build_without_allocation_aborts(self):
        compute = self.start_compute()
        instance = self._build(compute, self._instance(claim=False))
        self.assertEqual(vm_states.ERROR, instance.vm_state)
        fault = objects.InstanceFault.get_latest_for_instance(
            self.ctxt, instance.uuid)
        self.assertIn('no allocation', fault.message)

    def test_power_actions(self):
        compute = self.start_compute()
        instance = self._build(compute, self._instance())
        for method, vm_state in (('stop_instance', vm_states.STOPPED),
                                 ('start_instance', vm_states.ACTIVE),
                                 ('pause_instance', vm_states.PAUSED),
                                 ('unpause_instance', vm_states.ACTIVE),
                                 ('suspend_instance', vm_states.SUSPENDED),
                                 ('resume_instance', vm_states.ACTIVE),
                                 ('reboot_instance', vm_states.ACTIVE)):
            getattr(self.compute_api, method)(self.ctxt, instance)
            instance = objects.Instance.get_by_uuid(self.ctxt,
                                                    instance.uuid)
            self.assertEqual(vm_state, instance.vm_state, method)

    def test_build_records_action_event(self):
        compute = self.start_compute()
        instance = self._instance()
        objects.InstanceAction.action_start(self.ctxt, instance.uuid,
                                            'create')
        self._build(compute, instance)
        self.assert_build_event_succeeded(instance)

    def test_after_the_spawn_one_call(self):
        """ACTIVE, the build event's finish (one transaction) and the
        node's usage go in one call; the BUILDING write and the event's
        start in one call before the spawn. A build is two conductor
        calls."""
        calls = []
        for name in ('instance_update', 'action_event_start',
                     'action_event_finish', 'compute_node_update',
                     'build_start', 'build_finish'):
            self._record(calls, name)
        compute = self.start_compute()
        held = []
        real = conductor_manager.ConductorManager.build_finish

        def probe_lock():
            lock = compute.manager.rt._lock
            free = lock.acquire(blocking=False)
            if free:
                lock.release()
            held.append(not free)

        def build_finish(manager, *args, **kwargs):
            # Another thread's refresh waits for this write to end.
            probe = threading.Thread(target=probe_lock)
            probe.start()
            probe.join()
            return real(manager, *args, **kwargs)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.conductor.manager.ConductorManager.build_finish',
            build_finish))
        instance = self._instance()
        objects.InstanceAction.action_start(self.ctxt, instance.uuid,
                                            'create')
        del calls[:]
        instance = self._build(compute, instance)
        self.assertEqual([True], held)
        self.assertEqual(vm_states.ACTIVE, instance.vm_state)
        self.assertEqual(['build_start', 'build_finish'], calls)
        self.assert_build_event_succeeded(instance)
        node = self._node()
        self.assertEqual((2, 1024, 10, 1),
                         (node.vcpus_used, node.memory_mb_used,
                          node.local_gb_used, node.running_vms))

    def test_a_busy_tracker_does_not_hold_up_active(self):
        """Another refresh holds the tracker's lock: ACTIVE and the event
        go at once, without the usage, which is refreshed after."""
        calls = []
        for name in ('action_event_finish', 'compute_node_update'):
            self._record(calls, name)
        real = conductor_manager.ConductorManager.build_finish

        def build_finish(manager, context, *args, **kwargs):
            calls.append(('build_finish', kwargs.get('node')))
            finished.set()
            return real(manager, context, *args, **kwargs)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.conductor.manager.ConductorManager.build_finish',
            build_finish))
        compute = self.start_compute()
        finished, release = threading.Event(), threading.Event()

        def busy():
            with compute.manager.rt._lock:
                release.wait(30)
        holder = threading.Thread(target=busy)
        holder.start()
        self.addCleanup(holder.join)
        self.addCleanup(release.set)
        instance = self._instance()
        self.compute_api.build_and_run_instance(self.ctxt, instance,
                                                'host1', NODE)
        self.assertTrue(finished.wait(30))
        release.set()
        compute.manager.wait_for_builds(timeout=30)
        self.assertEqual([('build_finish', None), 'compute_node_update'],
                         calls)
        self.assertEqual(2, self._node().vcpus_used)

    def _record(self, calls, name):
        real = getattr(conductor_manager.ConductorManager, name)

        def recorded(manager, context, *args, **kwargs):
            calls.append(name)
            return real(manager, context, *args, **kwargs)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.conductor.manager.ConductorManager.' + name,
            recorded))

    def test_build_log_lines_carry_the_request_id(self):
        """The build runs in the compute's pool, not the RPC handler's
        thread: its log lines still name the request that cast it."""
        seen = []

        class Handler(logging.Handler):
            def emit(self, record):
                # what oslo.log's formatter reads for %(request_id)s
                current = oslo_context.get_current()
                seen.append((record.getMessage(),
                             getattr(current, 'request_id', None)))
        handler = Handler()
        build_log = logging.getLogger('nova_lite.compute.build')
        build_log.addHandler(handler)
        self.addCleanup(build_log.removeHandler, handler)
        self.addCleanup(build_log.setLevel, build_log.level)
        build_log.setLevel(logging.INFO)
        compute = self.start_compute()
        self._build(compute, self._instance())
        other = nl_context.get_admin_context()
        self.assertNotEqual(other.request_id, self.ctxt.request_id)
        instance = self._instance()
        self.compute_api.build_and_run_instance(other, instance, 'host1',
                                                NODE)
        compute.manager.wait_for_builds(timeout=30)
        lines = [(m, r) for m, r in seen if 'active on' in m]
        self.assertEqual(2, len(lines), seen)
        self.assertEqual([self.ctxt.request_id, other.request_id],
                         [r for _m, r in lines])

    def test_claim_read_beside_the_first_write_with_the_event(self):
        """The BUILDING write starts the build's event in the same call,
        and the placement read of the claim runs beside it."""
        real_start = conductor_rpcapi.ConductorAPI.build_start
        claimed_done = threading.Event()
        compute = self.start_compute()
        real_claimed = compute.manager.builds.allocations.claimed

        def claimed(uuid, node):
            result = real_claimed(uuid, node)
            claimed_done.set()
            return result

        def start(conductor, context, uuid, values, *args):
            # the claim was read while this call was on its way
            self.assertTrue(claimed_done.wait(10))
            return real_start(conductor, context, uuid, values, *args)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.conductor.rpcapi.ConductorAPI.build_start', start))
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.compute.allocations.InstanceAllocations.claimed',
            lambda _self, uuid, node: claimed(uuid, node)))
        calls = []
        self._record(calls, 'action_event_start')
        self._record(calls, 'instance_update')
        instance = self._instance()
        objects.InstanceAction.action_start(self.ctxt, instance.uuid,
                                            'create')
        instance = self._build(compute, instance)
        self.assertEqual(vm_states.ACTIVE, instance.vm_state)
        self.assertEqual([], calls)
        self.assert_build_event_succeeded(instance)

    def test_build_that_does_not_start_finishes_its_event(self):
        """An instance that is no longer scheduled (put in ERROR
        meanwhile) is not built, and the build's event, started by the
        refused write's call all the same, is finished ``Success`` (as
        Nova's)."""
        compute = self.start_compute()
        instance = self._instance()
        objects.InstanceAction.action_start(self.ctxt, instance.uuid,
                                            'create')
        instance.vm_state = vm_states.ERROR
        instance.task_state = None
        instance.save()
        instance = self._build(compute, instance)
        self.assertEqual(vm_states.ERROR, instance.vm_state)
        self.assert_build_event_succeeded(instance)

    def test_left_over_build_goes_to_error_at_start(self):
        instance = self._instance(claim=False)
        instance.host = 'host1'
        instance.save()
        self.start_compute()
        instance = objects.Instance.get_by_uuid(self.ctxt, instance.uuid)
        self.assertEqual(vm_states.ERROR, instance.vm_state)
        fault = objects.InstanceFault.get_latest_for_instance(
            self.ctxt, instance.uuid)
        self.assertIn('restarted', fault.message)


class FaultValuesTestCase(testtools.TestCase):

    def test_values_from_exception(self):
        values = instance_fault.fault_values('u', ValueError('boom'), 'h')
        self.assertEqual((500, 'boom', 'h'),
                         (values['code'], values['message'], values['host']))


class RescheduleTestCase(BuildTestBase):
    """With the cell conductor's build_instances: the next alternate."""

    def _wire_conductor_placement(self):
        # NOTE(nova_lite): the conductor's own client would reach for a
        # real placement; give it the in-process one.
        for endpoint in self.conductor.manager.additional_endpoints:
            if hasattr(endpoint, '_placement'):
                endpoint._placement = self.client

    def _selection(self, node):
        resources = {'VCPU': 2, 'MEMORY_MB': 1024, 'DISK_GB': 10}
        return objects.Selection.from_allocation_request(
            'host1', node, fake_layout.node_uuid(node), self.cell.uuid,
            {'allocations': {fake_layout.node_uuid(node): {
                'resources': resources}}}, '1.39')

    def test_failed_build_reschedules_to_the_alternate(self):
        self.flags(fail_spawn_nodes=[NODE], group='fake_driver')
        compute = self.start_compute()
        self._wire_conductor_placement()
        instance = self._build(compute, self._instance(),
                               host_list=[self._selection('host1-node-2')])
        self.assertEqual((vm_states.ACTIVE, 'host1-node-2'),
                         (instance.vm_state, instance.node))
        allocations = self.client.get_allocations(
            instance.uuid)['allocations']
        self.assertEqual([fake_layout.node_uuid('host1-node-2')],
                         list(allocations))
        self.assertEqual(1, self._node().failed_builds)
        self.assertEqual(0, self._node('host1-node-2').failed_builds)


class StaleBuildTestCase(BuildTestBase):

    def test_build_timeout_puts_old_builds_in_error(self):
        compute = self.start_compute()
        old = self._instance(claim=False)
        records = compute.manager.records
        conductor = compute.manager.conductor_api
        self.conf.flags(instance_build_timeout=60, group='compute')
        records.update(self.ctxt, old.uuid, {'host': 'host1'})
        self.assertEqual(0, stale_builds.fail_timed_out_builds(
            records, conductor, self.ctxt, 'host1', 60))
        later = timeutils.utcnow() + datetime.timedelta(seconds=120)
        self.assertEqual(1, stale_builds.fail_timed_out_builds(
            records, conductor, self.ctxt, 'host1', 60, now=later))
        instance = objects.Instance.get_by_uuid(self.ctxt, old.uuid)
        self.assertEqual(vm_states.ERROR, instance.vm_state)
        fault = objects.InstanceFault.get_latest_for_instance(
            self.ctxt, old.uuid)
        self.assertIn('timed out after 60 seconds', fault.message)

    def test_bad_fake_driver_config_stops_the_start(self):
        self.flags(abort_spawn_nodes=['nowhere'], group='fake_driver')
        error = self.assertRaises(exception.ConfigInvalid,
                                  self.start_compute)
        self.assertIn('[fake_driver] abort_spawn_nodes', str(error))
        self.assertNotIn('\n', str(error))
