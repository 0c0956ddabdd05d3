"""The network service's read-only catalogues: extensions (exactly what
is served), availability zones, network IP availability and service
providers, as openstacksdk's functional tests call them."""

from tests.functional.api import fixtures as api_fixtures
from tests.functional.network import base

ADMIN = api_fixtures.ADMIN
MEMBER = api_fixtures.MEMBER
N = '/network/v2.0'


class CatalogTest(base.NetworkTestCase):

    def test_extensions_list_and_show(self):
        listed = self.call('GET', '/extensions')['extensions']
        aliases = [e['alias'] for e in listed]
        for alias in ('standard-attr-tag', 'quotas', 'quota_details',
                      'availability_zone', 'network-ip-availability',
                      'service-type', 'security-group', 'binding',
                      'rbac-policies', 'agent', 'l3_agent_scheduler',
                      'dhcp_agent_scheduler', 'trunk', 'trunk-details'):
            self.assertIn(alias, aliases)
        self.assertEqual(len(aliases), len(set(aliases)))
        self.assertEqual({'alias', 'name', 'description', 'updated',
                          'links'}, set(listed[0]))
        shown = self.call('GET', '/extensions/quotas')['extension']
        self.assertEqual('quotas', shown['alias'])
        self.call('GET', '/extensions/router-nope', status=404)

    def test_availability_zones(self):
        zones = self.call('GET', '/availability_zones')['availability_zones']
        self.assertEqual({('nova', 'network'), ('nova', 'router')},
                         {(z['name'], z['resource']) for z in zones})
        only = self.call('GET', '/availability_zones?resource=network')
        self.assertEqual(1, len(only['availability_zones']))

    def test_service_providers_are_the_l3_ones(self):
        listed = self.call('GET', '/service-providers')['service_providers']
        self.assertEqual(
            [('L3_ROUTER_NAT', 'single_node', True),
             ('L3_ROUTER_NAT', 'ha', False), ('L3_ROUTER_NAT', 'dvr', False),
             ('L3_ROUTER_NAT', 'dvrha', False)],
            [(p['service_type'], p['name'], p['default']) for p in listed])
        only = self.call('GET', '/service-providers?name=ha')
        self.assertEqual(['ha'], [p['name'] for p in
                                  only['service_providers']])
        self.assertEqual([], self.call(
            'GET', '/service-providers?service_type=LOADBALANCERV2')[
            'service_providers'])
        aliases = [e['alias'] for e in self.call('GET', '/extensions')[
            'extensions']]
        self.assertIn('l3-ha', aliases)

    def test_network_ip_availability(self):
        net = self.call('POST', '/networks', {'network': {'name': 'n'}},
                        status=201)['network']
        subnet = self.call('POST', '/subnets', {'subnet': {
            'network_id': net['id'], 'cidr': '10.0.0.0/29',
            'ip_version': 4}}, status=201)['subnet']
        self.call('POST', '/ports', {'port': {'network_id': net['id']}},
                  status=201)
        self.call('GET', '/network-ip-availabilities', status=403)
        shown = self.call('GET', '/network-ip-availabilities/%s'
                          % net['id'], token=ADMIN)
        item = shown['network_ip_availability']
        self.assertEqual((5, 1), (item['total_ips'], item['used_ips']))
        self.assertEqual(subnet['id'],
                         item['subnet_ip_availability'][0]['subnet_id'])
        listed = self.call('GET', '/network-ip-availabilities?ip_version=4'
                           '&network_name=n', token=ADMIN)
        self.assertEqual([net['id']], [
            i['network_id'] for i in listed['network_ip_availabilities']])
        none = self.call('GET', '/network-ip-availabilities?ip_version=6',
                         token=ADMIN)['network_ip_availabilities']
        self.assertNotIn(net['id'], [i['network_id'] for i in none])
