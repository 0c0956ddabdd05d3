"""RBAC policies: sharing a network (or subnet pool, address scope,
security group) with one project or every project, and what that lets
the project do; who may write policies; policies in use."""

from tests.functional.api import fixtures as api_fixtures
from tests.functional.network import base

ADMIN = api_fixtures.ADMIN
MEMBER = api_fixtures.MEMBER          # alice:proj-a
OTHER = api_fixtures.OTHER            # bob:proj-b


class RBACTest(base.NetworkTestCase):

    def setUp(self):
        super().setUp()
        self.net = self.call('POST', '/networks', {'network': {
            'name': 'a-net'}}, status=201)['network']
        self.call('POST', '/subnets', {'subnet': {
            'network_id': self.net['id'], 'cidr': '10.1.0.0/24'}},
            status=201)

    def share(self, target, action='access_as_shared', token=MEMBER,
              status=201, object_id=None, object_type='network'):
        return self.call('POST', '/rbac-policies', {'rbac_policy': {
            'object_type': object_type,
            'object_id': object_id or self.net['id'], 'action': action,
            'target_tenant': target}}, token=token, status=status)

    def visible_to_other(self):
        return [n['id'] for n in self.call('GET', '/networks',
                                           token=OTHER)['networks']]

    def test_share_with_one_project(self):
        self.assertNotIn(self.net['id'], self.visible_to_other())
        made = self.share('proj-b')['rbac_policy']
        self.assertEqual({'id', 'object_type', 'object_id', 'action',
                          'target_tenant', 'project_id', 'tenant_id'},
                         set(made))
        self.assertEqual('proj-a', made['project_id'])
        self.assertIn(self.net['id'], self.visible_to_other())
        shown = self.call('GET', '/networks/%s' % self.net['id'],
                          token=OTHER)['network']
        self.assertTrue(shown['shared'])
        # the owner's view: not shared with everybody
        self.assertFalse(self.call('GET', '/networks/%s' % self.net['id'])[
            'network']['shared'])
        # bob may put a port on it and see its subnet
        self.call('POST', '/ports', {'port': {
            'network_id': self.net['id']}}, token=OTHER, status=201)
        subnets = self.call('GET', '/subnets', token=OTHER)['subnets']
        self.assertEqual(['10.1.0.0/24'], [s['cidr'] for s in subnets])

    def test_policies_are_their_projects(self):
        made = self.share('proj-b')['rbac_policy']
        listed = self.call('GET', '/rbac-policies')['rbac_policies']
        self.assertEqual([made['id']], [p['id'] for p in listed])
        self.assertEqual([], self.call('GET', '/rbac-policies',
                                       token=OTHER)['rbac_policies'])
        self.call('GET', '/rbac-policies/%s' % made['id'], token=OTHER,
                  status=404)
        self.call('DELETE', '/rbac-policies/%s' % made['id'], token=OTHER,
                  status=404)
        self.call('GET', '/rbac-policies/%s' % made['id'], token=ADMIN)
        body = self.call('GET', '/rbac-policies/nope', status=404)
        self.assertEqual('RbacPolicyNotFound', body['NeutronError']['type'])

    def test_only_the_owner_or_an_admin_shares(self):
        body = self.share('proj-b', token=OTHER, status=404)
        self.assertEqual('NetworkNotFound', body['NeutronError']['type'])
        self.share('proj-b')
        # bob sees the network now, but may not share it further
        body = self.share('proj-c', token=OTHER, status=400)
        self.assertIn('Only admins', body['NeutronError']['message'])
        self.share('proj-c', token=ADMIN)

    def test_wildcard_is_the_admins_and_means_shared(self):
        body = self.share('*', status=403)
        self.assertEqual('PolicyNotAuthorized',
                         body['NeutronError']['type'])
        made = self.share('*', token=ADMIN)['rbac_policy']
        self.assertTrue(self.call('GET', '/networks/%s' % self.net['id'])[
            'network']['shared'])
        self.assertIn(self.net['id'], self.visible_to_other())
        self.call('DELETE', '/rbac-policies/%s' % made['id'], token=ADMIN,
                  status=204)
        self.assertFalse(self.call('GET', '/networks/%s' % self.net['id'])[
            'network']['shared'])
        self.assertNotIn(self.net['id'], self.visible_to_other())

    def test_shared_attribute_makes_and_drops_the_wildcard(self):
        self.call('PUT', '/networks/%s' % self.net['id'],
                  {'network': {'shared': True}}, token=ADMIN)
        policies = self.call('GET', '/rbac-policies',
                             token=ADMIN)['rbac_policies']
        self.assertEqual([('*', 'access_as_shared', 'proj-a')],
                         [(p['target_tenant'], p['action'],
                           p['project_id']) for p in policies])
        self.call('PUT', '/networks/%s' % self.net['id'],
                  {'network': {'shared': False}}, token=ADMIN)
        self.assertEqual([], self.call('GET', '/rbac-policies',
                                       token=ADMIN)['rbac_policies'])

    def test_unsharing_a_network_in_use_is_refused(self):
        self.call('PUT', '/networks/%s' % self.net['id'],
                  {'network': {'shared': True}}, token=ADMIN)
        self.call('POST', '/ports', {'port': {
            'network_id': self.net['id']}}, token=OTHER, status=201)
        body = self.call('PUT', '/networks/%s' % self.net['id'],
                         {'network': {'shared': False}}, token=ADMIN,
                         status=409)
        self.assertEqual('RbacPolicyInUse', body['NeutronError']['type'])
        self.assertTrue(self.call('GET', '/networks/%s' % self.net['id'])[
            'network']['shared'])

    def test_no_longer_external_drops_every_external_policy(self):
        self.share('proj-b', action='access_as_external', token=ADMIN)
        self.call('PUT', '/networks/%s' % self.net['id'],
                  {'network': {'router:external': False}}, token=ADMIN)
        self.assertEqual([], self.call('GET', '/rbac-policies',
                                       token=ADMIN)['rbac_policies'])
        self.assertNotIn(self.net['id'], self.visible_to_other())

    def test_policy_in_use_cannot_go(self):
        made = self.share('proj-b')['rbac_policy']
        port = self.call('POST', '/ports', {'port': {
            'network_id': self.net['id']}}, token=OTHER,
            status=201)['port']
        body = self.call('DELETE', '/rbac-policies/%s' % made['id'],
                         status=409)
        self.assertEqual('RbacPolicyInUse', body['NeutronError']['type'])
        body = self.call('PUT', '/rbac-policies/%s' % made['id'],
                         {'rbac_policy': {'target_tenant': 'proj-c'}},
                         status=409)
        # another policy covering bob frees this one
        self.share('*', token=ADMIN)
        self.call('DELETE', '/rbac-policies/%s' % made['id'], status=204)
        self.call('DELETE', '/ports/%s' % port['id'], token=OTHER,
                  status=204)

    def test_retarget(self):
        made = self.share('proj-b')['rbac_policy']
        updated = self.call('PUT', '/rbac-policies/%s' % made['id'],
                            {'rbac_policy': {'target_tenant': 'proj-c'}})
        self.assertEqual('proj-c', updated['rbac_policy']['target_tenant'])
        self.assertNotIn(self.net['id'], self.visible_to_other())
        self.call('PUT', '/rbac-policies/%s' % made['id'],
                  {'rbac_policy': {'target_tenant': '*'}}, status=403)
        self.call('PUT', '/rbac-policies/%s' % made['id'],
                  {'rbac_policy': {'object_id': 'x'}}, status=400)

    def test_bad_requests(self):
        self.share('proj-b')
        body = self.share('proj-b', status=409)
        self.assertEqual('DuplicateRbacPolicy',
                         body['NeutronError']['type'])
        self.share('proj-b', action='access_as_owner', status=400)
        self.share('proj-b', object_type='port', status=400)
        self.share('proj-b', object_type='subnetpool',
                   action='access_as_external', status=400)
        self.call('POST', '/rbac-policies', {'rbac_policy': {
            'object_type': 'network', 'action': 'access_as_shared',
            'target_tenant': 'proj-b'}}, status=400)
        self.share('proj-b', object_id='no-such-network', status=404)

    def test_external_to_one_project(self):
        made = self.share('proj-b', action='access_as_external',
                          token=ADMIN)['rbac_policy']
        shown = self.call('GET', '/networks/%s' % self.net['id'],
                          token=OTHER)['network']
        self.assertTrue(shown['router:external'])
        self.assertFalse(shown['shared'])
        fip = self.call('POST', '/floatingips', {'floatingip': {
            'floating_network_id': self.net['id']}}, token=OTHER,
            status=201)['floatingip']
        body = self.call('DELETE', '/rbac-policies/%s' % made['id'],
                         token=ADMIN, status=409)
        self.assertEqual('RbacPolicyInUse', body['NeutronError']['type'])
        self.call('DELETE', '/floatingips/%s' % fip['id'], token=OTHER,
                  status=204)
        self.call('DELETE', '/rbac-policies/%s' % made['id'], token=ADMIN,
                  status=204)
        self.assertNotIn(self.net['id'], self.visible_to_other())
        self.assertFalse(self.call('GET', '/networks/%s' % self.net['id'])[
            'network']['router:external'])

    def test_network_delete_takes_its_policies(self):
        self.share('proj-b')
        self.call('DELETE', '/networks/%s' % self.net['id'], status=204)
        self.assertEqual([], self.call('GET', '/rbac-policies')[
            'rbac_policies'])

    def test_share_a_security_group(self):
        group = self.call('POST', '/security-groups', {'security_group': {
            'name': 'web'}}, status=201)['security_group']
        self.call('GET', '/security-groups/%s' % group['id'], token=OTHER,
                  status=404)
        self.share('proj-b', object_type='security_group',
                   object_id=group['id'])
        shown = self.call('GET', '/security-groups/%s' % group['id'],
                          token=OTHER)['security_group']
        self.assertTrue(shown['shared'])
        self.assertIn(group['id'], [g['id'] for g in self.call(
            'GET', '/security-groups', token=OTHER)['security_groups']])

    def test_share_a_subnet_pool(self):
        pool = self.call('POST', '/subnetpools', {'subnetpool': {
            'name': 'p', 'prefixes': ['10.9.0.0/16'],
            'default_prefixlen': 24}}, status=201)['subnetpool']
        self.call('GET', '/subnetpools/%s' % pool['id'], token=OTHER,
                  status=404)
        self.share('proj-b', object_type='subnetpool', object_id=pool['id'])
        self.call('GET', '/subnetpools/%s' % pool['id'], token=OTHER)
