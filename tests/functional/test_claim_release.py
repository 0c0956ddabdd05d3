"""Claims are always given back.

* a failed ``DELETE /allocations/{consumer}`` is retried until it works;
* deleting a server whose build request never reached a cell gives back
  the claim the scheduler made for it (the super conductor died between
  scheduling and creating the instance).
"""

import fixtures
import testtools

from nova_lite.clients import claim_release
from nova_lite.clients import placement as placement_client
from nova_lite.conductor import compute_task
from nova_lite.scheduler import rpcapi as scheduler_rpcapi
from nova_lite.testing import integrated


class ClaimReleaseTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(integrated.IntegratedFixture())
        self.cloud.start_compute('host1')
        self.addCleanup(claim_release._PENDING.clear)

    def _fail_deletes(self, times):
        client_cls = type(self.cloud.placement.client)
        real = client_cls.delete_allocations
        state = {'left': times}

        def delete_allocations(client, consumer_uuid):
            if state['left'] > 0:
                state['left'] -= 1
                raise placement_client.PlacementUnreachable(
                    'placement restarting (test)')
            return real(client, consumer_uuid)
        self.useFixture(fixtures.MockPatchObject(
            client_cls, 'delete_allocations', delete_allocations))

    def test_failed_allocation_delete_is_retried(self):
        server = self.cloud.create_server()
        self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self._fail_deletes(1)
        self.cloud.api.delete('/servers/%s' % server['id'])
        self.cloud.wait_until_deleted(server['id'])
        self.assertIn(server['id'], claim_release.pending())
        self.assertNotEqual({}, self.cloud.allocations(server['id']))
        self.assertEqual(0, claim_release.retry_pending())
        self.assertEqual({}, self.cloud.allocations(server['id']))

    def test_delete_of_unbuilt_request_frees_the_claim(self):
        def scheduled_then_died(endpoint, context, build_requests,
                                request_specs, **kwargs):
            # The scheduler claims; the super conductor dies right after.
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
        response = self.cloud.api.delete('/servers/%s' % server['id'])
        self.assertEqual(204, response.status)
        self.assertEqual({}, self.cloud.allocations(server['id']))
