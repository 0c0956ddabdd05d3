"""Neutron's subnet pools and address scopes: CRUD, subnets cut from a
pool by prefix length or named CIDR, and what stays in use."""

from tests.functional.api import fixtures as api_fixtures
from tests.functional.network import base

ADMIN = api_fixtures.ADMIN
MEMBER = api_fixtures.MEMBER
OTHER = api_fixtures.OTHER
N = '/network/v2.0'


class SubnetPoolsTest(base.NetworkTestCase):

    def test_pool_defaults_and_subnets_from_it(self):
        pool = self.call('POST', '/subnetpools', {'subnetpool': {
            'name': 'p', 'prefixes': ['10.10.0.0/16'],
            'default_prefixlen': 24}}, status=201)['subnetpool']
        self.assertEqual((4, 8, 32, 24), (
            pool['ip_version'], pool['min_prefixlen'],
            pool['max_prefixlen'], pool['default_prefixlen']))
        net = self.call('POST', '/networks', {'network': {'name': 'n'}},
                        status=201)['network']

        def subnet(**values):
            return self.call('POST', '/subnets', {'subnet': dict(
                network_id=net['id'], ip_version=4,
                subnetpool_id=pool['id'], **values)}, status=201)['subnet']

        first = subnet()
        self.assertEqual('10.10.0.0/24', first['cidr'])
        self.assertEqual(pool['id'], first['subnetpool_id'])
        self.assertEqual('10.10.1.0/26', subnet(prefixlen=26)['cidr'])
        self.assertEqual('10.10.1.64/26', subnet(prefixlen=26)['cidr'])
        self.assertEqual('10.10.9.0/24',
                         subnet(cidr='10.10.9.0/24')['cidr'])
        self.call('POST', '/subnets', {'subnet': {
            'network_id': net['id'], 'ip_version': 4,
            'subnetpool_id': pool['id'], 'cidr': '10.10.0.0/25'}},
            status=409)
        self.call('POST', '/subnets', {'subnet': {
            'network_id': net['id'], 'ip_version': 4,
            'subnetpool_id': pool['id'], 'prefixlen': 4}}, status=400)
        self.call('DELETE', '/subnetpools/%s' % pool['id'], status=409)
        grown = self.call('PUT', '/subnetpools/%s' % pool['id'], {
            'subnetpool': {'prefixes': ['10.10.0.0/15']}})['subnetpool']
        self.assertEqual(['10.10.0.0/15'], grown['prefixes'])
        self.call('PUT', '/subnetpools/%s' % pool['id'], {
            'subnetpool': {'prefixes': ['10.20.0.0/16']}}, status=400)
        self.call('GET', '/subnetpools/%s' % pool['id'], token=OTHER,
                  status=404)

    def test_address_scopes(self):
        scope = self.call('POST', '/address-scopes', {'address_scope': {
            'name': 's', 'ip_version': 6}}, status=201)['address_scope']
        self.call('POST', '/address-scopes', {'address_scope': {
            'name': 's', 'ip_version': 4, 'shared': True}}, status=403)
        self.call('POST', '/subnetpools', {'subnetpool': {
            'name': 'p', 'prefixes': ['10.0.0.0/8'],
            'address_scope_id': scope['id']}}, status=400)
        pool = self.call('POST', '/subnetpools', {'subnetpool': {
            'name': 'p6', 'prefixes': ['2001:db8::/48'],
            'address_scope_id': scope['id']}}, status=201)['subnetpool']
        self.assertEqual((64, 128), (pool['min_prefixlen'],
                                     pool['max_prefixlen']))
        self.call('DELETE', '/address-scopes/%s' % scope['id'],
                  status=409)
        self.call('DELETE', '/subnetpools/%s' % pool['id'], status=204)
        self.call('PUT', '/address-scopes/%s' % scope['id'],
                  {'address_scope': {'name': 'renamed'}})
        self.call('DELETE', '/address-scopes/%s' % scope['id'],
                  status=204)
        shared = self.call('POST', '/address-scopes', {'address_scope': {
            'name': 'sh', 'ip_version': 4, 'shared': True}},
            token=ADMIN, status=201)['address_scope']
        listed = self.call('GET', '/address-scopes', token=OTHER)
        self.assertIn(shared['id'], [s['id'] for s in
                                     listed['address_scopes']])

    def test_default_subnet_pools(self):
        net = self.call('POST', '/networks', {'network': {'name': 'n'}},
                        status=201)['network']

        def subnet(status=201, **values):
            return self.call('POST', '/subnets', {'subnet': dict(
                network_id=net['id'], **values)}, status=status)

        # no default yet
        error = subnet(status=400, ip_version=4, use_default_subnetpool=True)
        self.assertIn('No default subnetpool found for IPv4',
                      error['NeutronError']['message'])
        # only an admin marks the default
        self.call('POST', '/subnetpools', {'subnetpool': {
            'name': 'd', 'prefixes': ['10.30.0.0/16'], 'is_default': True}},
            status=403)
        pool = self.call('POST', '/subnetpools', {'subnetpool': {
            'name': 'd4', 'prefixes': ['10.30.0.0/16'], 'is_default': True,
            'shared': True, 'default_prefixlen': 24}}, token=ADMIN,
            status=201)['subnetpool']
        self.assertTrue(pool['is_default'])
        made = subnet(ip_version=4, use_default_subnetpool=True)['subnet']
        self.assertEqual(('10.30.0.0/24', pool['id']),
                         (made['cidr'], made['subnetpool_id']))
        self.assertNotIn('use_default_subnetpool', made)
        made = subnet(ip_version=4, use_default_subnetpool='true',
                      prefixlen=26)['subnet']
        self.assertEqual('10.30.1.0/26', made['cidr'])
        # IPv6 has its own default; naming a pool too; no IP version
        subnet(status=400, ip_version=6, use_default_subnetpool=True)
        subnet(status=400, ip_version=4, use_default_subnetpool=True,
               subnetpool_id=pool['id'])
        subnet(status=400, use_default_subnetpool=True)
        subnet(status=400, ip_version=4, use_default_subnetpool='maybe')
        # one default per IP version, on create and on update
        self.call('POST', '/subnetpools', {'subnetpool': {
            'name': 'd4b', 'prefixes': ['10.40.0.0/16'],
            'is_default': True}}, token=ADMIN, status=400)
        other = self.call('POST', '/subnetpools', {'subnetpool': {
            'name': 'o', 'prefixes': ['10.50.0.0/16']}}, token=ADMIN,
            status=201)['subnetpool']
        self.call('PUT', '/subnetpools/%s' % other['id'], {'subnetpool': {
            'is_default': True}}, token=ADMIN, status=400)
        self.call('POST', '/subnetpools', {'subnetpool': {
            'name': 'd6', 'prefixes': ['2001:db8::/48'],
            'is_default': True}}, token=ADMIN, status=201)
        self.call('PUT', '/subnetpools/%s' % pool['id'], {'subnetpool': {
            'is_default': False}}, token=ADMIN)
        self.call('PUT', '/subnetpools/%s' % other['id'], {'subnetpool': {
            'is_default': True}}, token=ADMIN)
