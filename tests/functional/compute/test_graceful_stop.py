"""A compute's graceful stop and what its next start recovers.

A stopping compute hands the builds it queued but could not start in time
back to its own queue; a starting compute fails the builds a previous
process took from the bus and lost (claimed on its nodes, building, on no
host, their cast not delivered again), and leaves alone those whose cast
it receives.
"""

import threading
import time

import fixtures

from nova_lite.compute import interrupted_builds
from nova_lite.compute import vm_states
from nova_lite import objects
from tests.functional.compute import test_build

WAIT_LIMIT = 30


def _wait_for(predicate):
    """Poll ``predicate`` at short intervals; its last value."""
    deadline = time.monotonic() + WAIT_LIMIT
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.02)
    return predicate()


class InterruptedBuildTestCase(test_build.BuildTestBase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.compute.interrupted_builds.RECENT', 0))

    def _get(self, instance):
        return objects.Instance.get_by_uuid(self.ctxt, instance.uuid)

    def test_build_taken_and_lost_is_failed_at_the_next_start(self):
        compute = self.start_compute()
        compute.stop()
        # Claimed on this host's node, building, on no host: its cast was
        # taken by the stopped process and never handled.
        lost = self._instance()
        compute = self.start_compute()
        self.assertTrue(_wait_for(
            lambda: not compute.manager.interrupted.suspects))
        self.assertEqual(vm_states.ERROR, self._get(lost).vm_state)
        fault = objects.InstanceFault.get_latest_for_instance(
            self.ctxt, lost.uuid)
        self.assertIn('before the build started', fault.message)
        self.assertEqual({}, self.client.get_allocations(
            lost.uuid)['allocations'])

    def test_build_whose_cast_arrives_after_the_start_is_built(self):
        compute = self.start_compute()
        compute.stop()
        queued = self._instance()
        # The cast still queued for the host is delivered once the new
        # process consumes, before its ping comes back.
        started = threading.Event()
        release = threading.Event()
        original = interrupted_builds.InterruptedBuilds.check

        def check(checker, context, now=None):
            started.set()
            release.wait(WAIT_LIMIT)
            return original(checker, context, now)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.compute.interrupted_builds.InterruptedBuilds.check',
            check))
        compute = self.start_compute()
        self.assertTrue(started.wait(WAIT_LIMIT))
        self.compute_api.build_and_run_instance(
            self.ctxt, queued, 'host1', test_build.NODE)
        release.set()
        compute.manager.wait_for_builds(timeout=WAIT_LIMIT)
        self.assertTrue(_wait_for(
            lambda: not compute.manager.interrupted.suspects))
        self.assertEqual(vm_states.ACTIVE, self._get(queued).vm_state)

    def test_instance_of_another_host_is_not_a_suspect(self):
        compute = self.start_compute()
        compute.stop()
        elsewhere = self._instance(claim=False)
        compute = self.start_compute()
        self.assertEqual(set(), compute.manager.interrupted.suspects)
        self.assertEqual(vm_states.BUILDING, self._get(elsewhere).vm_state)


class DrainTestCase(test_build.BuildTestBase):

    def test_builds_not_started_in_time_are_handed_back(self):
        self.flags(max_concurrent_builds=1, group='compute')
        compute = self.start_compute()
        builds = compute.manager.builds
        running = threading.Event()
        release = threading.Event()
        original = compute.manager.driver.spawn

        def spawn(*args, **kwargs):
            running.set()
            release.wait(WAIT_LIMIT)
            return original(*args, **kwargs)
        compute.manager.driver.spawn = spawn
        first, second, third = (self._instance() for _ in range(3))
        for instance in (first, second, third):
            self.compute_api.build_and_run_instance(
                self.ctxt, instance, 'host1', test_build.NODE)
        self.assertTrue(running.wait(WAIT_LIMIT))
        handed = []
        self.assertFalse(builds.drain(
            0, lambda context, instance, *rest: handed.append(
                instance.uuid)))
        self.assertEqual([second.uuid, third.uuid], handed)
        release.set()
        self.assertTrue(builds.wait(WAIT_LIMIT))
        self.assertEqual(vm_states.ACTIVE, self._get(first).vm_state)
        # Handed back, not failed: still waiting for their build.
        self.assertEqual(vm_states.BUILDING, self._get(second).vm_state)

    def _get(self, instance):
        return objects.Instance.get_by_uuid(self.ctxt, instance.uuid)

    def test_service_stop_hands_back_to_its_own_queue(self):
        """Past the graceful shutdown timeout, a stop casts the queued
        builds to its host again; the next process builds them."""
        self.flags(graceful_shutdown_timeout=1)
        self.flags(max_concurrent_builds=1, group='compute')
        compute = self.start_compute()
        release = threading.Event()
        original = compute.manager.driver.spawn

        def spawn(*args, **kwargs):
            release.wait(WAIT_LIMIT)
            return original(*args, **kwargs)
        compute.manager.driver.spawn = spawn
        handed = []
        compute.manager._hand_back_build = (
            lambda context, instance, *rest: handed.append(instance.uuid))
        instances = [self._instance() for _ in range(2)]
        for instance in instances:
            self.compute_api.build_and_run_instance(
                self.ctxt, instance, 'host1', test_build.NODE)
        stopping = threading.Thread(target=compute.stop)
        stopping.start()
        self.assertTrue(_wait_for(lambda: handed))
        release.set()
        stopping.join(WAIT_LIMIT)
        self.assertFalse(stopping.is_alive())
        self.assertEqual([instances[1].uuid], handed)
        self.assertTrue(_wait_for(
            lambda: self._get(instances[0]).vm_state == vm_states.ACTIVE))
