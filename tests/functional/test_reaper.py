"""The super conductor's reaper.

Builds whose message was lost (the cast to the super conductor, or the
one to the compute) have no compute to time them out; past ``[compute]
instance_build_timeout`` the reaper ends them in ERROR with a fault and
deletes their claim.
"""

import datetime

import fixtures
import oslo_messaging as messaging
from oslo_utils import timeutils
import testtools

from nova_lite import cells
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import compute_task
from nova_lite.conductor import reaper
from nova_lite.conductor.tasks import build as build_task
from nova_lite import context as nl_context
from nova_lite import objects
from nova_lite.scheduler import rpcapi as scheduler_rpcapi
from nova_lite.testing import integrated

TIMEOUT = 60


class ReaperTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(integrated.IntegratedFixture())
        self.cloud.start_compute('host1')
        self.ctxt = nl_context.get_admin_context()

    def _reap(self, after=TIMEOUT * 2):
        later = timeutils.utcnow() + datetime.timedelta(seconds=after)
        return self.cloud.super_conductor.manager.reap_stuck_builds(
            self.ctxt, TIMEOUT, now=later)

    def _assert_reaped(self, server_id):
        server = self.cloud.wait_for_server(server_id, 'ERROR', timeout=5)
        self.assertIn('giving up', server['fault']['message'])
        self.assertEqual({}, self.cloud.allocations(server_id))
        # and the user can delete it
        self.assertEqual(
            204, self.cloud.api.delete('/servers/%s' % server_id).status)
        self.cloud.wait_until_deleted(server_id)

    def test_build_request_whose_cast_was_lost(self):
        self.useFixture(fixtures.MockPatchObject(
            compute_task.ComputeTaskManager, 'schedule_and_build_instances',
            lambda *args, **kwargs: None))
        server = self.cloud.create_server()
        self.assertEqual(0, self._reap(after=TIMEOUT // 2))
        self.assertEqual('BUILD', self.cloud.get_server(server['id'])[
            'status'])
        self.assertEqual(1, self._reap())
        self._assert_reaped(server['id'])

    def test_build_request_scheduled_then_conductor_died(self):
        def scheduled_then_died(endpoint, context, build_requests,
                                request_specs, **kwargs):
            scheduler_rpcapi.SchedulerAPI(
                transport=endpoint.manager.transport).select_destinations(
                context, request_specs[0],
                [br.instance_uuid for br in build_requests],
                return_alternates=True)
        self.useFixture(fixtures.MockPatchObject(
            compute_task.ComputeTaskManager, 'schedule_and_build_instances',
            scheduled_then_died))
        server = self.cloud.create_server()
        self.assertNotEqual({}, self.cloud.allocations(server['id']))
        self.assertEqual(1, self._reap())
        self._assert_reaped(server['id'])

    def test_instance_without_host_whose_cast_was_lost(self):
        self.useFixture(fixtures.MockPatchObject(
            compute_rpcapi.ComputeAPI, 'build_and_run_instance',
            lambda *args, **kwargs: None))
        server = self.cloud.create_server()
        self.assertNotEqual({}, self.cloud.allocations(server['id']))
        self.assertEqual(0, self._reap(after=TIMEOUT // 2))
        self.assertEqual(1, self._reap())
        self._assert_reaped(server['id'])

    def test_build_a_compute_took_is_left_to_the_compute(self):
        # The late cast reached the compute between the reaper's read and
        # its save: the compute made it spawning (host not yet listed).
        self.useFixture(fixtures.MockPatchObject(
            compute_rpcapi.ComputeAPI, 'build_and_run_instance',
            lambda *args, **kwargs: None))
        server = self.cloud.create_server()
        real_save = objects.Instance.save

        def taken_meanwhile(instance, **kwargs):
            with cells.target_cell(
                    self.ctxt, self.cloud.dbs.cells['cell1']) as cctxt:
                taken = objects.Instance.get_by_uuid(cctxt, instance.uuid)
                taken.task_state = 'spawning'
                real_save(taken)
            return real_save(instance, **kwargs)
        self.useFixture(fixtures.MockPatchObject(
            objects.Instance, 'save', taken_meanwhile))
        self.assertEqual(0, self._reap())
        self.assertEqual('BUILD', self.cloud.get_server(server['id'])[
            'status'])
        self.assertNotEqual({}, self.cloud.allocations(server['id']))

    def test_active_servers_are_left_alone(self):
        server = self.cloud.create_server()
        self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual(0, self._reap(after=TIMEOUT * 100))
        self.assertEqual('ACTIVE',
                         self.cloud.get_server(server['id'])['status'])


class LateSchedulerAnswerTestCase(testtools.TestCase):
    """The scheduler claimed, but its answer never reached the conductor
    (the call timed out: a broker outage lost or delayed the reply)."""

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(integrated.IntegratedFixture())
        self.cloud.start_compute('host1')
        self.ctxt = nl_context.get_admin_context()
        real = scheduler_rpcapi.SchedulerAPI.select_destinations

        def claimed_then_timed_out(api, *args, **kwargs):
            real(api, *args, **kwargs)
            raise messaging.MessagingTimeout('Timed out waiting for a reply')
        self.useFixture(fixtures.MockPatchObject(
            scheduler_rpcapi.SchedulerAPI, 'select_destinations',
            claimed_then_timed_out))

    def test_claim_dropped_when_buried(self):
        server = self.cloud.create_server()
        server = self.cloud.wait_for_server(server['id'], 'ERROR')
        self.assertIn('Timed out', server['fault']['message'])
        self.assertEqual({}, self.cloud.allocations(server['id']))

    def test_claim_made_after_the_burial_is_reaped(self):
        # The scheduler claims only after the conductor dropped the claims.
        self.useFixture(fixtures.MockPatchObject(
            build_task.ScheduleAndBuildTask, '_drop_claims',
            lambda *args, **kwargs: None))
        server = self.cloud.create_server()
        self.cloud.wait_for_server(server['id'], 'ERROR')
        self.assertNotEqual({}, self.cloud.allocations(server['id']))
        later = timeutils.utcnow() + datetime.timedelta(seconds=5)
        self.assertEqual(1, self.cloud.super_conductor.manager
                         .reap_stuck_builds(self.ctxt, TIMEOUT, now=later))
        self.assertEqual({}, self.cloud.allocations(server['id']))
        # once only
        self.assertEqual(0, self.cloud.super_conductor.manager
                         .reap_stuck_builds(self.ctxt, TIMEOUT, now=later))

    def test_late_claim_is_swept_soon_by_its_own_periodic(self):
        # Not at the build reaper's pace (every min(build timeout, 60 s),
        # and not at all with the build timeout disabled), which let a
        # claim made just after a sweep outlive the fault suite's check.
        self.useFixture(fixtures.MockPatchObject(
            build_task.ScheduleAndBuildTask, '_drop_claims',
            lambda *args, **kwargs: None))
        manager = self.cloud.super_conductor.manager
        server = self.cloud.create_server()
        self.cloud.wait_for_server(server['id'], 'ERROR')
        self.assertNotEqual({}, self.cloud.allocations(server['id']))
        # the sweep looks at the recently buried only
        later = timeutils.utcnow() + datetime.timedelta(
            seconds=reaper.CELL0_CLAIM_RECENT + 5)
        self.assertEqual(0, reaper.reap_recent_cell0_claims(
            self.ctxt, manager.compute_task.placement, now=later))
        self.assertNotEqual({}, self.cloud.allocations(server['id']))
        manager._periodic_reap_cell0_claims(self.ctxt)
        self.assertEqual({}, self.cloud.allocations(server['id']))
        self.assertLessEqual(reaper.CELL0_CLAIM_CHECK, 10)
