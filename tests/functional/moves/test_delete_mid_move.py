"""Deleting a server in the middle of a move (review finding 1, 3).

Whatever step a resize or a live migration is at, a DELETE through the
API leaves nothing behind: no allocation for the instance or its
migration on any node, no guest on any host, and the migration ended
(``confirmed`` when the delete could confirm a finished resize, ``error``
otherwise). A compute that is down does not make the delete wait for it.
"""

import fixtures

from tests.functional.moves import base
from tests.functional.moves import test_live_migration
from tests.functional.moves import test_resize

ZERO = base.ZERO
DRIVER = 'nova_lite.virt.fake.FakeDriver.'


class DeleteHelpers:

    def delete_server(self, server_id):
        """DELETE through the API (204), then wait until it is gone."""
        response = self.api.delete('/servers/%s' % server_id)
        self.assertEqual(204, response.status, response)
        self.cloud.wait_for_builds()
        self.cloud.wait_until_deleted(server_id)

    def assert_nothing_left(self, server_id, hosts):
        """No allocation for the instance or its migrations, zero usage
        and no guest of it on every one of ``hosts``."""
        self.assertEqual({}, self.cloud.allocations(server_id))
        for migration in self.migrations(server_id):
            self.assertEqual({}, self.allocation_by_node(migration.uuid),
                             'migration %s' % migration.uuid)
        for host in hosts:
            self.assert_usage(self.node_of(host), ZERO)
            if host in self.cloud.computes:
                guests = self.cloud.computes[
                    host].manager.driver.list_instance_uuids()
                self.assertNotIn(server_id, guests, 'guest on %s' % host)

    def force_down(self, host):
        """The compute of ``host`` dies and an operator marks it down
        (its guests outlive it: not checked)."""
        self.cloud.computes.pop(host).stop()
        services = self.admin_api.get(
            '/os-services?host=%s&binary=nova-lite-compute' % host)
        self.assertEqual(200, services.status, services)
        response = self.admin_api.put(
            '/os-services/%s' % services.body['services'][0]['id'],
            {'forced_down': True})
        self.assertEqual(200, response.status, response)


class DeleteDuringResizeTest(DeleteHelpers, test_resize.ResizeTestBase):
    """A resize from host1 to host2 (host3 an alternate) deleted at each
    step."""

    OTHER_COMPUTES = ('host2', 'host3')
    HOSTS = ('host1', 'host2', 'host3')

    def _delete_when(self, target, calls):
        """Patch ``target`` (a method path) to DELETE the server through
        the API first, then run as usual; ``calls`` gets the host of
        each call."""
        module_path, _, name = target.rpartition('.')
        module_name, _, class_name = module_path.rpartition('.')
        owner = getattr(__import__(module_name, fromlist=[class_name]),
                        class_name)
        real = getattr(owner, name)

        def deleting(obj, *args, **kwargs):
            calls.append(getattr(obj, 'host', None))
            if len(calls) == 1:
                response = self.api.delete('/servers/%s' %
                                           self.server['id'])
                self.assertEqual(204, response.status, response)
            return real(obj, *args, **kwargs)

        self.useFixture(fixtures.MonkeyPatch(target, deleting))

    def test_delete_while_the_destination_prepares(self):
        """The delete frees the source (held by the migration) and the
        destination claim; the failed destination check hands back to
        the cell conductor, which finds the instance gone and claims no
        alternate."""
        calls = []
        self._delete_when(
            'nova_lite.compute.resize.Resizes.check_destination', calls)
        self.resize('2')
        self.cloud.wait_until_deleted(self.server['id'])
        self.assertEqual(1, len(calls), calls)
        self.assertEqual('error', self.migration().status)
        self.assert_nothing_left(self.server['id'], self.HOSTS)

    def test_delete_while_the_source_ships_the_guest(self):
        calls = []
        self._delete_when(
            DRIVER + 'migrate_disk_and_power_off', calls)
        self.resize('2')
        self.cloud.wait_until_deleted(self.server['id'])
        self.assertEqual(['host1'], calls)
        self.assertEqual('error', self.migration().status)
        self.assert_nothing_left(self.server['id'], self.HOSTS)

    def test_delete_while_the_resize_reverts(self):
        """Deleted while the source restarts the old guest: the revert
        finds the instance gone and removes that guest and the
        allocation it gave back."""
        self.resize('2')
        self.wait('VERIFY_RESIZE')
        calls = []
        self._delete_when(DRIVER + 'finish_revert_migration', calls)
        self.post_action(self.server['id'], {'revertResize': None})
        self.cloud.wait_until_deleted(self.server['id'])
        self.assertEqual(['host1'], calls)
        self.assertEqual('error', self.migration().status)
        self.assert_nothing_left(self.server['id'], self.HOSTS)

    def test_delete_in_verify_resize_with_the_source_down(self):
        """The source cannot confirm: the delete does not wait for it,
        frees the migration's allocation and ends it in error."""
        self.resize('2')
        server = self.wait('VERIFY_RESIZE')
        dest_host = server['OS-EXT-SRV-ATTR:host']
        self.force_down('host1')
        confirms = []
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.compute.rpcapi.ComputeAPI.confirm_resize',
            lambda *args, **kwargs: confirms.append(args)))
        self.delete_server(self.server['id'])
        self.assertEqual([], confirms)
        self.assertEqual('error', self.migration().status)
        self.assert_nothing_left(self.server['id'], ('host1', dest_host))

    def test_delete_in_verify_resize_with_the_destination_down(self):
        """Deleted in the cell database (its compute is down), after the
        source confirmed: the old guest and the source allocation go."""
        self.resize('2')
        server = self.wait('VERIFY_RESIZE')
        dest_host = server['OS-EXT-SRV-ATTR:host']
        self.force_down(dest_host)
        self.delete_server(self.server['id'])
        self.assertEqual('confirmed', self.migration().status)
        self.assert_nothing_left(self.server['id'], ('host1', dest_host))


class DeleteDuringLiveMigrationTest(
        DeleteHelpers, test_live_migration.LiveMigrationTestBase):

    def test_delete_while_the_guest_moves(self):
        """Deleted while the driver transfers the guest: the source
        compute frees the migration's source allocation with the
        instance's destination claim; the migration ends in error."""
        server = self.boot_on('host1')
        deleted = []

        def live_migration(driver, context, instance, dest, migrate_data):
            response = self.admin_api.delete('/servers/%s' % server['id'])
            deleted.append(response.status)

        self.patch_driver('live_migration', live_migration)
        self.live_migrate(server['id'])
        self.cloud.wait_until_deleted(server['id'])
        self.assertEqual([204], deleted)
        self.assertEqual('error', self.migrations(server['id'])[0].status)
        self.assert_nothing_left(server['id'], ('host1', 'host2'))
