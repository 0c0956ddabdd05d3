"""Neutron's quotas and quota_details: the limits an admin sets, the
defaults, usage, and the 409 OverQuota on create."""

from tests.functional.api import fixtures as api_fixtures
from tests.functional.network import base

ADMIN = api_fixtures.ADMIN
MEMBER = api_fixtures.MEMBER          # alice:proj-a
OTHER = api_fixtures.OTHER            # bob:proj-b
N = '/network/v2.0'


class QuotasTest(base.NetworkTestCase):

    def test_defaults_set_show_details_and_reset(self):
        quota = self.call('GET', '/quotas/proj-a')['quota']
        self.assertEqual(100, quota['network'])
        self.assertEqual(500, quota['port'])
        self.assertEqual(quota, self.call(
            'GET', '/quotas/proj-a/default')['quota'])
        self.call('GET', '/quotas/proj-b', status=403)
        self.call('PUT', '/quotas/proj-a', {'quota': {'network': 1}},
                  status=403)
        self.call('GET', '/quotas', status=403)
        body = self.call('PUT', '/quotas/proj-a',
                         {'quota': {'network': 1}}, token=ADMIN)
        self.assertEqual(1, body['quota']['network'])
        listed = self.call('GET', '/quotas', token=ADMIN)['quotas']
        self.assertEqual(['proj-a'], [q['project_id'] for q in listed])
        self.call('POST', '/networks', {'network': {'name': 'a'}},
                  status=201)
        over = self.call('POST', '/networks', {'network': {'name': 'b'}},
                         status=409)
        self.assertEqual('OverQuota', over['NeutronError']['type'])
        details = self.call('GET', '/quotas/proj-a/details')['quota']
        self.assertEqual({'limit': 1, 'used': 1, 'reserved': 0},
                         details['network'])
        # Another project keeps the defaults.
        self.call('POST', '/networks', {'network': {'name': 'c'}},
                  token=OTHER, status=201)
        self.call('DELETE', '/quotas/proj-a', token=ADMIN, status=204)
        self.call('DELETE', '/quotas/proj-a', token=ADMIN, status=404)
        self.assertEqual(100, self.call(
            'GET', '/quotas/proj-a')['quota']['network'])
        self.call('POST', '/networks', {'network': {'name': 'b'}},
                  status=201)

    def test_bad_values(self):
        for value in ('x', -2, True):
            self.call('PUT', '/quotas/proj-a',
                      {'quota': {'network': value}}, token=ADMIN,
                      status=400)
        self.call('PUT', '/quotas/proj-a', {'quota': {'nope': 1}},
                  token=ADMIN, status=400)

    def test_security_group_rules_counted(self):
        self.call('PUT', '/quotas/proj-a',
                  {'quota': {'security_group_rule': 6}}, token=ADMIN)
        group = self.call('POST', '/security-groups', {'security_group': {
            'name': 'g'}}, status=201)['security_group']
        # default group: 4 rules, this group: 2 egress rules.
        over = self.call('POST', '/security-group-rules', {
            'security_group_rule': {'security_group_id': group['id'],
                                    'direction': 'ingress'}},
            status=409)
        self.assertIn("['security_group_rule']",
                      over['NeutronError']['message'])

    def test_body_may_echo_the_project(self):
        # openstacksdk's update_quota may send the project it updates.
        body = self.call('PUT', '/quotas/proj-c', {'quota': {
            'network': 7, 'project_id': 'proj-c'}}, token=ADMIN)
        self.assertEqual(7, body['quota']['network'])

    def test_check_limit(self):
        aliases = {e['alias'] for e in self.call('GET', '/extensions')[
            'extensions']}
        self.assertIn('quota-check-limit', aliases)
        for name in ('a', 'b'):
            self.call('POST', '/networks', {'network': {'name': name}},
                      status=201)
        # below the usage with check_limit: Neutron's 400, nothing set
        refused = self.call('PUT', '/quotas/proj-a', {'quota': {
            'network': 1, 'port': 3, 'check_limit': True}}, token=ADMIN,
            status=400)
        self.assertIn('Quota limit 1 for network must be greater than or '
                      'equal to already used 2',
                      refused['NeutronError']['message'])
        self.assertEqual(100, self.call(
            'GET', '/quotas/proj-a')['quota']['network'])
        self.assertEqual([], self.call('GET', '/quotas',
                                       token=ADMIN)['quotas'])
        # at the usage, unlimited, forced or unchecked: set
        for values in ({'network': 2, 'check_limit': True},
                       {'network': -1, 'check_limit': 'true'},
                       {'network': 1, 'check_limit': True, 'force': True},
                       {'network': 1}):
            quota = self.call('PUT', '/quotas/proj-a', {'quota': values},
                              token=ADMIN)['quota']
            self.assertEqual(values['network'], quota['network'])
        self.call('PUT', '/quotas/proj-a', {'quota': {
            'network': 5, 'check_limit': 'sometimes'}}, token=ADMIN,
            status=400)
        self.assertEqual(1, self.call(
            'GET', '/quotas/proj-a')['quota']['network'])
