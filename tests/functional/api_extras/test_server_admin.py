"""Diagnostics, external events, os-resetState and soft delete as a Nova
user sees them; all services in one process, casts over the fake bus."""

import datetime

from oslo_utils import timeutils

from nova_lite import context as nl_context
from tests.functional.api_extras import test_server_subresources as base

TINY = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}


class DiagnosticsTest(base.ServerSubresourceBase):

    def path(self):
        return '/servers/%s/diagnostics' % self.sid

    def test_standard_format_at_2_48(self):
        r = self.admin_api.get(self.path(), version='2.48')
        self.assertEqual(200, r.status, r)
        self.assertEqual('running', r.body['state'])
        self.assertEqual('libvirt', r.body['driver'])
        self.assertEqual(1, r.body['num_cpus'])
        self.assertEqual(1, len(r.body['cpu_details']))
        self.assertEqual({'maximum': 512, 'used': 0},
                         r.body['memory_details'])
        self.assertEqual(set(['state', 'driver', 'hypervisor',
                              'hypervisor_os', 'uptime', 'config_drive',
                              'num_cpus', 'num_nics', 'num_disks',
                              'cpu_details', 'nic_details', 'disk_details',
                              'memory_details']), set(r.body))

    def test_free_form_before_2_48(self):
        r = self.admin_api.get(self.path(), version='2.47')
        self.assertEqual(200, r.status, r)
        self.assertEqual(512 * 1024, r.body['memory'])
        self.assertIn('cpu0_time', r.body)

    def test_admin_only_and_409_when_stopped(self):
        self.assertEqual(403, self.api.get(self.path()).status)
        self.api.post('/servers/%s/action' % self.sid, {'os-stop': None})
        self.cloud.wait_for_server(self.sid, 'SHUTOFF')
        self.assertEqual(409, self.admin_api.get(self.path()).status)


class ExternalEventsTest(base.ServerSubresourceBase):

    def post(self, events, version='2.76', api=None):
        return (api or self.admin_api).post(
            '/os-server-external-events', {'events': events},
            version=version)

    def test_vif_plugged_accepted(self):
        r = self.post([{'name': 'network-vif-plugged',
                        'server_uuid': self.sid, 'tag': 'port-1'}])
        self.assertEqual(200, r.status, r)
        self.assertEqual([{'name': 'network-vif-plugged',
                           'server_uuid': self.sid, 'tag': 'port-1',
                           'status': 'completed', 'code': 200}],
                         r.body['events'])

    def test_unknown_server_and_missing_tag(self):
        unknown = '11111111-2222-3333-4444-555555555555'
        r = self.post([{'name': 'network-vif-plugged',
                        'server_uuid': unknown},
                       {'name': 'power-update', 'server_uuid': self.sid}])
        self.assertEqual(207, r.status, r)
        self.assertEqual([(404, 'failed'), (400, 'failed')],
                         [(e['code'], e['status'])
                          for e in r.body['events']])
        r = self.post([{'name': 'network-vif-plugged',
                        'server_uuid': unknown}])
        self.assertEqual(207, r.status)
        self.assertEqual(404, r.body['events'][0]['code'])

    def test_power_update_stops_and_starts(self):
        r = self.post([{'name': 'power-update', 'server_uuid': self.sid,
                        'tag': 'POWER_OFF'}])
        self.assertEqual(200, r.status, r)
        self.cloud.wait_for_server(self.sid, 'SHUTOFF')
        r = self.post([{'name': 'power-update', 'server_uuid': self.sid,
                        'tag': 'POWER_ON'}])
        self.assertEqual(200, r.status, r)
        server = self.cloud.wait_for_server(self.sid, 'ACTIVE')
        self.assertEqual(1, server['OS-EXT-STS:power_state'])
        actions = self.admin_api.get('/servers/%s/os-instance-actions'
                                     % self.sid).body['instanceActions']
        self.assertEqual(['create', 'start', 'stop'],
                         sorted(a['action'] for a in actions))
        stop = [a for a in actions if a['action'] == 'stop'][0]
        detail = self.admin_api.get('/servers/%s/os-instance-actions/%s' % (
            self.sid, stop['request_id'])).body['instanceAction']
        self.assertEqual([('compute_power_update', 'Success')],
                         [(e['event'], e['result'])
                          for e in detail['events']])

    def test_power_update_not_before_2_76_and_admin_only(self):
        event = {'name': 'power-update', 'server_uuid': self.sid,
                 'tag': 'POWER_OFF'}
        self.assertEqual(400, self.post([event], version='2.75').status)
        self.assertEqual(403, self.post([event], api=self.api).status)
        self.assertEqual(400, self.admin_api.post(
            '/os-server-external-events', {'events': []}).status)


class ResetStateTest(base.ServerSubresourceBase):

    def test_reset_to_error_and_back(self):
        action = '/servers/%s/action' % self.sid
        r = self.admin_api.post(action, {'os-resetState': {'state': 'error'}})
        self.assertEqual(202, r.status, r)
        self.assertEqual('ERROR', self.cloud.get_server(self.sid)['status'])
        r = self.admin_api.post(action,
                                {'os-resetState': {'state': 'active'}})
        self.assertEqual(202, r.status)
        self.assertEqual('ACTIVE', self.cloud.get_server(self.sid)['status'])
        self.assertEqual(400, self.admin_api.post(
            action, {'os-resetState': {'state': 'stopped'}}).status)
        self.assertEqual(403, self.api.post(
            action, {'os-resetState': {'state': 'error'}}).status)


class SoftDeleteTest(base.ServerSubresourceBase):

    FLAGS = {'DEFAULT': {'reclaim_instance_interval': 3600}}

    def node(self):
        return self.server['OS-EXT-SRV-ATTR:hypervisor_hostname']

    def soft_delete(self):
        self.assertEqual(204, self.api.delete('/servers/%s'
                                              % self.sid).status)
        self.cloud.wait_for_builds()
        return self.cloud.wait_for_server(self.sid, 'SOFT_DELETED')

    def test_soft_delete_keeps_resources_restore_brings_back(self):
        server = self.soft_delete()
        self.assertEqual(4, server['OS-EXT-STS:power_state'])
        self.assertEqual(TINY, self.usage(self.node()))
        self.assertEqual(202, self.api.post(
            '/servers/%s/action' % self.sid, {'restore': None}).status)
        server = self.cloud.wait_for_server(self.sid, 'ACTIVE')
        self.assertEqual(1, server['OS-EXT-STS:power_state'])
        # restore of an active server is a 409
        self.assertEqual(409, self.api.post(
            '/servers/%s/action' % self.sid, {'restore': None}).status)

    def test_force_delete(self):
        self.soft_delete()
        self.assertEqual(202, self.api.post(
            '/servers/%s/action' % self.sid, {'forceDelete': None}).status)
        self.cloud.wait_until_deleted(self.sid)
        self.assertEqual({}, self.cloud.allocations(self.sid))

    def test_reclaim_after_interval(self):
        self.soft_delete()
        compute = self.cloud.computes['host1'].manager
        context = nl_context.get_admin_context()
        self.assertEqual(0, compute.reclaim_queued_deletes(context))
        self.cloud.conf.flags(reclaim_instance_interval=1)
        later = timeutils.utcnow() + datetime.timedelta(seconds=5)
        timeutils.set_time_override(later)
        self.addCleanup(timeutils.clear_time_override)
        self.assertEqual(1, compute.reclaim_queued_deletes(context))
        timeutils.clear_time_override()
        self.cloud.wait_until_deleted(self.sid)
        self.assertEqual({}, self.cloud.allocations(self.sid))

    def test_server_that_never_ran_is_deleted_at_once(self):
        self.fail_every_spawn(abort=True)
        failed = self.boot('ERROR', name='never-ran')['id']
        self.delete_and_check_no_allocations(failed)
