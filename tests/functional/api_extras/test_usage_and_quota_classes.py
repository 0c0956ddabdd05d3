"""os-simple-tenant-usage, os-instance_usage_audit_log and
os-quota-class-sets as a Nova user sees them."""

import datetime

from oslo_utils import timeutils

from nova_lite import context as nl_context
from tests.functional.api_extras import test_server_subresources as base
from tests.functional import test_servers

FMT = '%Y-%m-%dT%H:%M:%S'


class SimpleTenantUsageTest(base.ServerSubresourceBase):

    def window(self):
        start = (timeutils.utcnow() - datetime.timedelta(hours=1))
        end = (timeutils.utcnow() + datetime.timedelta(hours=1))
        return 'start=%s&end=%s' % (start.strftime(FMT), end.strftime(FMT))

    def test_index_and_show(self):
        r = self.admin_api.get('/os-simple-tenant-usage?detailed=1&'
                               + self.window())
        self.assertEqual(200, r.status, r)
        (usage,) = r.body['tenant_usages']
        self.assertEqual('demo-project', usage['tenant_id'])
        (server,) = usage['server_usages']
        self.assertEqual(self.sid, server['instance_id'])
        self.assertEqual((1, 512, 1, 'active'), (
            server['vcpus'], server['memory_mb'], server['local_gb'],
            server['state']))
        self.assertGreater(usage['total_hours'], 0)
        self.assertAlmostEqual(usage['total_hours'] * 512,
                               usage['total_memory_mb_usage'])
        r = self.admin_api.get('/os-simple-tenant-usage?' + self.window())
        self.assertNotIn('server_usages', r.body['tenant_usages'][0])
        r = self.api.get('/os-simple-tenant-usage/demo-project?'
                         + self.window())
        self.assertEqual(200, r.status, r)
        self.assertEqual(1, len(r.body['tenant_usage']['server_usages']))
        r = self.api.get('/os-simple-tenant-usage/other?' + self.window(),
                         token='eve:other')
        self.assertEqual({'tenant_usage': {}}, r.body)

    def test_deleted_server_counts_as_terminated(self):
        self.delete_and_check_no_allocations(self.sid)
        r = self.admin_api.get('/os-simple-tenant-usage?detailed=1&'
                               + self.window())
        (server,) = r.body['tenant_usages'][0]['server_usages']
        self.assertEqual('terminated', server['state'])
        self.assertIsNotNone(server['ended_at'])

    def test_paging_at_2_40(self):
        other = self.boot('ACTIVE', name='two')['id']
        r = self.admin_api.get('/os-simple-tenant-usage?detailed=1&limit=1&'
                               + self.window(), version='2.40')
        self.assertEqual(200, r.status, r)
        first = r.body['tenant_usages'][0]['server_usages'][0]
        (link,) = r.body['tenant_usages_links']
        self.assertIn('marker=%s' % first['instance_id'], link['href'])
        r = self.admin_api.get('/os-simple-tenant-usage?detailed=1&limit=1&'
                               'marker=%s&%s' % (first['instance_id'],
                                                 self.window()),
                               version='2.40')
        second = r.body['tenant_usages'][0]['server_usages'][0]
        self.assertEqual(sorted([self.sid, other]),
                         sorted([first['instance_id'],
                                 second['instance_id']]))
        r = self.admin_api.get('/os-simple-tenant-usage?marker=nope',
                               version='2.40')
        self.assertEqual(400, r.status)

    def test_bad_times_and_policy(self):
        self.assertEqual(400, self.admin_api.get(
            '/os-simple-tenant-usage?start=yesterday').status)
        self.assertEqual(400, self.admin_api.get(
            '/os-simple-tenant-usage?start=2030-01-02T00:00:00&'
            'end=2030-01-01T00:00:00').status)
        self.assertEqual(403, self.api.get('/os-simple-tenant-usage').status)


class UsageAuditLogTest(test_servers.ServersTestBase):

    COMPUTES = ('host1', 'host2')

    def test_no_audit_recorded(self):
        r = self.admin_api.get('/os-instance_usage_audit_log')
        self.assertEqual(200, r.status, r)
        log = r.body['instance_usage_audit_logs']
        self.assertEqual(2, log['num_hosts'])
        self.assertEqual(['host1', 'host2'], log['hosts_not_run'])
        self.assertEqual('0 of 2 hosts done. 0 errors.',
                         log['overall_status'])
        self.assertEqual({}, log['log'])
        self.assertEqual(403, self.api.get(
            '/os-instance_usage_audit_log').status)

    def test_audit_runs_recorded_by_the_computes(self):
        context = nl_context.get_admin_context()
        for compute in self.cloud.computes.values():
            self.assertTrue(compute.manager.instance_usage_audit(context))
            self.assertFalse(compute.manager.instance_usage_audit(context))
        log = self.admin_api.get('/os-instance_usage_audit_log').body[
            'instance_usage_audit_logs']
        self.assertEqual('ALL hosts done. 0 errors.', log['overall_status'])
        self.assertEqual('DONE', log['log']['host1']['state'])
        self.assertEqual([], log['hosts_not_run'])

    def test_show_before_a_time(self):
        r = self.admin_api.get(
            '/os-instance_usage_audit_log/2026-03-15 10:00:00')
        self.assertEqual(200, r.status, r)
        log = r.body['instance_usage_audit_log']
        self.assertEqual(('2026-02-01 00:00:00', '2026-03-01 00:00:00'),
                         (log['period_beginning'], log['period_ending']))
        r = self.admin_api.get(
            '/os-instance_usage_audit_log/2026-01-01 00:00:00.000001')
        log = r.body['instance_usage_audit_log']
        self.assertEqual('2025-12-01 00:00:00', log['period_beginning'])
        self.assertEqual(400, self.admin_api.get(
            '/os-instance_usage_audit_log/yesterday').status)
        # As clients send it: the space URL-encoded.
        r = self.admin_api.get(
            '/os-instance_usage_audit_log/2026-03-15%2010:00:00')
        self.assertEqual('2026-02-01 00:00:00', r.body[
            'instance_usage_audit_log']['period_beginning'])


class QuotaClassSetsTest(test_servers.ServersTestBase):

    COMPUTES = ()

    def test_show_keys_per_microversion(self):
        r = self.admin_api.get('/os-quota-class-sets/default', version='2.1')
        self.assertEqual(200, r.status, r)
        body = r.body['quota_class_set']
        self.assertEqual('default', body['id'])
        self.assertEqual(-1, body['floating_ips'])
        self.assertIn('injected_file_path_bytes', body)
        self.assertNotIn('server_groups', body)
        body = self.admin_api.get('/os-quota-class-sets/default',
                                  version='2.50').body['quota_class_set']
        self.assertNotIn('floating_ips', body)
        self.assertEqual(10, body['server_groups'])
        body = self.admin_api.get('/os-quota-class-sets/default',
                                  version='2.57').body['quota_class_set']
        self.assertEqual(set(['id', 'instances', 'cores', 'ram',
                              'metadata_items', 'key_pairs', 'server_groups',
                              'server_group_members']), set(body))

    def test_update_default_changes_project_defaults(self):
        r = self.admin_api.put('/os-quota-class-sets/default',
                               {'quota_class_set': {'instances': 42}},
                               version='2.57')
        self.assertEqual(200, r.status, r)
        self.assertNotIn('id', r.body['quota_class_set'])
        self.assertEqual(42, r.body['quota_class_set']['instances'])
        r = self.admin_api.get('/os-quota-sets/p1/defaults')
        self.assertEqual(42, r.body['quota_set']['instances'])
        r = self.admin_api.get('/os-quota-sets/p1')
        self.assertEqual(42, r.body['quota_set']['instances'])

    def test_bad_updates(self):
        path = '/os-quota-class-sets/default'
        self.assertEqual(400, self.admin_api.put(
            path, {'quota_class_set': {'floating_ips': 1}},
            version='2.50').status)
        self.assertEqual(400, self.admin_api.put(
            path, {'quota_class_set': {'instances': -2}}).status)
        self.assertEqual(400, self.admin_api.put(
            path, {'quota_class_set': {'nope': 1}}).status)
        self.assertEqual(403, self.api.put(
            path, {'quota_class_set': {'instances': 1}}).status)
        self.assertEqual(403, self.api.get(path).status)

    def test_limits_given_as_digits_past_the_integer_range(self):
        # Nova's schemas take a limit as a number or as digits; digits
        # past what the database holds are a 400 and nothing is written,
        # in the class and in a project's set alike.
        too_big = str(2 ** 31)
        for path, key in (('/os-quota-class-sets/default',
                           'quota_class_set'),
                          ('/os-quota-sets/p1', 'quota_set')):
            r = self.admin_api.put(path, {key: {
                'cores': 7, 'instances': too_big}})
            self.assertEqual(400, r.status, r)
            self.assertIn('Must be <= 2147483647',
                          r.body['badRequest']['message'])
            r = self.admin_api.put(path, {key: {'cores': '-2'}})
            self.assertEqual(400, r.status, r)
            self.assertIn('Must be >= -1', r.body['badRequest']['message'])
            r = self.admin_api.put(path, {key: {'instances': '2147483647'}})
            self.assertEqual(200, r.status, r)
            self.assertEqual(2147483647, r.body[key]['instances'])
            self.assertNotEqual(7, r.body[key]['cores'])
