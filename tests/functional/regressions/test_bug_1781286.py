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


class RescheduleMigrateAvailabilityZoneUpCall(test_servers.ServersTestBase):
    """9: the same for a cold migrate whose first destination fails: the
    cell conductor claims the alternate without the API database, and
    the server keeps the zone its Selection carries."""

    COMPUTES = ('host1', 'host2', 'host3')

    def test_migrate_reschedule_blocked_az_up_call(self):
        response = self.admin_api.post('/os-aggregates', {'aggregate': {
            'name': 'central', 'availability_zone': 'us-central'}})
        self.assertEqual(200, response.status, response)
        aggregate_id = response.body['aggregate']['id']
        for host in self.COMPUTES:
            response = self.admin_api.post(
                '/os-aggregates/%s/action' % aggregate_id,
                {'add_host': {'host': host}})
            self.assertEqual(200, response.status, response)
        server = self.boot('ACTIVE')
        source = server['OS-EXT-SRV-ATTR:host']
        failed = self._fail_first_prep_resize()
        reschedules = self._poison_api_db_in_migrate_reschedules()
        response = self.admin_api.post('/servers/%s/action' % server['id'],
                                       {'migrate': None})
        self.assertEqual(202, response.status, response)
        server = self.cloud.wait_for_server(server['id'], 'VERIFY_RESIZE')
        self.assertEqual(1, len(failed))
        self.assertEqual(1, len(reschedules))
        self.assertNotIn(server['OS-EXT-SRV-ATTR:host'],
                         (source, failed[0]))
        self.assertEqual('us-central',
                         server['OS-EXT-AZ:availability_zone'])

    def _fail_first_prep_resize(self):
        from nova_lite.compute import resize
        real = resize.Resizes.check_destination
        failed = []

        def prep(manager, context, instance, flavor, migration, node):
            if not failed:
                failed.append(manager.host)
                raise resize.ResizeFailed(uuid=instance.uuid,
                                          host=manager.host,
                                          reason='simulated failure')
            return real(manager, context, instance, flavor, migration,
                        node)

        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.compute.resize.Resizes.check_destination', prep))
        return failed

    def _poison_api_db_in_migrate_reschedules(self):
        """Any API database access inside a cell conductor's reschedule
        of a migration fails the test; returns the reschedules seen."""
        from nova_lite.conductor.tasks import migrate
        from nova_lite.db import session
        inside = threading.local()
        seen = []
        real_execute = migrate.MigrationTask.execute
        real_get = session.get_api_context_manager

        def execute(task):
            if not task.rescheduling:
                return real_execute(task)
            seen.append(task.instance.uuid)
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
            'nova_lite.conductor.tasks.migrate.MigrationTask.execute',
            execute))
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.db.session.get_api_context_manager',
            get_api_context_manager))
        return seen
