"""Bug 1781286: a reschedule must not call up to the API database.

The cell conductor used to look up the alternate host's availability zone
in the API database's aggregates. The zone travels in the Selection now;
the reschedule must succeed with the API database out of reach of the
cell conductor, and the server must get the alternate's zone
(NOVA_FACTS §8.3 scenario 8).
"""

import threading

import fixtures

from tests.functional import test_servers


class RescheduleBuildAvailabilityZoneUpCall(test_servers.ServersTestBase):

    def test_server_create_reschedule_blocked_az_up_call(self):
        """8: the cell conductor never reads the API DB; the zone of the
        alternate comes from its Selection."""
        response = self.admin_api.post('/os-aggregates', {'aggregate': {
            'name': 'central', 'availability_zone': 'us-central'}})
        self.assertEqual(200, response.status, response)
        aggregate_id = response.body['aggregate']['id']
        for host in ('host1', 'host2'):
            response = self.admin_api.post(
                '/os-aggregates/%s/action' % aggregate_id,
                {'add_host': {'host': host}})
            self.assertEqual(200, response.status, response)
        self.fail_first_spawn()
        self._poison_api_db_in_reschedules()
        server = self.boot('ACTIVE')
        self.assertEqual('us-central',
                         server['OS-EXT-AZ:availability_zone'])

    def _poison_api_db_in_reschedules(self):
        from nova_lite.conductor.tasks import reschedule
        from nova_lite.db import session
        inside = threading.local()
        real_execute = reschedule.RescheduleTask.execute
        real_get = session.get_api_context_manager

        def execute(task):
            inside.active = True
            try:
                return real_execute(task)
            finally:
                inside.active = False

        def get_api_context_manager(*args, **kwargs):
            if getattr(inside, 'active', False):
                raise AssertionError('the cell conductor read the API DB')
            return real_get(*args, **kwargs)

        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.conductor.tasks.reschedule.RescheduleTask.execute',
            execute))
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.db.session.get_api_context_manager',
            get_api_context_manager))
