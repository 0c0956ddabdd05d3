"""Nova's notifications as the services send them, on a ``fake://`` bus.

Every service runs in this process (:mod:`nova_lite.testing.integrated`)
and a real oslo.messaging notification listener records what arrives on
``versioned_notifications`` (and ``notifications``, the unversioned
format's topic). The scenarios are Nova's notification sample tests':
the event types each action sends, in Nova's order, who publishes them,
their priority and their payload's object name and version.
"""

import argparse
import io
import json
import threading

import fixtures

from nova_lite.cmd import manage_notifications
from nova_lite.testing import fixtures as nl_fixtures
from tests.functional.moves import base

LIVE_VERSION = '2.30'


def of(uuid):
    """The notifications about instance ``uuid``."""
    def match(notification):
        data = notification['payload'].get('nova_object.data', {})
        return data.get('uuid') == uuid
    return match


class NotificationsTestBase(base.MovesTestBase):
    FORMAT = 'versioned'
    STATE_CHANGE = None

    def setUp(self):
        super().setUp()
        flags = {}
        if self.STATE_CHANGE:
            flags['notify_on_state_change'] = self.STATE_CHANGE
        self.notes = self.useFixture(nl_fixtures.NotificationFixture(
            self.FORMAT, **flags))

    def boot(self, status, **kwargs):
        """The server once ``status`` shows, and for an ACTIVE one once
        its ``instance.create.end`` arrived too (the compute sends it
        after the API shows ACTIVE, as Nova's does)."""
        server = super().boot(status, **kwargs)
        if status == 'ACTIVE' and self.FORMAT in ('versioned', 'both'):
            self.wait_for('instance.create.end', server['id'])
        return server

    def events(self, uuid):
        return self.notes.event_types(of(uuid))

    def wait_for(self, event_type, uuid):
        self.notes.versioned.wait_for(event_type, of(uuid), timeout=30)

    def one(self, event_type, uuid):
        found = [n for n in self.notes.versioned.matching(of(uuid))
                 if n['event_type'] == event_type]
        self.assertEqual(1, len(found), event_type)
        return found[0]


class TestInstanceNotifications(NotificationsTestBase):

    def test_boot_sends_create_start_and_end_from_the_compute(self):
        server = self.boot('ACTIVE')
        uuid = server['id']
        self.wait_for('instance.create.end', uuid)
        self.assertEqual(['instance.create.start', 'instance.create.end'],
                         self.events(uuid))
        scheduled = [n for n in self.notes.versioned.received
                     if n['event_type'].startswith('scheduler.')]
        self.assertEqual(['scheduler.select_destinations.start',
                          'scheduler.select_destinations.end'],
                         [n['event_type'] for n in scheduled])
        spec = scheduled[0]['payload']
        self.assertEqual('RequestSpecPayload', spec['nova_object.name'])
        self.assertEqual(uuid, spec['nova_object.data']['instance_uuid'])
        self.assertEqual('nova-scheduler:scheduler',
                         scheduled[0]['publisher_id'])
        end = self.one('instance.create.end', uuid)
        host = server['OS-EXT-SRV-ATTR:host']
        self.assertEqual('nova-compute:%s' % host, end['publisher_id'])
        self.assertEqual('INFO', end['priority'])
        payload = end['payload']
        self.assertEqual(('InstanceCreatePayload', 'nova', '1.13'),
                         (payload['nova_object.name'],
                          payload['nova_object.namespace'],
                          payload['nova_object.version']))
        data = payload['nova_object.data']
        self.assertEqual('active', data['state'])
        self.assertEqual('running', data['power_state'])
        self.assertEqual(host, data['host'])
        self.assertEqual('FlavorPayload',
                         data['flavor']['nova_object.name'])
        self.assertEqual(server['tenant_id'], data['tenant_id'])
        # The request id of the boot is carried to the compute's payload.
        self.assertTrue(data['request_id'].startswith('req-'))
        self.assertEqual(data['request_id'], end['context']['request_id'])

    def test_failed_build_sends_create_error_with_the_fault(self):
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.virt.fake.FakeDriver.spawn', _failing_spawn))
        server = self.boot('ERROR')
        uuid = server['id']
        self.wait_for('instance.create.error', uuid)
        error = self.notes.versioned.matching(
            lambda n: n['event_type'] == 'instance.create.error')[0]
        self.assertEqual('ERROR', error['priority'])
        fault = error['payload']['nova_object.data']['fault']
        self.assertEqual('ExceptionPayload', fault['nova_object.name'])
        self.assertEqual('RuntimeError',
                         fault['nova_object.data']['exception'])
        self.assertIn('disk on fire',
                      fault['nova_object.data']['exception_message'])

    def test_delete_sends_delete_and_shutdown_in_nova_order(self):
        server = self.boot('ACTIVE')
        uuid = server['id']
        self.notes.versioned.clear()
        self.assertEqual(204, self.api.delete('/servers/%s' % uuid).status)
        self.cloud.wait_until_deleted(uuid)
        self.wait_for('instance.delete.end', uuid)
        self.assertEqual(['instance.delete.start', 'instance.shutdown.start',
                          'instance.shutdown.end', 'instance.delete.end'],
                         self.events(uuid))
        start = self.one('instance.delete.start', uuid)
        self.assertEqual('deleting',
                         start['payload']['nova_object.data']['task_state'])
        end = self.one('instance.delete.end', uuid)
        self.assertEqual('deleted',
                         end['payload']['nova_object.data']['state'])

    def test_stop_start_reboot(self):
        server = self.boot('ACTIVE')
        uuid = server['id']
        self.notes.versioned.clear()
        self.post_action(uuid, {'os-stop': None}, api=self.api)
        self.cloud.wait_for_server(uuid, 'SHUTOFF')
        self.post_action(uuid, {'os-start': None}, api=self.api)
        self.cloud.wait_for_server(uuid, 'ACTIVE')
        self.post_action(uuid, {'reboot': {'type': 'SOFT'}}, api=self.api)
        self.wait_for('instance.reboot.end', uuid)
        self.assertEqual(
            ['instance.power_off.start', 'instance.power_off.end',
             'instance.power_on.start', 'instance.power_on.end',
             'instance.reboot.start', 'instance.reboot.end'],
            self.events(uuid))
        off = self.one('instance.power_off.end', uuid)
        self.assertEqual('shutdown',
                         off['payload']['nova_object.data']['power_state'])

    def test_resize_and_confirm(self):
        server = self.boot('ACTIVE')
        uuid = server['id']
        self.notes.versioned.clear()
        self.post_action(uuid, {'resize': {'flavorRef': '2'}}, api=self.api)
        self.cloud.wait_for_server(uuid, 'VERIFY_RESIZE')
        self.wait_for('instance.resize_finish.end', uuid)
        self.post_action(uuid, {'confirmResize': None}, api=self.api,
                         status=204)
        self.cloud.wait_for_server(uuid, 'ACTIVE')
        self.wait_for('instance.resize_confirm.end', uuid)
        self.assertEqual(
            ['instance.exists',
             'instance.resize_prep.start', 'instance.resize_prep.end',
             'instance.resize.start', 'instance.resize.end',
             'instance.resize_finish.start', 'instance.resize_finish.end',
             'instance.resize_confirm.start', 'instance.resize_confirm.end'],
            self.events(uuid))
        prep = self.one('instance.resize_prep.start', uuid)['payload']
        self.assertEqual('InstanceActionResizePrepPayload',
                         prep['nova_object.name'])
        new_flavor = prep['nova_object.data']['new_flavor']
        self.assertEqual('2',
                         new_flavor['nova_object.data']['flavorid'])
        finish = self.one('instance.resize_finish.end', uuid)['payload']
        self.assertEqual('resized', finish['nova_object.data']['state'])

    def test_resize_and_revert(self):
        server = self.boot('ACTIVE')
        uuid = server['id']
        self.post_action(uuid, {'resize': {'flavorRef': '2'}}, api=self.api)
        self.cloud.wait_for_server(uuid, 'VERIFY_RESIZE')
        self.wait_for('instance.resize_finish.end', uuid)
        self.notes.versioned.clear()
        self.post_action(uuid, {'revertResize': None}, api=self.api)
        self.cloud.wait_for_server(uuid, 'ACTIVE')
        self.wait_for('instance.resize_revert.end', uuid)
        self.assertEqual(['instance.exists', 'instance.resize_revert.start',
                          'instance.resize_revert.end'], self.events(uuid))

    def test_live_migration(self):
        server = self.boot('ACTIVE', api=self.admin_api, host='host1')
        uuid = server['id']
        self.notes.versioned.clear()
        response = self.admin_api.post(
            '/servers/%s/action' % uuid,
            {'os-migrateLive': {'host': 'host2', 'block_migration': 'auto'}},
            version=LIVE_VERSION)
        self.assertEqual(202, response.status, response)
        self.cloud.wait_for_builds()
        self.wait_for('instance.live_migration_post.end', uuid)
        self.assertEqual(
            ['instance.live_migration_pre.start',
             'instance.live_migration_pre.end',
             'instance.live_migration_post.start',
             'instance.live_migration_post_dest.start',
             'instance.live_migration_post_dest.end',
             'instance.live_migration_post.end'], self.events(uuid))
        publishers = [n['publisher_id'] for n in
                      self.notes.versioned.matching(of(uuid))]
        self.assertEqual(['nova-compute:host2', 'nova-compute:host2',
                          'nova-compute:host1', 'nova-compute:host2',
                          'nova-compute:host2', 'nova-compute:host1'],
                         publishers)


def _failing_spawn(driver, *args, **kwargs):
    raise RuntimeError('disk on fire')


class TestNoValidHost(NotificationsTestBase):
    COMPUTES = ()

    def test_buried_instance_sends_compute_task_error(self):
        server = self.boot('ERROR')
        self.notes.versioned.wait_for('compute_task.build_instances.error')
        error = self.notes.versioned.matching(
            lambda n: n['event_type'] ==
            'compute_task.build_instances.error')[0]
        self.assertEqual('ERROR', error['priority'])
        self.assertTrue(error['publisher_id'].startswith('nova-conductor:'))
        data = error['payload']['nova_object.data']
        self.assertEqual(server['id'], data['instance_uuid'])
        self.assertEqual('NoValidHost',
                         data['reason']['nova_object.data']['exception'])
        self.assertEqual(['scheduler.select_destinations.start'],
                         [n['event_type'] for n in
                          self.notes.versioned.received
                          if n['event_type'].startswith('scheduler.')])

    def test_delete_of_a_buried_instance_is_the_apis(self):
        server = self.boot('ERROR')
        uuid = server['id']
        self.assertEqual(204, self.api.delete('/servers/%s' % uuid).status)
        self.cloud.wait_until_deleted(uuid)
        self.wait_for('instance.delete.end', uuid)
        deletes = [n for n in self.notes.versioned.matching(of(uuid))
                   if n['event_type'].startswith('instance.delete.')]
        self.assertEqual(['instance.delete.start', 'instance.delete.end'],
                         [n['event_type'] for n in deletes])
        self.assertEqual({'nova-api:test-host'},
                         {n['publisher_id'] for n in deletes})


class TestServiceNotifications(NotificationsTestBase):

    def test_disable_sends_service_update_as_the_compute(self):
        response = self.admin_api.put(
            '/os-services/disable',
            {'host': 'host1', 'binary': 'nova-compute'}, version='2.1')
        self.assertEqual(200, response.status, response)
        self.notes.versioned.wait_for('service.update')
        update = self.notes.versioned.matching(
            lambda n: n['event_type'] == 'service.update')[-1]
        self.assertEqual('nova-compute:host1', update['publisher_id'])
        data = update['payload']['nova_object.data']
        self.assertEqual(('ServiceStatusPayload', '1.1'),
                         (update['payload']['nova_object.name'],
                          update['payload']['nova_object.version']))
        self.assertTrue(data['disabled'])
        self.assertEqual('nova-compute', data['binary'])


class TestFormats(NotificationsTestBase):
    """``[notifications] notification_format``: what goes where."""

    def _boot_and_wait(self):
        server = self.boot('ACTIVE')
        return server['id']

    def test_versioned_sends_nothing_unversioned(self):
        uuid = self._boot_and_wait()
        self.wait_for('instance.create.end', uuid)
        self.assertEqual([], self.notes.legacy.received)


class TestFormatBoth(NotificationsTestBase):
    FORMAT = 'both'

    def test_both_formats_each_on_its_topic(self):
        server = self.boot('ACTIVE')
        uuid = server['id']
        self.wait_for('instance.create.end', uuid)
        self.notes.legacy.wait_for('compute.instance.create.end')
        legacy = [n['event_type'] for n in self.notes.legacy.received]
        self.assertEqual(['compute.instance.create.start',
                          'compute.instance.create.end'], legacy)
        end = self.notes.legacy.received[-1]
        self.assertEqual(uuid, end['payload']['instance_id'])
        self.assertNotIn('nova_object.data', end['payload'])


class TestFormatUnversioned(NotificationsTestBase):
    FORMAT = 'unversioned'

    def test_only_the_unversioned_format(self):
        server = self.boot('ACTIVE')
        self.notes.legacy.wait_for('compute.instance.create.end')
        self.assertEqual([], self.notes.event_types(of(server['id'])))


class TestFormatNone(NotificationsTestBase):
    FORMAT = 'none'

    def test_nothing_at_all(self):
        server = self.boot('ACTIVE')
        self.assertEqual(204, self.api.delete(
            '/servers/%s' % server['id']).status)
        self.cloud.wait_until_deleted(server['id'])
        self.assertEqual([], self.notes.versioned.received)
        self.assertEqual([], self.notes.legacy.received)


class TestListenCommand(NotificationsTestBase):
    """``nova-lite-manage notifications listen`` prints them as they come."""

    def _listen(self, **kwargs):
        args = argparse.Namespace(topic=None, pool='cli', json=False,
                                  count=2, timeout=30)
        for name, value in kwargs.items():
            setattr(args, name, value)
        out = io.StringIO()
        done = threading.Thread(target=manage_notifications.listen,
                                args=(args, out))
        done.start()
        return done, out

    def test_json_lines(self):
        done, out = self._listen(json=True)
        server = self.boot('ACTIVE')
        done.join(30)
        lines = [json.loads(line) for line in out.getvalue().splitlines()]
        self.assertEqual(['scheduler.select_destinations.start',
                          'scheduler.select_destinations.end'],
                         [n['event_type'] for n in lines])
        self.assertEqual(server['id'], lines[0]['payload'][
            'nova_object.data']['instance_uuid'])

    def test_one_line_each(self):
        done, out = self._listen(count=1, topic=['versioned_notifications'])
        self.admin_api.put('/os-services/disable',
                           {'host': 'host2', 'binary': 'nova-compute'},
                           version='2.1')
        done.join(30)
        line = out.getvalue().strip()
        self.assertRegex(line, r'^\S+ INFO nova-compute:host2 service.update '
                         r'ServiceStatusPayload \S+ req-\S+$')
