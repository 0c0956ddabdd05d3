"""Soft delete with reclaim, power-update events and the usage audit over
a bus that carries JSON only, as RabbitMQ does.

The fake transport of the functional tests checks that a message could
be serialized but hands the original Python objects over; here every
message (and every reply) goes through JSON first, so a datetime or an
object that would not survive a real bus breaks the test.
"""

import datetime

import fixtures
from oslo_messaging._drivers import impl_fake
from oslo_serialization import jsonutils
from oslo_utils import timeutils

from nova_lite import context as nl_context
from tests.functional.api_extras import test_server_subresources as base

TINY = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}


def _json(value):
    return jsonutils.loads(jsonutils.dumps(value))


class JsonBusTest(base.ServerSubresourceBase):

    FLAGS = {'DEFAULT': {'reclaim_instance_interval': 3600}}

    def setUp(self):
        real_send = impl_fake.FakeDriver._send

        def send(driver, target, ctxt, message, *args, **kwargs):
            reply = real_send(driver, target, _json(ctxt), _json(message),
                              *args, **kwargs)
            return _json(reply)

        self.useFixture(fixtures.MonkeyPatch(
            'oslo_messaging._drivers.impl_fake.FakeDriver._send', send))
        super().setUp()

    def test_soft_delete_restore_and_reclaim(self):
        node = self.server['OS-EXT-SRV-ATTR:hypervisor_hostname']
        self.assertEqual(204, self.api.delete('/servers/%s'
                                              % self.sid).status)
        self.cloud.wait_for_server(self.sid, 'SOFT_DELETED')
        self.assertEqual(TINY, self.usage(node))
        self.api.post('/servers/%s/action' % self.sid, {'restore': None})
        self.cloud.wait_for_server(self.sid, 'ACTIVE')
        self.api.delete('/servers/%s' % self.sid)
        self.cloud.wait_for_server(self.sid, 'SOFT_DELETED')
        compute = self.cloud.computes['host1'].manager
        self.cloud.conf.flags(reclaim_instance_interval=1)
        timeutils.set_time_override(
            timeutils.utcnow() + datetime.timedelta(seconds=5))
        self.addCleanup(timeutils.clear_time_override)
        self.assertEqual(1, compute.reclaim_queued_deletes(
            nl_context.get_admin_context()))
        timeutils.clear_time_override()
        self.cloud.wait_until_deleted(self.sid)
        self.assertEqual({}, self.cloud.allocations(self.sid))

    def test_power_update_and_diagnostics(self):
        r = self.admin_api.post('/os-server-external-events', {'events': [
            {'name': 'power-update', 'server_uuid': self.sid,
             'tag': 'POWER_OFF'}]})
        self.assertEqual(200, r.status, r)
        self.cloud.wait_for_server(self.sid, 'SHUTOFF')
        self.assertEqual(409, self.admin_api.get(
            '/servers/%s/diagnostics' % self.sid).status)

    def test_usage_audit(self):
        compute = self.cloud.computes['host1'].manager
        self.assertTrue(compute.instance_usage_audit(
            nl_context.get_admin_context()))
        log = self.admin_api.get('/os-instance_usage_audit_log').body[
            'instance_usage_audit_logs']
        self.assertEqual('ALL hosts done. 0 errors.', log['overall_status'])
