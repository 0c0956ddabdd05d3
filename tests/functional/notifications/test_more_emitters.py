"""Shelve, rebuild, snapshot, compute.exception and the API's own
notifications (flavor, keypair, aggregate, server group), as Nova sends
them; see test_emitters for the scenario base."""

import datetime

from oslo_utils import timeutils

from nova_lite.compute import usage_audit
from nova_lite import context as nl_context
from tests.functional.notifications import test_emitters

base = test_emitters
of = test_emitters.of


def by_type(recorder, prefix, wait_for=None):
    """What ``recorder`` received whose event type starts with
    ``prefix``, once ``wait_for`` (an event type) arrived."""
    if wait_for:
        recorder.wait_for(wait_for, timeout=30)
    return [n for n in recorder.received
            if n['event_type'].startswith(prefix)]


class TestInstanceActions(base.NotificationsTestBase):

    def test_shelve_offload_unshelve(self):
        server = self.boot('ACTIVE')
        uuid = server['id']
        self.notes.versioned.clear()
        self.post_action(uuid, {'shelve': None}, api=self.api)
        self.cloud.wait_for_server(uuid, 'SHELVED_OFFLOADED')
        self.wait_for('instance.shelve_offload.end', uuid)
        response = self.api.post('/servers/%s/action' % uuid,
                                 {'unshelve': None})
        self.assertEqual(202, response.status, response)
        self.cloud.wait_for_builds()
        self.cloud.wait_for_server(uuid, 'ACTIVE')
        self.wait_for('instance.unshelve.end', uuid)
        self.assertEqual(
            ['instance.shelve.start', 'instance.shelve.end',
             'instance.shelve_offload.start', 'instance.shelve_offload.end',
             'instance.unshelve.start', 'instance.unshelve.end'],
            self.events(uuid))
        offloaded = self.one('instance.shelve_offload.end', uuid)
        self.assertIsNone(offloaded['payload']['nova_object.data']['host'])

    def test_rebuild(self):
        server = self.boot('ACTIVE')
        uuid = server['id']
        self.notes.versioned.clear()
        self.post_action(uuid, {'rebuild': {
            'imageRef': server['image']['id']}}, api=self.api)
        self.cloud.wait_for_server(uuid, 'ACTIVE')
        self.wait_for('instance.rebuild.end', uuid)
        self.assertEqual(['instance.rebuild_scheduled',
                          'instance.rebuild.start', 'instance.rebuild.end'],
                         [e for e in self.events(uuid)
                          if not e.startswith('scheduler.')])
        scheduled = self.one('instance.rebuild_scheduled', uuid)
        self.assertTrue(scheduled['publisher_id'].startswith(
            'nova-conductor:'))
        end = self.one('instance.rebuild.end', uuid)['payload']
        self.assertEqual(('InstanceActionRebuildPayload', '1.10'),
                         (end['nova_object.name'],
                          end['nova_object.version']))

    def test_snapshot(self):
        server = self.boot('ACTIVE')
        uuid = server['id']
        self.notes.versioned.clear()
        response = self.api.post('/servers/%s/action' % uuid,
                                 {'createImage': {'name': 'snap'}})
        self.assertEqual(202, response.status, response)
        self.cloud.wait_for_builds()
        self.wait_for('instance.snapshot.end', uuid)
        self.assertEqual(['instance.snapshot.start', 'instance.snapshot.end'],
                         self.events(uuid))
        end = self.one('instance.snapshot.end', uuid)['payload']
        self.assertEqual(response.body['image_id'],
                         end['nova_object.data']['snapshot_image_id'])

    def test_failed_reboot_sends_reboot_error_and_compute_exception(self):
        server = self.boot('ACTIVE')
        uuid = server['id']
        self.useFixture(base.fixtures.MonkeyPatch(
            'nova_lite.virt.fake.FakeDriver.reboot', _failing))
        self.notes.versioned.clear()
        self.post_action(uuid, {'reboot': {'type': 'HARD'}}, api=self.api)
        self.wait_for('instance.reboot.error', uuid)
        self.assertEqual(['instance.reboot.start', 'instance.reboot.error'],
                         self.events(uuid))
        exceptions = by_type(self.notes.versioned, 'compute.exception')
        self.assertEqual(1, len(exceptions))
        self.assertEqual('ERROR', exceptions[0]['priority'])
        data = exceptions[0]['payload']['nova_object.data']
        self.assertEqual('RuntimeError', data['exception'])
        self.assertEqual('_failing', data['function_name'])


def _failing(*args, **kwargs):
    raise RuntimeError('the guest would not come back')


class TestAPINotifications(base.NotificationsTestBase):
    COMPUTES = ('host1',)

    def test_flavor_create_update_delete(self):
        response = self.admin_api.post('/flavors', {'flavor': {
            'name': 'notified', 'ram': 256, 'vcpus': 1, 'disk': 1,
            'id': 'notified-1'}})
        self.assertEqual(200, response.status, response)
        self.admin_api.put('/flavors/notified-1', {'flavor': {
            'description': 'now described'}}, version='2.55')
        self.admin_api.post('/flavors/notified-1/os-extra_specs', {
            'extra_specs': {'hw:numa_nodes': '1'}})
        self.admin_api.delete('/flavors/notified-1')
        flavors = by_type(self.notes.versioned, 'flavor.', 'flavor.delete')
        self.assertEqual(['flavor.create', 'flavor.update', 'flavor.update',
                          'flavor.delete'],
                         [n['event_type'] for n in flavors])
        self.assertEqual({'hw:numa_nodes': '1'}, flavors[2]['payload'][
            'nova_object.data']['extra_specs'])
        self.assertEqual('nova-api:test-host', flavors[0]['publisher_id'])
        self.assertEqual('now described', flavors[1]['payload'][
            'nova_object.data']['description'])

    def test_keypair_create_import_delete(self):
        response = self.api.post('/os-keypairs', {'keypair': {
            'name': 'made'}}, version='2.91')
        self.assertEqual(201, response.status, response)
        made = response.body['keypair']
        self.api.post('/os-keypairs', {'keypair': {
            'name': 'brought', 'public_key': made['public_key']}})
        self.api.delete('/os-keypairs/made')
        keypairs = by_type(self.notes.versioned, 'keypair.',
                           'keypair.delete.end')
        self.assertEqual(
            ['keypair.create.start', 'keypair.create.end',
             'keypair.import.start', 'keypair.import.end',
             'keypair.delete.start', 'keypair.delete.end'],
            [n['event_type'] for n in keypairs])
        self.assertIsNone(keypairs[0]['payload']['nova_object.data'][
            'fingerprint'])
        self.assertEqual(made['fingerprint'], keypairs[1]['payload'][
            'nova_object.data']['fingerprint'])

    def test_aggregate_life(self):
        response = self.admin_api.post('/os-aggregates', {'aggregate': {
            'name': 'agg1', 'availability_zone': 'zone1'}})
        self.assertEqual(200, response.status, response)
        agg_id = response.body['aggregate']['id']
        path = '/os-aggregates/%s' % agg_id
        self.admin_api.put(path, {'aggregate': {'name': 'agg2'}})
        self.admin_api.post(path + '/action', {'set_metadata': {
            'metadata': {'k': 'v'}}})
        self.admin_api.post(path + '/action', {'add_host': {
            'host': 'host1'}})
        self.admin_api.post(path + '/action', {'remove_host': {
            'host': 'host1'}})
        self.admin_api.delete(path)
        aggregates = by_type(self.notes.versioned, 'aggregate.',
                             'aggregate.delete.end')
        self.assertEqual(
            ['aggregate.create.start', 'aggregate.create.end',
             'aggregate.update_prop.start', 'aggregate.update_prop.end',
             'aggregate.update_metadata.start',
             'aggregate.update_metadata.end',
             'aggregate.add_host.start', 'aggregate.add_host.end',
             'aggregate.remove_host.start', 'aggregate.remove_host.end',
             'aggregate.delete.start', 'aggregate.delete.end'],
            [n['event_type'] for n in aggregates])
        added = aggregates[7]['payload']['nova_object.data']
        self.assertEqual(['host1'], added['hosts'])
        self.assertEqual({'availability_zone': 'zone1', 'k': 'v'},
                         added['metadata'])

    def test_server_group_create_delete(self):
        response = self.api.post('/os-server-groups', {'server_group': {
            'name': 'apart', 'policy': 'anti-affinity'}})
        self.assertEqual(200, response.status, response)
        group_id = response.body['server_group']['id']
        server = self.boot('ACTIVE', scheduler_hints={'group': group_id})
        self.assertEqual(204, self.api.delete(
            '/servers/%s' % server['id']).status)
        self.cloud.wait_until_deleted(server['id'])
        self.api.delete('/os-server-groups/%s' % group_id)
        groups = by_type(self.notes.versioned, 'server_group.',
                         'server_group.delete')
        self.assertEqual(['server_group.create', 'server_group.add_member',
                          'server_group.delete'],
                         [n['event_type'] for n in groups])
        self.assertEqual([server['id']], groups[1]['payload'][
            'nova_object.data']['members'])
        data = groups[0]['payload']['nova_object.data']
        self.assertEqual((group_id, 'anti-affinity', ['anti-affinity']),
                         (data['uuid'], data['policy'], data['policies']))


class TestStateChange(base.NotificationsTestBase):
    STATE_CHANGE = 'vm_state'

    def test_stop_sends_instance_update_with_the_state_change(self):
        server = self.boot('ACTIVE')
        uuid = server['id']
        self.post_action(uuid, {'os-stop': None}, api=self.api)
        self.cloud.wait_for_server(uuid, 'SHUTOFF')
        self.wait_for('instance.update', uuid)
        update = self.one('instance.update', uuid)
        state = update['payload']['nova_object.data']['state_update']
        self.assertEqual(('InstanceUpdatePayload', '2.1'),
                         (update['payload']['nova_object.name'],
                          update['payload']['nova_object.version']))
        self.assertEqual(('active', 'stopped', 'powering-off', None),
                         tuple(state['nova_object.data'][k] for k in (
                             'old_state', 'state', 'old_task_state',
                             'new_task_state')))


class TestNoStateChange(base.NotificationsTestBase):

    def test_unset_sends_no_instance_update(self):
        server = self.boot('ACTIVE')
        uuid = server['id']
        self.post_action(uuid, {'os-stop': None}, api=self.api)
        self.cloud.wait_for_server(uuid, 'SHUTOFF')
        self.wait_for('instance.power_off.end', uuid)
        self.assertNotIn('instance.update', self.events(uuid))


class TestMoreActions(base.NotificationsTestBase):

    def test_pause_unpause_suspend_resume(self):
        server = self.boot('ACTIVE')
        uuid = server['id']
        self.notes.versioned.clear()
        for action, status in (('pause', 'PAUSED'), ('unpause', 'ACTIVE'),
                               ('suspend', 'SUSPENDED'),
                               ('resume', 'ACTIVE')):
            self.post_action(uuid, {action: None}, api=self.admin_api)
            self.cloud.wait_for_server(uuid, status)
            self.wait_for('instance.%s.end' % action, uuid)
        self.assertEqual(
            ['instance.pause.start', 'instance.pause.end',
             'instance.unpause.start', 'instance.unpause.end',
             'instance.suspend.start', 'instance.suspend.end',
             'instance.resume.start', 'instance.resume.end'],
            self.events(uuid))

    def test_lock_unlock_from_the_api(self):
        server = self.boot('ACTIVE')
        uuid = server['id']
        self.notes.versioned.clear()
        self.post_action(uuid, {'lock': {'locked_reason': 'audit'}},
                         api=self.admin_api)
        self.post_action(uuid, {'unlock': None}, api=self.admin_api)
        self.wait_for('instance.unlock', uuid)
        notes = self.notes.versioned.matching(of(uuid))
        self.assertEqual(['instance.lock', 'instance.unlock'],
                         [n['event_type'] for n in notes])
        self.assertEqual('nova-api:test-host', notes[0]['publisher_id'])
        data = notes[0]['payload']['nova_object.data']
        self.assertEqual((True, 'audit'), (data['locked'],
                                           data['locked_reason']))

    def test_failed_live_migration_rolls_back(self):
        server = self.boot('ACTIVE', api=self.admin_api, host='host1')
        uuid = server['id']

        def live_migration(driver, context, instance, dest, migrate_data):
            raise RuntimeError('link down')
        self.useFixture(base.fixtures.MonkeyPatch(
            'nova_lite.virt.fake.FakeDriver.live_migration', live_migration))
        self.notes.versioned.clear()
        response = self.admin_api.post(
            '/servers/%s/action' % uuid,
            {'os-migrateLive': {'host': 'host2', 'block_migration': 'auto'}},
            version=base.LIVE_VERSION)
        self.assertEqual(202, response.status, response)
        self.cloud.wait_for_builds()
        self.wait_for('instance.live_migration_rollback.end', uuid)
        self.assertEqual(
            ['instance.live_migration_pre.start',
             'instance.live_migration_pre.end',
             'instance.live_migration_rollback.start',
             'instance.live_migration_rollback_dest.start',
             'instance.live_migration_rollback_dest.end',
             'instance.live_migration_rollback.end'],
            self.events(uuid))


class TestUsageAudit(base.NotificationsTestBase):
    COMPUTES = ('host1',)

    def test_audit_sends_instance_exists_over_the_period(self):
        server = self.boot('ACTIVE')
        uuid = server['id']
        # A month and a half later, the audited month is the boot's.
        later = timeutils.utcnow() + datetime.timedelta(days=45)
        timeutils.set_time_override(later)
        self.addCleanup(timeutils.clear_time_override)
        begin, end = usage_audit.last_completed_month()
        compute = self.cloud.computes['host1']
        self.assertTrue(compute.manager.instance_usage_audit(
            nl_context.get_admin_context()))
        self.wait_for('instance.exists', uuid)
        exists = self.one('instance.exists', uuid)['payload']
        period = exists['nova_object.data']['audit_period'][
            'nova_object.data']
        self.assertEqual((begin.strftime('%Y-%m-%dT%H:%M:%SZ'),
                          end.strftime('%Y-%m-%dT%H:%M:%SZ')),
                         (period['audit_period_beginning'],
                          period['audit_period_ending']))


class TestMigrateNoValidHost(base.NotificationsTestBase):
    COMPUTES = ('host1',)

    def test_resize_nowhere_sends_migrate_server_error(self):
        server = self.boot('ACTIVE')
        uuid = server['id']
        # The only other host is this one, and resizing onto the same
        # host is off.
        self.post_action(uuid, {'migrate': None}, api=self.admin_api)
        self.notes.versioned.wait_for('compute_task.migrate_server.error',
                                      timeout=30)
        error = by_type(self.notes.versioned, 'compute_task.')[0]
        self.assertEqual('ERROR', error['priority'])
        data = error['payload']['nova_object.data']
        self.assertEqual((uuid, 'active', 'NoValidHost'),
                         (data['instance_uuid'], data['state'],
                          data['reason']['nova_object.data']['exception']))


class TestSoftDelete(base.NotificationsTestBase):
    FLAGS = {'DEFAULT': {'reclaim_instance_interval': 3600}}

    def test_soft_delete_and_restore(self):
        server = self.boot('ACTIVE')
        uuid = server['id']
        self.notes.versioned.clear()
        self.assertEqual(204, self.api.delete('/servers/%s' % uuid).status)
        self.cloud.wait_for_builds()
        self.cloud.wait_for_server(uuid, 'SOFT_DELETED')
        self.post_action(uuid, {'restore': None}, api=self.api)
        self.cloud.wait_for_server(uuid, 'ACTIVE')
        self.wait_for('instance.restore.end', uuid)
        self.assertEqual(
            ['instance.soft_delete.start', 'instance.soft_delete.end',
             'instance.restore.start', 'instance.restore.end'],
            self.events(uuid))


class TestEvacuate(base.NotificationsTestBase):

    def test_evacuate_from_a_dead_host(self):
        server = self.boot('ACTIVE', api=self.admin_api, host='host1')
        uuid = server['id']
        self.cloud.computes.pop('host1').stop()
        services = self.admin_api.get(
            '/os-services?host=host1&binary=nova-lite-compute').body
        self.admin_api.put('/os-services/%s' % services['services'][0]['id'],
                           {'forced_down': True})
        self.notes.versioned.clear()
        response = self.admin_api.post('/servers/%s/action' % uuid,
                                       {'evacuate': {}})
        self.assertEqual(200, response.status, response)
        self.cloud.wait_for_builds()
        self.cloud.wait_for_server(uuid, 'ACTIVE')
        self.wait_for('instance.rebuild.end', uuid)
        self.assertEqual(
            ['instance.evacuate', 'instance.rebuild_scheduled',
             'instance.rebuild.start', 'instance.rebuild.end'],
            self.events(uuid))
        publishers = [n['publisher_id'] for n in
                      self.notes.versioned.matching(of(uuid))]
        self.assertEqual('nova-api:test-host', publishers[0])
        self.assertEqual('nova-compute:host2', publishers[-1])
