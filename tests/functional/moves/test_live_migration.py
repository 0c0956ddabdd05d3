"""Live migration (NOVA_FACTS 5.4): the migration holds the source, the
instance the destination, from the scheduler's claim until the source
compute finishes; refused destinations are replaced by the next host the
scheduler finds; every failure gives the source allocation back.

Mid-flight allocations are read from the destination's
``pre_live_migration`` (an optional driver hook, patched here), which runs
after the conductor moved the allocations and before the guest moves.
"""

import fixtures
import oslo_messaging as messaging

from nova_lite import exception
from tests.functional.moves import base

LIVE_VERSION = '2.30'
DRIVER = 'nova_lite.virt.fake.FakeDriver.'


def live_body(host=None, block_migration='auto'):
    return {'os-migrateLive': {'host': host,
                               'block_migration': block_migration}}


class LiveMigrationTestBase(base.MovesTestBase):

    def live_migrate(self, server_id, host=None, status=202,
                     block_migration='auto'):
        """POST os-migrateLive as the OpenStack client does (2.30)."""
        response = self.admin_api.post(
            '/servers/%s/action' % server_id,
            live_body(host, block_migration), version=LIVE_VERSION)
        self.assertEqual(status, response.status, response)
        self.cloud.wait_for_builds()
        return response

    def boot_on(self, host):
        server = self.boot('ACTIVE', api=self.admin_api, host=host)
        self.assertEqual(host, server['OS-EXT-SRV-ATTR:host'])
        return server

    def patch_driver(self, name, function):
        self.useFixture(fixtures.MonkeyPatch(DRIVER + name, function))

    def record_during_transfer(self, server_id):
        """What placement and the API show when the destination prepares:
        a list filled with one snapshot per attempt."""
        seen = []

        def pre_live_migration(driver, context, instance, migrate_data):
            migration = self.migrations(server_id)[0]
            listed = self.admin_api.get(
                '/servers/%s/migrations' % server_id, version='2.80')
            seen.append({
                'instance': self.allocation_by_node(server_id),
                'migration': self.allocation_by_node(migration.uuid),
                'status': migration.status,
                'listed': [m['uuid'] for m in listed.body['migrations']],
                'migration_uuid': migration.uuid})

        self.patch_driver('pre_live_migration', pre_live_migration)
        return seen

    def refuse_destinations(self, refuse):
        """The destination check refuses when ``refuse(host)``; returns
        the hosts asked, in order."""
        asked = []

        def check(driver, context, instance, dest_node, block_migration):
            asked.append(driver.host)
            if refuse(driver.host):
                raise exception.Invalid(reason='%s refuses' % driver.host)

        self.patch_driver('check_can_live_migrate_destination', check)
        return asked

    def assert_only_on(self, server_id, node):
        """The instance consumer holds the flavor on ``node`` only, every
        other node is empty, and no migration consumer holds anything."""
        self.assertEqual({node: base.FLAVOR_1},
                         self.allocation_by_node(server_id))
        for host in self.COMPUTES:
            other = self.node_of(host)
            self.assert_usage(other, base.FLAVOR_1 if other == node
                              else base.ZERO)
        for migration in self.migrations(server_id):
            self.assertEqual({}, self.allocation_by_node(migration.uuid))


class LiveMigrationTestCase(LiveMigrationTestBase):

    def test_scheduler_picks_the_destination(self):
        """Source held by the migration while the destination prepares;
        afterwards only the destination holds the instance."""
        server = self.boot_on('host1')
        source, dest = self.node_of('host1'), self.node_of('host2')
        seen = self.record_during_transfer(server['id'])
        self.live_migrate(server['id'])
        server = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual(dest, server['OS-EXT-SRV-ATTR:hypervisor_hostname'])
        self.assertEqual(1, len(seen))
        self.assertEqual({dest: base.FLAVOR_1}, seen[0]['instance'])
        self.assertEqual({source: base.FLAVOR_1}, seen[0]['migration'])
        self.assertEqual('preparing', seen[0]['status'])
        self.assertEqual([seen[0]['migration_uuid']], seen[0]['listed'])
        self.assert_only_on(server['id'], dest)
        migration = self.migrations(server['id'])[0]
        self.assertEqual(('live-migration', 'completed', 'host1', 'host2'),
                         (migration.migration_type, migration.status,
                          migration.source_compute, migration.dest_compute))
        listed = self.admin_api.get('/servers/%s/migrations' % server['id'])
        self.assertEqual([], listed.body['migrations'])
        actions = self.admin_api.get(
            '/servers/%s/os-instance-actions' % server['id']).body
        self.assertEqual('live-migration',
                         actions['instanceActions'][0]['action'])

    def test_paused_server_stays_paused(self):
        server = self.boot_on('host1')
        self.post_action(server['id'], {'pause': None})
        self.cloud.wait_for_server(server['id'], 'PAUSED')
        self.live_migrate(server['id'])
        server = self.cloud.wait_for_server(server['id'], 'PAUSED')
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])
        self.assert_only_on(server['id'], self.node_of('host2'))

    def test_driver_failure_rolls_back_to_the_source(self):
        """The transfer fails: migration 'failed', the instance ACTIVE on
        the source with its allocation back, the destination empty."""
        server = self.boot_on('host1')

        def live_migration(driver, context, instance, dest, migrate_data):
            raise RuntimeError('link down')

        self.patch_driver('live_migration', live_migration)
        self.live_migrate(server['id'])
        server = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual('host1', server['OS-EXT-SRV-ATTR:host'])
        self.assertIsNone(server['OS-EXT-STS:task_state'])
        self.assert_only_on(server['id'], self.node_of('host1'))
        self.assertEqual('failed', self.migrations(server['id'])[0].status)

    def test_states_and_roles(self):
        """Members may not; a stopped server or an unknown host may not."""
        server = self.boot('ACTIVE')
        response = self.api.post('/servers/%s/action' % server['id'],
                                 live_body(), version=LIVE_VERSION)
        self.assertEqual(403, response.status, response)
        self.live_migrate(server['id'], 'nowhere', status=400)
        response = self.admin_api.post(
            '/servers/%s/action' % server['id'],
            {'os-migrateLive': {'host': None}}, version=LIVE_VERSION)
        self.assertEqual(400, response.status, response)
        self.post_action(server['id'], {'os-stop': None})
        self.cloud.wait_for_server(server['id'], 'SHUTOFF')
        self.live_migrate(server['id'], status=409)
        self.assertEqual([], self.migrations(server['id']))

    def test_abort_of_a_finished_migration_is_a_conflict(self):
        server = self.boot_on('host1')
        self.live_migrate(server['id'])
        migration = self.migrations(server['id'])[0]
        path = '/servers/%s/migrations/%d' % (server['id'], migration.id)
        self.assertEqual(409, self.admin_api.delete(path).status)
        self.assertEqual(404, self.admin_api.get(path).status)
        response = self.admin_api.post(path + '/action',
                                       {'force_complete': None})
        self.assertEqual(409, response.status, response)


class LiveMigrationRetriesTestCase(LiveMigrationTestBase):

    COMPUTES = ('host1', 'host2', 'host3')

    def test_requested_host(self):
        server = self.boot_on('host1')
        self.live_migrate(server['id'], 'host3')
        server = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual('host3', server['OS-EXT-SRV-ATTR:host'])
        self.assert_only_on(server['id'], self.node_of('host3'))

    def test_refused_destination_next_host(self):
        """The first destination refuses: its claim is dropped and the
        scheduler, asked again without it, finds the other host."""
        server = self.boot_on('host1')
        refused = []

        def refuse(host):
            if not refused:
                refused.append(host)
            return host == refused[0]

        asked = self.refuse_destinations(refuse)
        self.live_migrate(server['id'])
        server = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual(2, len(asked))
        self.assertNotIn('host1', asked)
        self.assertEqual(asked[1], server['OS-EXT-SRV-ATTR:host'])
        self.assert_only_on(server['id'], self.node_of(asked[1]))
        self.assertEqual('completed', self.migrations(server['id'])[0].status)

    def test_every_destination_refuses(self):
        """No host left: the instance stays ACTIVE on the source with its
        allocation back, the migration is in error, the action failed."""
        server = self.boot_on('host1')
        asked = self.refuse_destinations(lambda host: True)
        self.live_migrate(server['id'])
        server = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual(['host2', 'host3'], sorted(asked))
        self.assertEqual('host1', server['OS-EXT-SRV-ATTR:host'])
        self.assertIsNone(server['OS-EXT-STS:task_state'])
        self.assert_only_on(server['id'], self.node_of('host1'))
        self.assertEqual('error', self.migrations(server['id'])[0].status)
        actions = self.admin_api.get(
            '/servers/%s/os-instance-actions' % server['id']).body
        self.assertEqual('Error', actions['instanceActions'][0]['message'])


class LiveMigrationNoRetryTestCase(LiveMigrationTestBase):
    """migrate_max_retries 0: one refusal ends the migration."""

    COMPUTES = ('host1', 'host2', 'host3')
    FLAGS = {'DEFAULT': {'migrate_max_retries': 0}}

    def test_first_refusal_is_final(self):
        server = self.boot_on('host1')
        asked = self.refuse_destinations(lambda host: True)
        self.live_migrate(server['id'])
        server = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual(1, len(asked))
        self.assertEqual('host1', server['OS-EXT-SRV-ATTR:host'])
        self.assert_only_on(server['id'], self.node_of('host1'))
        self.assertEqual('error', self.migrations(server['id'])[0].status)


class LiveMigrationForcedTestCase(LiveMigrationTestBase):
    """Before 2.68 an admin may force the host: no scheduler, so a
    disabled host (which the scheduler leaves out) still takes it."""

    COMPUTES = ('host1', 'host2', 'host3')

    def disable(self, host):
        services = self.admin_api.get(
            '/os-services?binary=nova-lite-compute&host=%s' % host)
        (service,) = services.body['services']
        response = self.admin_api.put('/os-services/%s' % service['id'],
                                      {'status': 'disabled'})
        self.assertEqual(200, response.status, response)

    def test_forced_host_skips_the_scheduler(self):
        server = self.boot_on('host1')
        self.disable('host3')
        # Not forced: the scheduler finds no room on the disabled host;
        # the server stays on its source with its allocation.
        self.live_migrate(server['id'], 'host3')
        server = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual('host1', server['OS-EXT-SRV-ATTR:host'])
        self.assert_only_on(server['id'], self.node_of('host1'))
        self.assertEqual('error', self.migrations(server['id'])[0].status)

        body = live_body('host3')
        body['os-migrateLive']['force'] = True
        response = self.admin_api.post('/servers/%s/action' % server['id'],
                                       body, version='2.68')
        self.assertEqual(400, response.status, response)
        response = self.admin_api.post('/servers/%s/action' % server['id'],
                                       body, version='2.67')
        self.assertEqual(202, response.status, response)
        self.cloud.wait_for_builds()
        server = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual('host3', server['OS-EXT-SRV-ATTR:host'])
        self.assert_only_on(server['id'], self.node_of('host3'))
        migration = self.migrations(server['id'])[0]
        self.assertEqual(('completed', 'host3'),
                         (migration.status, migration.dest_compute))

    def test_failed_cast_to_the_source_rolls_back(self):
        """The conductor cannot reach the source: the destination claim
        goes, the source allocation is the instance's again, the server
        ACTIVE on its host with no task, the migration in error."""
        server = self.boot_on('host1')

        def unreachable(api, context, instance, dest_host, migration,
                        migrate_data=None):
            raise messaging.MessageDeliveryFailure('source unreachable')

        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.compute.rpcapi.ComputeAPI.live_migration',
            unreachable))
        self.live_migrate(server['id'])
        server = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual('host1', server['OS-EXT-SRV-ATTR:host'])
        self.assertIsNone(server['OS-EXT-STS:task_state'])
        self.assert_only_on(server['id'], self.node_of('host1'))
        self.assertEqual('error', self.migrations(server['id'])[0].status)


class LiveMigrationAbortTestCase(LiveMigrationTestBase):
    """DELETE /servers/{id}/migrations/{mid} while the destination
    prepares (the abort is sent from its ``pre_live_migration``)."""

    def abort_while_preparing(self, server_id, version):
        answers = []

        def pre_live_migration(driver, context, instance, migrate_data):
            migration = self.migrations(server_id)[0]
            answers.append(self.admin_api.delete(
                '/servers/%s/migrations/%d' % (server_id, migration.id),
                version=version))

        self.patch_driver('pre_live_migration', pre_live_migration)
        self.live_migrate(server_id)
        self.assertEqual(1, len(answers))
        return answers[0]

    def test_abort_in_flight_from_2_65(self):
        """202; the source stops before the transfer: the migration is
        cancelled, the server stays ACTIVE on its source, which alone
        holds its allocation."""
        server = self.boot_on('host1')
        answer = self.abort_while_preparing(server['id'], '2.65')
        self.assertEqual(202, answer.status, answer)
        server = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual('host1', server['OS-EXT-SRV-ATTR:host'])
        self.assertIsNone(server['OS-EXT-STS:task_state'])
        self.assert_only_on(server['id'], self.node_of('host1'))
        self.assertEqual('cancelled', self.migrations(server['id'])[0].status)
        self.assertNotIn(server['id'], self.cloud.computes[
            'host2'].manager.driver.list_instance_uuids())
        actions = self.admin_api.get(
            '/servers/%s/os-instance-actions' % server['id']).body
        self.assertIn('live_migration_cancel',
                      [a['action'] for a in actions['instanceActions']])

    def test_abort_before_2_65_is_refused(self):
        """Before 2.65 only a running migration could be aborted (which
        nova_lite cannot): 400, and the migration goes on."""
        server = self.boot_on('host1')
        answer = self.abort_while_preparing(server['id'], '2.64')
        self.assertEqual(400, answer.status, answer)
        self.assertIn('preparing', answer.text)
        server = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])
        self.assert_only_on(server['id'], self.node_of('host2'))
        self.assertEqual('completed', self.migrations(server['id'])[0].status)

    def test_migration_ids_beyond_the_database(self):
        """Ids no migration can have are 404s, not server errors."""
        server = self.boot_on('host1')
        for mid in ('0', str(2 ** 63), str(10 ** 30), 'x'):
            path = '/servers/%s/migrations/%s' % (server['id'], mid)
            self.assertEqual(404, self.admin_api.get(path).status, mid)
            self.assertEqual(404, self.admin_api.delete(path).status, mid)
            response = self.admin_api.post(path + '/action',
                                           {'force_complete': None})
            self.assertEqual(404, response.status, mid)
