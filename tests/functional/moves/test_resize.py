"""Resize, cold migrate, confirm and revert (NOVA_FACTS §5.1, §5.2).

Each scenario checks the allocation matrix of §5.7 at every step: the
instance consumer holds the destination (new flavor), the migration
consumer the source (old flavor) until confirm drops it or revert gives
it back; every error path ends with the source allocation on the
instance and nothing on any target. Scenario numbers are those of
NOVA_FACTS §8.3; reschedules and cells are in ``test_resize_reschedule``.
"""

import datetime
import threading

import fixtures
from oslo_utils import timeutils

from nova_lite import cells
from nova_lite import context as nl_context
from nova_lite import objects
from tests.functional.moves import base

TINY = base.FLAVOR_1
SMALL = {'VCPU': 1, 'MEMORY_MB': 2048, 'DISK_GB': 20}
TINY_PLUS_SMALL = {'VCPU': 2, 'MEMORY_MB': 2560, 'DISK_GB': 21}
ZERO = base.ZERO


class ResizeTestBase(base.MovesTestBase):
    """A server booted on host1, then the other COMPUTES started."""

    COMPUTES = ('host1',)
    OTHER_COMPUTES = ('host2',)

    def setUp(self):
        super().setUp()
        self.server = self.boot('ACTIVE')
        self.assertEqual('host1', self.server['OS-EXT-SRV-ATTR:host'])
        for host in self.OTHER_COMPUTES:
            self.cloud.start_compute(host)
        self.source = self.node_of('host1')

    # -- helpers -------------------------------------------------------------

    def resize(self, flavor_ref='2', api=None, status=202):
        return self.post_action(self.server['id'],
                                {'resize': {'flavorRef': flavor_ref}},
                                api=api or self.api, status=status)

    def migrate(self, host=None, status=202, api=None):
        body = {'migrate': {'host': host} if host else None}
        return self.post_action(self.server['id'], body, api=api,
                                status=status)

    def wait(self, status):
        return self.cloud.wait_for_server(self.server['id'], status)

    def migration(self):
        migrations = self.migrations(self.server['id'])
        self.assertEqual(1, len(migrations), migrations)
        return migrations[0]

    def assert_moving(self, source, dest, old=TINY, new=SMALL):
        """The §5.7 matrix of a move in flight or in VERIFY_RESIZE."""
        migration = self.migration()
        self.assertEqual({dest: new},
                         self.allocation_by_node(self.server['id']))
        self.assertEqual({source: old},
                         self.allocation_by_node(migration.uuid))
        if source == dest:
            self.assert_usage(source, _added(old, new))
        else:
            self.assert_usage(source, old)
            self.assert_usage(dest, new)

    def assert_only_on(self, node, flavor, nodes):
        """The instance alone holds ``flavor`` on ``node``; every other of
        ``nodes`` is empty; no migration holds anything."""
        self.assertEqual({node: flavor},
                         self.allocation_by_node(self.server['id']))
        for migration in self.migrations(self.server['id']):
            self.assertEqual({}, self.allocation_by_node(migration.uuid))
        for other in nodes:
            self.assert_usage(other, flavor if other == node else ZERO)

    def action_events(self, action):
        """{event: result} of the server's newest ``action`` (results
        joined by commas, oldest first, when an event repeats)."""
        actions = self.admin_api.get('/servers/%s/os-instance-actions'
                                     % self.server['id']).body[
            'instanceActions']
        wanted = [a for a in actions if a['action'] == action]
        self.assertTrue(wanted, actions)
        detail = self.admin_api.get('/servers/%s/os-instance-actions/%s' % (
            self.server['id'], wanted[0]['request_id'])).body[
            'instanceAction']
        results = {}
        for event in sorted(detail['events'],
                            key=lambda e: e['start_time'] or ''):
            results.setdefault(event['event'], []).append(event['result'])
        return {name: ','.join(str(x) for x in r)
                for name, r in results.items()}

    def latest_fault(self, cell='cell1'):
        context = nl_context.get_admin_context()
        with cells.target_cell(context,
                               self.cloud.dbs.cells[cell]) as cctxt:
            return objects.InstanceFault.get_latest_for_instance(
                cctxt, self.server['id'])

    def fail_prep_resize(self, failures, on_failure=None):
        """The first ``failures`` prep_resize checks fail (as a failed
        claim on the destination would); returns the failed hosts."""
        from nova_lite.compute import resize
        real = resize.Resizes.check_destination
        failed = []
        lock = threading.Lock()

        def prep(manager, context, instance, flavor, migration, node):
            with lock:
                fail = len(failed) < failures
                if fail:
                    failed.append(manager.host)
            if fail:
                if on_failure is not None:
                    on_failure(manager.host, node, migration)
                raise resize.ResizeFailed(uuid=instance.uuid,
                                          host=manager.host,
                                          reason='simulated failure')
            return real(manager, context, instance, flavor, migration,
                        node)

        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.compute.resize.Resizes.check_destination', prep))
        return failed

    def count_scheduler_calls(self):
        from nova_lite.scheduler import manager
        real = manager.SchedulerManager.select_destinations
        calls = []

        def select_destinations(scheduler, *args, **kwargs):
            calls.append(args)
            return real(scheduler, *args, **kwargs)

        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.scheduler.manager.SchedulerManager.'
            'select_destinations', select_destinations))
        return calls


def _added(*flavors):
    return {rc: sum(f[rc] for f in flavors) for rc in ZERO}


class ResizeConfirmRevertTest(ResizeTestBase):
    """15: resize to another host, then confirm or revert."""

    def _resize_to_host2(self):
        self.resize('2')
        server = self.wait('VERIFY_RESIZE')
        dest = self.node_of('host2')
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual('m1.small', server['flavor']['original_name'])
        self.assertEqual('finished', self.migration().status)
        self.assertEqual('resize', self.migration().migration_type)
        self.assert_moving(self.source, dest)
        self.cloud.run_periodics()
        self.assert_moving(self.source, dest)
        return dest

    def test_resize_confirm(self):
        dest = self._resize_to_host2()
        self.post_action(self.server['id'], {'confirmResize': None},
                         api=self.api, status=204)
        server = self.wait('ACTIVE')
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual('m1.small', server['flavor']['original_name'])
        self.assertEqual('confirmed', self.migration().status)
        self.assert_only_on(dest, SMALL, [self.source, dest])
        self.cloud.run_periodics()
        self.assert_only_on(dest, SMALL, [self.source, dest])
        self.assertEqual(
            {'conductor_migrate_server': 'Success',
             'compute_prep_resize': 'Success',
             'compute_resize_instance': 'Success',
             'compute_finish_resize': 'Success'},
            self.action_events('resize'))
        self.assertEqual({'compute_confirm_resize': 'Success'},
                         self.action_events('confirmResize'))
        listed = self.admin_api.get('/os-migrations?instance_uuid=%s'
                                    % self.server['id']).body['migrations']
        self.assertEqual([('confirmed', 'resize', 'host1', 'host2')],
                         [(m['status'], m['migration_type'],
                           m['source_compute'], m['dest_compute'])
                          for m in listed])
        self.delete_and_check_no_allocations(self.server['id'])
        self.assert_usage(dest, ZERO)

    def test_resize_revert(self):
        dest = self._resize_to_host2()
        self.post_action(self.server['id'], {'revertResize': None},
                         api=self.api)
        server = self.wait('ACTIVE')
        self.assertEqual('host1', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual('m1.tiny', server['flavor']['original_name'])
        self.assertEqual('reverted', self.migration().status)
        self.assert_only_on(self.source, TINY, [self.source, dest])
        self.cloud.run_periodics()
        self.assert_only_on(self.source, TINY, [self.source, dest])
        self.assertEqual({'compute_revert_resize': 'Success',
                          'compute_finish_revert_resize': 'Success'},
                         self.action_events('revertResize'))
        self.delete_and_check_no_allocations(self.server['id'])
        self.assert_usage(self.source, ZERO)

    def test_delete_in_verify_resize_leaves_nothing(self):
        """DELETE in VERIFY_RESIZE: the API confirms the resize first (a
        call to the source), so neither consumer keeps an allocation and
        no guest stays on either host."""
        dest = self._resize_to_host2()
        migration = self.migration()
        self.delete_and_check_no_allocations(self.server['id'])
        self.assertEqual({}, self.allocation_by_node(migration.uuid))
        self.assertEqual('confirmed', self.migration().status)
        self.assert_usage(self.source, ZERO)
        self.assert_usage(dest, ZERO)
        for host in ('host1', 'host2'):
            self.assertNotIn(self.server['id'], self.cloud.computes[
                host].manager.driver.list_instance_uuids())

    def test_resize_stopped_server_stays_stopped(self):
        self.post_action(self.server['id'], {'os-stop': None})
        self.wait('SHUTOFF')
        self.resize('2')
        server = self.wait('VERIFY_RESIZE')
        self.assertEqual(4, server['OS-EXT-STS:power_state'])
        self.post_action(self.server['id'], {'confirmResize': None},
                         status=204)
        self.wait('SHUTOFF')
        self.assert_only_on(self.node_of('host2'), SMALL,
                            [self.source, self.node_of('host2')])

    def test_confirm_window_confirms_by_itself(self):
        """resize_confirm_window: the destination's periodic confirms a
        resize left in VERIFY_RESIZE long enough."""
        self.cloud.conf.flags(resize_confirm_window=60)
        dest = self._resize_to_host2()
        manager = self.cloud.computes['host2'].manager
        context = nl_context.get_admin_context()
        self.assertEqual(0, manager._poll_unconfirmed_resizes(context))
        self.assert_moving(self.source, dest)
        timeutils.set_time_override(timeutils.utcnow() +
                                    datetime.timedelta(seconds=120))
        self.addCleanup(timeutils.clear_time_override)
        manager._last_run.pop('unconfirmed_resizes', None)
        self.assertEqual(1, manager._poll_unconfirmed_resizes(context))
        self.wait('ACTIVE')
        self.assertEqual('confirmed', self.migration().status)
        self.assert_only_on(dest, SMALL, [self.source, dest])


class ConfirmRevertRaceTest(ResizeTestBase):
    """A user's confirm or revert and the destination's automatic
    confirm racing on one finished migration: one wins, the other is
    refused (409) or skipped, and the server ends in one consistent
    state."""

    def _verify_resize(self):
        self.resize('2')
        self.wait('VERIFY_RESIZE')
        return self.node_of('host2')

    def _confirm_automatically(self, migration):
        """What the destination's periodic does with a migration it
        listed as finished."""
        manager = self.cloud.computes['host2'].manager
        return manager.resizes.confirm_automatically(
            nl_context.get_admin_context(), migration)

    def test_automatic_confirm_while_the_user_confirms(self):
        """The periodic comes while the source confirms for the user: it
        leaves the migration alone; the resize is confirmed once."""
        dest = self._verify_resize()
        listed = self.migration()
        from nova_lite.virt import fake
        real = fake.FakeDriver.confirm_migration
        results = []

        def confirm_migration(driver, context, migration, instance,
                              *args, **kwargs):
            if not results:
                results.append(self._confirm_automatically(listed))
            return real(driver, context, migration, instance, *args,
                        **kwargs)

        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.virt.fake.FakeDriver.confirm_migration',
            confirm_migration))
        self.post_action(self.server['id'], {'confirmResize': None},
                         status=204)
        server = self.wait('ACTIVE')
        self.assertEqual([False], results)
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual('confirmed', self.migration().status)
        self.assertEqual({'compute_confirm_resize': 'Success'},
                         self.action_events('confirmResize'))
        self.assert_only_on(dest, SMALL, [self.source, dest])

    def _user_action_loses(self, action):
        """The API reads the finished migration for ``action``; the
        periodic confirms it before the API writes: 409, and the server
        stays confirmed on host2."""
        dest = self._verify_resize()
        real = objects.Migration.get_by_instance_and_status
        confirmed = []

        def get(cls, context, instance_uuid, status):
            migration = real(context, instance_uuid, status)
            if not confirmed:
                confirmed.append(self._confirm_automatically(migration))
            return migration

        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.migration.Migration.'
            'get_by_instance_and_status', classmethod(get)))
        response = self.api.post('/servers/%s/action' % self.server['id'],
                                 {action: None})
        self.assertEqual(409, response.status, response)
        self.assertIn('migration status confirmed',
                      response.body['conflictingRequest']['message'])
        self.assertEqual([True], confirmed)
        server = self.wait('ACTIVE')
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])
        self.assertIsNone(server['OS-EXT-STS:task_state'])
        self.assertEqual('m1.small', server['flavor']['original_name'])
        self.assertEqual('confirmed', self.migration().status)
        self.assert_only_on(dest, SMALL, [self.source, dest])

    def test_revert_after_an_automatic_confirm_is_a_conflict(self):
        self._user_action_loses('revertResize')

    def test_confirm_after_an_automatic_confirm_is_a_conflict(self):
        self._user_action_loses('confirmResize')


class ColdMigrateTest(ResizeTestBase):
    """Cold migrate (admins): same flavor, another host."""

    def test_migrate_then_confirm(self):
        self.migrate()
        server = self.wait('VERIFY_RESIZE')
        dest = self.node_of('host2')
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual('migration', self.migration().migration_type)
        self.assert_moving(self.source, dest, old=TINY, new=TINY)
        self.assertIn('conductor_migrate_server',
                      self.action_events('migrate'))
        self.post_action(self.server['id'], {'confirmResize': None},
                         status=204)
        self.wait('ACTIVE')
        self.assert_only_on(dest, TINY, [self.source, dest])

    def test_migrate_to_a_host_at_2_56(self):
        self.migrate(host='host2')
        server = self.wait('VERIFY_RESIZE')
        self.assertEqual('host2', server['OS-EXT-SRV-ATTR:host'])

    def test_migrate_then_revert(self):
        self.migrate()
        self.wait('VERIFY_RESIZE')
        dest = self.node_of('host2')
        self.post_action(self.server['id'], {'revertResize': None})
        server = self.wait('ACTIVE')
        self.assertEqual('host1', server['OS-EXT-SRV-ATTR:host'])
        self.assert_only_on(self.source, TINY, [self.source, dest])


class SameHostResizeTest(ResizeTestBase):
    """15: resize on one host (allow_resize_to_same_host)."""

    FLAGS = {'DEFAULT': {'allow_resize_to_same_host': True}}
    OTHER_COMPUTES = ()

    def _resize_in_place(self):
        self.resize('2')
        server = self.wait('VERIFY_RESIZE')
        self.assertEqual('host1', server['OS-EXT-SRV-ATTR:host'])
        self.assert_moving(self.source, self.source)
        self.assert_usage(self.source, TINY_PLUS_SMALL)
        self.cloud.run_periodics()
        self.assert_moving(self.source, self.source)

    def test_resize_confirm_same_host(self):
        self._resize_in_place()
        self.post_action(self.server['id'], {'confirmResize': None},
                         status=204)
        server = self.wait('ACTIVE')
        self.assertEqual('m1.small', server['flavor']['original_name'])
        self.assert_only_on(self.source, SMALL, [self.source])
        self.cloud.run_periodics()
        self.assert_only_on(self.source, SMALL, [self.source])

    def test_resize_revert_same_host(self):
        self._resize_in_place()
        self.post_action(self.server['id'], {'revertResize': None})
        server = self.wait('ACTIVE')
        self.assertEqual('m1.tiny', server['flavor']['original_name'])
        self.assert_only_on(self.source, TINY, [self.source])
        self.cloud.run_periodics()
        self.assert_only_on(self.source, TINY, [self.source])

    def test_cold_migrate_never_stays_without_the_trait(self):
        """Same host is for resizes: a cold migrate with no other host
        finds none (the fake driver does not report
        COMPUTE_SAME_HOST_COLD_MIGRATE)."""
        self.migrate()
        server = self.wait('ACTIVE')
        self.assertEqual('host1', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual('error', self.migration().status)
        self.assert_only_on(self.source, TINY, [self.source])


class ResizeDriverFailureTest(ResizeTestBase):
    """A driver step failing on the source or the destination: ERROR on
    the source host, migration ``error``, the source allocation back on
    the instance and nothing left on the destination."""

    def _fail_driver(self, method):
        def fail(driver, *args, **kwargs):
            raise RuntimeError('%s failed on %s' % (method, driver.host))

        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.virt.fake.FakeDriver.' + method, fail))

    def _assert_failed_back_on_source(self, event):
        server = self.wait('ERROR')
        self.assertEqual('host1', server['OS-EXT-SRV-ATTR:host'])
        self.assertIn('failed on', server['fault']['message'])
        self.assertEqual('error', self.migration().status)
        self.assertEqual('Error', self.action_events('resize')[event])
        dest = self.node_of('host2')
        self.assert_only_on(self.source, TINY, [self.source, dest])
        self.delete_and_check_no_allocations(self.server['id'])
        self.assert_usage(self.source, ZERO)

    def test_source_fails_to_ship_the_guest(self):
        self._fail_driver('migrate_disk_and_power_off')
        self.resize('2')
        self._assert_failed_back_on_source('compute_resize_instance')

    def test_destination_fails_to_create_the_guest(self):
        self._fail_driver('finish_migration')
        self.resize('2')
        self._assert_failed_back_on_source('compute_finish_resize')


class ResizeInterruptedTest(ResizeTestBase):
    """The instance's task state changes under a resize that is still
    preparing (as an admin resetting its state would): the move stops
    and the instance, which still exists, keeps its source allocation."""

    def test_task_state_reset_while_the_destination_prepares(self):
        from nova_lite.compute import resize as resize_module
        real = resize_module.Resizes.check_destination

        def prep(manager, context, instance, flavor, migration, node):
            real(manager, context, instance, flavor, migration, node)
            admin = nl_context.get_admin_context()
            with cells.target_cell(
                    admin, self.cloud.dbs.cells['cell1']) as cctxt:
                fresh = objects.Instance.get_by_uuid(cctxt,
                                                     self.server['id'])
                fresh.task_state = None
                fresh.save()

        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.compute.resize.Resizes.check_destination', prep))
        self.resize('2')
        server = self.wait('ACTIVE')
        self.assertEqual('host1', server['OS-EXT-SRV-ATTR:host'])
        self.assertEqual('m1.tiny', server['flavor']['original_name'])
        self.assertEqual('error', self.migration().status)
        self.assert_only_on(self.source, TINY,
                            [self.source, self.node_of('host2')])


class ResizeAPIErrorsTest(ResizeTestBase):
    """What users get wrong, answered 400/403/404/409, never 500."""

    def _action(self, body, status, api=None, server_id=None, **kw):
        response = (api or self.api).post(
            '/servers/%s/action' % (server_id or self.server['id']), body,
            **kw)
        self.assertEqual(status, response.status, response)
        return response

    def test_bad_resize_requests(self):
        self._action({'resize': {'flavorRef': '1'}}, 400)
        self._action({'resize': {'flavorRef': '999'}}, 400)
        self._action({'resize': {}}, 400)
        self._action({'resize': {'flavorRef': '2', 'bogus': 1}}, 400)
        self._action({'resize': {'flavorRef': '2'}}, 404,
                      server_id='8a1c5a42-59d5-4f52-b4ac-3a0c3b3ac0b1')
        self.assertEqual([], self.migrations(self.server['id']))
        self.assertEqual('ACTIVE', self.wait('ACTIVE')['status'])

    def test_migrate_is_for_admins(self):
        self._action({'migrate': None}, 403)
        self._action({'migrate': {'host': 'nowhere'}}, 400,
                     api=self.admin_api)
        self._action({'migrate': {'host': 'host1'}}, 400,
                     api=self.admin_api)
        self.assertEqual([], self.migrations(self.server['id']))
        # Before 2.56 Nova does not look at the body: the host is ignored
        # and the scheduler picks one.
        self._action({'migrate': {'host': 'nowhere'}}, 202,
                     api=self.admin_api, version='2.55')
        self.wait('VERIFY_RESIZE')

    def test_wrong_states_are_conflicts(self):
        self._action({'confirmResize': None}, 409)
        self._action({'revertResize': None}, 409)
        self.resize('2')
        self.wait('VERIFY_RESIZE')
        self._action({'resize': {'flavorRef': '3'}}, 409)
        self._action({'migrate': None}, 409, api=self.admin_api)
        self._action({'confirmResize': None}, 204)
        self.wait('ACTIVE')
        self._action({'confirmResize': None}, 409)

    def test_root_disk_never_shrinks(self):
        self.resize('2')
        self.wait('VERIFY_RESIZE')
        self._action({'confirmResize': None}, 204)
        self.wait('ACTIVE')
        response = self._action({'resize': {'flavorRef': '1'}}, 400)
        self.assertIn('disk down', response.body['badRequest']['message'])
        self.assertEqual(['confirmed'], [
            m.status for m in self.migrations(self.server['id'])])

    def test_locked_server_is_a_conflict_for_its_owner(self):
        self._action({'lock': None}, 202, api=self.admin_api)
        self._action({'resize': {'flavorRef': '2'}}, 409)
        self.assertEqual([], self.migrations(self.server['id']))
