"""Where the network service answers as Neutron does by default: who may
write (members, not readers), the admin-only port binding, subnets of
other projects, and IPv6 addresses per address mode."""

import ipaddress

from tests.functional.api import fixtures as api_fixtures
from tests.functional.network import base

ADMIN = api_fixtures.ADMIN
MEMBER = api_fixtures.MEMBER          # alice:proj-a
OTHER = api_fixtures.OTHER            # bob:proj-b
READER = api_fixtures.READER          # rita:proj-a, reader only


class NeutronDefaultsTest(base.NetworkTestCase):

    def make(self, kind, token=MEMBER, **values):
        return self.call('POST', '/%ss' % kind, {kind: values},
                         token=token, status=201)[kind]

    def test_reader_may_read_but_not_write(self):
        net = self.make('network', name='n')
        body = self.call('POST', '/networks', {'network': {'name': 'r'}},
                         token=READER, status=403)
        self.assertEqual('PolicyNotAuthorized',
                         body['NeutronError']['type'])
        self.assertIn('rule:create_network',
                      body['NeutronError']['message'])
        self.call('PUT', '/networks/%s' % net['id'],
                  {'network': {'name': 'renamed'}}, token=READER,
                  status=403)
        self.call('DELETE', '/networks/%s' % net['id'], token=READER,
                  status=403)
        shown = self.call('GET', '/networks/%s' % net['id'], token=READER)
        self.assertEqual('n', shown['network']['name'])
        self.call('POST', '/security-groups',
                  {'security_group': {'name': 'g'}}, token=READER,
                  status=403)

    def test_binding_is_admin_only_and_hidden_from_members(self):
        net = self.make('network', name='n')
        body = self.call('POST', '/ports', {'port': {
            'network_id': net['id'], 'binding:host_id': 'h1'}},
            status=403)
        self.assertIn('rule:create_port:binding:host_id',
                      body['NeutronError']['message'])
        port = self.make('port', network_id=net['id'])
        self.assertNotIn('binding:host_id', port)
        self.assertNotIn('binding:vif_type', port)
        self.assertIn('binding:vnic_type', port)
        self.call('PUT', '/ports/%s' % port['id'],
                  {'port': {'binding:host_id': 'h1'}}, status=403)
        self.call('PUT', '/ports/%s' % port['id'],
                  {'port': {'binding:host_id': 'h1'}}, token=ADMIN)
        shown = self.call('GET', '/ports/%s' % port['id'],
                          token=ADMIN)['port']
        self.assertEqual('h1', shown['binding:host_id'])
        listed = self.call('GET', '/ports')['ports']
        self.assertNotIn('binding:host_id', listed[0])

    def test_port_on_another_projects_subnet_is_404(self):
        mine = self.make('network', name='n')
        theirs = self.make('network', token=OTHER, name='o')
        subnet = self.make('subnet', token=OTHER, network_id=theirs['id'],
                           cidr='10.9.0.0/24', ip_version=4)
        body = self.call('POST', '/ports', {'port': {
            'network_id': mine['id'],
            'fixed_ips': [{'subnet_id': subnet['id']}]}}, status=404)
        self.assertEqual('SubnetNotFound', body['NeutronError']['type'])
        # A subnet the caller sees, on another network: 400.
        own = self.make('network', name='n2')
        other_subnet = self.make('subnet', network_id=own['id'],
                                 cidr='10.8.0.0/24', ip_version=4)
        self.call('POST', '/ports', {'port': {
            'network_id': mine['id'],
            'fixed_ips': [{'subnet_id': other_subnet['id']}]}},
            status=400)

    def _v6(self, mode):
        net = self.make('network', name='v6')
        values = {'network_id': net['id'], 'cidr': '2001:db8:1::/64',
                  'ip_version': 6}
        if mode:
            values.update(ipv6_address_mode=mode, ipv6_ra_mode=mode)
        subnet = self.make('subnet', **values)
        return net, subnet

    def test_ipv6_slaac_and_stateless_ports_get_their_eui64(self):
        for mode in ('slaac', 'dhcpv6-stateless'):
            net, subnet = self._v6(mode)
            port = self.make('port', network_id=net['id'],
                             mac_address='fa:16:3e:12:34:56')
            self.assertEqual(
                [{'subnet_id': subnet['id'],
                  'ip_address': '2001:db8:1:0:f816:3eff:fe12:3456'}],
                port['fixed_ips'])

    def test_ipv6_stateful_and_unset_modes_take_from_the_pool(self):
        for mode in ('dhcpv6-stateful', None):
            net, subnet = self._v6(mode)
            port = self.make('port', network_id=net['id'])
            self.assertEqual(1, len(port['fixed_ips']))
            address = ipaddress.ip_address(
                port['fixed_ips'][0]['ip_address'])
            pool = subnet['allocation_pools'][0]
            self.assertTrue(ipaddress.ip_address(pool['start']) <= address
                            <= ipaddress.ip_address(pool['end']))

    def test_dual_stack_port_gets_one_address_of_each(self):
        net, v6 = self._v6('slaac')
        v4 = self.make('subnet', network_id=net['id'], cidr='10.1.0.0/24',
                       ip_version=4)
        port = self.make('port', network_id=net['id'])
        self.assertEqual({v4['id'], v6['id']},
                         {ip['subnet_id'] for ip in port['fixed_ips']})
