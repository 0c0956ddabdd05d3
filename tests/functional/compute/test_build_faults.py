"""Builds under conductor, database and restart faults.

The fault is injected at the cell conductor (its instance writes raise
the database's connection error, which reaches the compute as a
``RemoteError``) or by restarting the compute; every build must end
ACTIVE, or ERROR with a fault and nothing held (no guest, no allocation).
"""

import datetime
import time

import fixtures
from oslo_db import exception as db_exc

from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite.conductor import manager as conductor_manager
from nova_lite import conf as nl_conf
from nova_lite import objects
from tests.functional.compute import test_build

CONF = nl_conf.CONF


class ConductorOutage:
    """Makes the conductor's instance writes (``instance_update``,
    ``build_start``, a build's BUILDING, and ``build_finish``, its ACTIVE)
    fail like a database that is away, while ``failing(values)`` says
    so."""

    def __init__(self, test, failing):
        self.calls = 0
        self.failing = failing
        for name in ('instance_update', 'build_start', 'build_finish'):
            self._patch(test, name)

    def _patch(self, test, name):
        real = getattr(conductor_manager.ConductorManager, name)

        def write(manager, context, instance_uuid, values, *args, **kwargs):
            if self.failing(values):
                self.calls += 1
                raise db_exc.DBConnectionError('database restarting (test)')
            return real(manager, context, instance_uuid, values, *args,
                        **kwargs)

        test.useFixture(fixtures.MonkeyPatch(
            'nova_lite.conductor.manager.ConductorManager.' + name, write))


class FaultTestBase(test_build.BuildTestBase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.compute.conductor_retry.FIRST_INTERVAL', 0.01))

    def _assert_nothing_held(self, compute, instance):
        self.assertEqual({}, self.client.get_allocations(
            instance.uuid)['allocations'])
        self.assertNotIn(instance.uuid,
                         compute.manager.driver.list_instance_uuids())


class BuildFaultTestCase(FaultTestBase):

    def test_conductor_db_outage_is_retried_to_active(self):
        self.flags(conductor_retry_timeout=30, group='compute')
        outage = ConductorOutage(self, lambda values: outage.calls < 3)
        compute = self.start_compute()
        instance = self._build(compute, self._instance())
        self.assertEqual(3, outage.calls)
        self.assertEqual(vm_states.ACTIVE, instance.vm_state)

    def test_conductor_away_past_the_retries_frees_the_build(self):
        self.flags(conductor_retry_timeout=1, group='compute')
        outage = ConductorOutage(
            self, lambda values: values.get('vm_state') == vm_states.ACTIVE)
        compute = self.start_compute()
        instance = self._build(compute, self._instance())
        self.assertGreater(outage.calls, 1)
        self.assertEqual((vm_states.ERROR, None, None),
                         (instance.vm_state, instance.task_state,
                          instance.host))
        fault = objects.InstanceFault.get_latest_for_instance(
            self.ctxt, instance.uuid)
        self.assertIn('could not be completed', fault.message)
        self._assert_nothing_held(compute, instance)

    def test_conductor_never_back_leaves_no_claim(self):
        """Even the ERROR cannot be written: no guest and no claim stay
        (the build timeout ends the row later)."""
        self.flags(conductor_retry_timeout=0, group='compute')
        ConductorOutage(self, lambda values: True)
        compute = self.start_compute()
        instance = self._build(compute, self._instance())
        self.assertEqual(vm_states.BUILDING, instance.vm_state)
        self._assert_nothing_held(compute, instance)

    def test_left_over_build_frees_its_claim(self):
        compute = self.start_compute()
        compute.stop()
        instance = self._instance()
        instance.host = 'host1'
        instance.node = test_build.NODE
        instance.save()
        compute = self.start_compute()
        instance = objects.Instance.get_by_uuid(self.ctxt, instance.uuid)
        self.assertEqual(vm_states.ERROR, instance.vm_state)
        self._assert_nothing_held(compute, instance)
        # released: on no host (its usage would not match placement's)
        self.assertEqual((None, None), (instance.host, instance.node))

    def test_build_cast_after_error_is_dropped(self):
        """A build whose instance was put in ERROR meanwhile (left over at
        a restart, timed out) is not built after all."""
        compute = self.start_compute()
        instance = self._instance()
        instance.vm_state = vm_states.ERROR
        instance.task_state = None
        instance.save()
        instance = self._build(compute, instance)
        self.assertEqual(vm_states.ERROR, instance.vm_state)
        self._assert_nothing_held(compute, instance)

    def test_build_cast_delivered_twice_keeps_the_claim(self):
        """A broker that crashed before it saw the ack delivers the build
        again: the ACTIVE instance keeps its guest and its claim."""
        compute = self.start_compute()
        instance = self._build(compute, self._instance())
        self.assertEqual(vm_states.ACTIVE, instance.vm_state)
        again = self._build(compute, instance)
        self.assertEqual(vm_states.ACTIVE, again.vm_state)
        self.assertNotEqual({}, self.client.get_allocations(
            instance.uuid)['allocations'])
        self.assertIn(instance.uuid,
                      compute.manager.driver.list_instance_uuids())

    def test_build_timeout_is_on_by_default_and_frees_claims(self):
        self.assertGreater(CONF.compute.instance_build_timeout, 0)
        compute = self.start_compute()
        instance = self._instance()
        compute.manager.records.update(self.ctxt, instance.uuid,
                                       {'host': 'host1'})
        self.flags(instance_build_timeout=1, group='compute')
        compute.manager._last_run.pop('build_timeouts', None)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.compute.stale_builds.timeutils.utcnow',
            lambda: instance.created_at.replace(tzinfo=None) +
            datetime.timedelta(seconds=5)))
        compute.manager._periodic_check_build_timeouts(self.ctxt)
        instance = objects.Instance.get_by_uuid(self.ctxt, instance.uuid)
        self.assertEqual(vm_states.ERROR, instance.vm_state)
        self._assert_nothing_held(compute, instance)
        self.assertEqual((None, None), (instance.host, instance.node))


class TimedOutWhileSpawningTestCase(FaultTestBase):
    """The build timeout puts a build in ERROR while the driver still
    spawns (a loaded host): the guest that appears afterwards goes too."""

    def test_guest_spawned_after_the_timeout_is_destroyed(self):
        self.flags(spawn_delay=1.0, group='fake_driver')
        compute = self.start_compute()
        instance = self._instance()
        self.compute_api.build_and_run_instance(
            self.ctxt, instance, 'host1', test_build.NODE)
        for _ in range(100):
            current = objects.Instance.get_by_uuid(self.ctxt, instance.uuid)
            if current.task_state == task_states.SPAWNING:
                break
            time.sleep(0.05)
        self.assertEqual(task_states.SPAWNING, current.task_state)
        # What the periodic timeout check does (stale_builds._fail).
        self.assertTrue(compute.manager.records.set_error(
            self.ctxt, instance.uuid, 'Build timed out (test)',
            clear_host=True, expected_vm_state=vm_states.BUILDING))
        compute.manager.builds.release(self.ctxt, current)
        compute.manager.wait_for_builds(timeout=30)
        instance = objects.Instance.get_by_uuid(self.ctxt, instance.uuid)
        self.assertEqual(vm_states.ERROR, instance.vm_state)
        self._assert_nothing_held(compute, instance)


class LeftOverDeleteTestCase(FaultTestBase):
    """A compute killed while it deleted (or whose terminate cast was
    lost: casts are acknowledged on receipt) finishes the delete at its
    next start, before it consumes, as Nova's init_host does."""

    def _deleting(self):
        compute = self.start_compute()
        instance = self._build(compute, self._instance())
        self.assertEqual(vm_states.ACTIVE, instance.vm_state)
        instance.task_state = task_states.DELETING
        instance.save()
        compute.stop()
        return instance

    def test_restart_completes_the_delete(self):
        instance = self._deleting()
        compute = self.start_compute()
        self.assertEqual([], objects.InstanceList.get_by_filters(
            self.ctxt, {'uuid': instance.uuid}).objects)
        self._assert_nothing_held(compute, instance)

    def test_terminate_delivered_after_it_is_a_no_op(self):
        instance = self._deleting()
        compute = self.start_compute()
        compute.manager.terminate_instance(self.ctxt, instance)
        self.assertEqual([], objects.InstanceList.get_by_filters(
            self.ctxt, {'uuid': instance.uuid}).objects)
        self._assert_nothing_held(compute, instance)


class StartOrderTestCase(test_build.BuildTestBase):

    def test_recovery_runs_before_consuming(self):
        seen = []
        service = test_build.testing.make_service('compute', host='host1',
                                                  cell=self.cell)
        service.manager.placement_client = self.client
        manager = service.manager
        original = manager.pre_start_hook

        def hook():
            seen.append(service.rpcserver)
            original()
        manager.pre_start_hook = hook
        service.start()
        self.addCleanup(service.stop)
        self.assertEqual([None], seen)


class GracefulStopTestCase(test_build.BuildTestBase):

    def test_stop_finishes_the_builds_it_accepted(self):
        """SIGTERM: the service stops consuming, then every build it had
        taken finishes before it exits."""
        self.flags(spawn_delay=0.3, group='fake_driver')
        compute = self.start_compute()
        instances = [self._instance() for _ in range(3)]
        for instance in instances:
            self.compute_api.build_and_run_instance(
                self.ctxt, instance, 'host1', test_build.NODE)
        self.assertGreater(compute.manager.builds_in_flight, 0)
        compute.stop()
        for instance in instances:
            instance = objects.Instance.get_by_uuid(self.ctxt, instance.uuid)
            self.assertEqual(vm_states.ACTIVE, instance.vm_state)
