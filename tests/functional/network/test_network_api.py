"""The network service under /network: Neutron v2.0 shapes, status codes
and error format, against the compute API in-process (APIFixture)."""

from unittest import mock

import sqlalchemy as sa

from nova_lite.db.api import models
from nova_lite.db.api import network_api

from nova_lite.network import objects as net_obj
from tests.functional.api import fixtures as api_fixtures
from tests.functional.network import base

ADMIN = api_fixtures.ADMIN
MEMBER = api_fixtures.MEMBER          # alice:proj-a
OTHER = api_fixtures.OTHER            # bob:proj-b
N = '/network/v2.0'


class NetworkAPITest(base.NetworkTestCase):

    def network(self, token=MEMBER, cidr='10.0.0.0/24', **values):
        net = self.call('POST', '/networks', {'network': dict(
            name='net', **values)}, token=token, status=201)['network']
        subnet = self.call('POST', '/subnets', {'subnet': {
            'network_id': net['id'], 'cidr': cidr, 'ip_version': 4}},
            token=token, status=201)['subnet']
        return net, subnet

    def test_versions_and_extensions(self):
        body = self.api.request('GET', '/network', token=MEMBER).body
        self.assertEqual('v2.0', body['versions'][0]['id'])
        aliases = {e['alias'] for e in self.call(
            'GET', '/extensions')['extensions']}
        self.assertIn('security-group', aliases)

    def test_default_security_group_made_on_first_list(self):
        groups = self.call('GET', '/security-groups')['security_groups']
        self.assertEqual(['default'], [g['name'] for g in groups])
        rules = groups[0]['security_group_rules']
        self.assertEqual(4, len(rules))
        self.assertEqual(
            {('egress', 'IPv4', None), ('egress', 'IPv6', None),
             ('ingress', 'IPv4', groups[0]['id']),
             ('ingress', 'IPv6', groups[0]['id'])},
            {(r['direction'], r['ethertype'], r['remote_group_id'])
             for r in rules})
        self.assertEqual('proj-a', groups[0]['project_id'])
        # The same group on the next listing; another project has its own.
        again = self.call('GET', '/security-groups')['security_groups']
        self.assertEqual(groups[0]['id'], again[0]['id'])
        other = self.call('GET', '/security-groups',
                          token=OTHER)['security_groups']
        self.assertNotEqual(groups[0]['id'], other[0]['id'])

    def test_admin_lists_and_deletes_a_project_default_group(self):
        # Tempest's credentials cleanup: list by project and name, delete.
        groups = self.call(
            'GET', '/security-groups?project_id=proj-c&name=default',
            token=ADMIN)['security_groups']
        self.assertEqual(1, len(groups))
        self.call('DELETE', '/security-groups/%s' % groups[0]['id'],
                  token=ADMIN, status=204)

    def test_member_cannot_delete_default_group(self):
        group = self.call('GET', '/security-groups')['security_groups'][0]
        body = self.call('DELETE', '/security-groups/%s' % group['id'],
                         status=409)
        self.assertEqual('SecurityGroupCannotRemoveDefault',
                         body['NeutronError']['type'])

    def test_group_and_rule_crud(self):
        group = self.call('POST', '/security-groups', {'security_group': {
            'name': 'web', 'description': 'd'}},
            status=201)['security_group']
        self.assertEqual(2, len(group['security_group_rules']))
        rule = self.call('POST', '/security-group-rules', {
            'security_group_rule': {
                'security_group_id': group['id'], 'direction': 'ingress',
                'protocol': 'tcp', 'port_range_min': 22,
                'port_range_max': 22, 'remote_ip_prefix': '10.0.0.0/8'}},
            status=201)['security_group_rule']
        self.assertEqual('IPv4', rule['ethertype'])
        dup = self.call('POST', '/security-group-rules', {
            'security_group_rule': {
                'security_group_id': group['id'], 'direction': 'ingress',
                'protocol': 'tcp', 'port_range_min': 22,
                'port_range_max': 22, 'remote_ip_prefix': '10.0.0.0/8'}},
            status=409)
        self.assertEqual('SecurityGroupRuleExists',
                         dup['NeutronError']['type'])
        self.call('POST', '/security-group-rules', {
            'security_group_rule': {
                'security_group_id': group['id'], 'direction': 'ingress',
                'protocol': 'tcp', 'port_range_min': 23,
                'port_range_max': 22}}, status=400)
        shown = self.call('GET', '/security-groups/%s' % group['id'])
        self.assertEqual(3, len(
            shown['security_group']['security_group_rules']))
        self.call('PUT', '/security-groups/%s' % group['id'], {
            'security_group': {'name': 'web2'}})
        self.call('DELETE', '/security-group-rules/%s' % rule['id'],
                  status=204)
        self.call('DELETE', '/security-groups/%s' % group['id'],
                  status=204)
        missing = self.call('GET', '/security-groups/%s' % group['id'],
                            status=404)
        self.assertEqual('SecurityGroupNotFound',
                         missing['NeutronError']['type'])
        # Another project does not see it either.
        self.call('GET', '/security-groups/%s' % group['id'], token=OTHER,
                  status=404)

    def test_subnet_gateway_pool_and_port_allocation(self):
        net, subnet = self.network()
        self.assertEqual('10.0.0.1', subnet['gateway_ip'])
        self.assertEqual([{'start': '10.0.0.2', 'end': '10.0.0.254'}],
                         subnet['allocation_pools'])
        shown = self.call('GET', '/networks/%s' % net['id'])['network']
        self.assertEqual([subnet['id']], shown['subnets'])
        p1 = self.call('POST', '/ports', {'port': {
            'network_id': net['id']}}, status=201)['port']
        p2 = self.call('POST', '/ports', {'port': {
            'network_id': net['id']}}, status=201)['port']
        self.assertEqual('10.0.0.2', p1['fixed_ips'][0]['ip_address'])
        self.assertEqual('10.0.0.3', p2['fixed_ips'][0]['ip_address'])
        default = self.call('GET', '/security-groups?name=default')[
            'security_groups'][0]
        self.assertEqual([default['id']], p1['security_groups'])
        taken = self.call('POST', '/ports', {'port': {
            'network_id': net['id'], 'fixed_ips': [
                {'ip_address': '10.0.0.2'}]}}, status=409)
        self.assertEqual('IpAddressAlreadyAllocated',
                         taken['NeutronError']['type'])
        self.call('DELETE', '/networks/%s' % net['id'], status=409)
        self.call('DELETE', '/ports/%s' % p1['id'], status=204)
        p3 = self.call('POST', '/ports', {'port': {
            'network_id': net['id']}}, status=201)['port']
        self.assertEqual('10.0.0.2', p3['fixed_ips'][0]['ip_address'])
        listed = self.call('GET', '/ports?network_id=%s&fields=id'
                           % net['id'])['ports']
        self.assertEqual({p2['id'], p3['id']}, {p['id'] for p in listed})
        self.assertEqual([['id']] * 2, [list(p) for p in listed])
        for port in (p2, p3):
            self.call('DELETE', '/ports/%s' % port['id'], status=204)
        self.call('DELETE', '/networks/%s' % net['id'], status=204)
        self.call('GET', '/subnets/%s' % subnet['id'], status=404)

    def test_address_a_concurrent_request_stored_first_is_chosen_again(self):
        # Two requests that read the free addresses at once pick the same
        # one; the second, refused by the database, picks again (Neutron's
        # IPAM retries) instead of answering 409.
        net, _ = self.network()
        first = self.call('POST', '/ports', {'port': {
            'network_id': net['id']}}, status=201)['port']
        real = net_obj.addresses_in_use
        reads = []

        def stale_then_real(context, network_id):
            reads.append(network_id)
            return set() if len(reads) == 1 else real(context, network_id)

        with mock.patch.object(net_obj, 'addresses_in_use',
                               side_effect=stale_then_real):
            second = self.call('POST', '/ports', {'port': {
                'network_id': net['id']}}, status=201)['port']
        self.assertEqual(2, len(reads))
        self.assertEqual('10.0.0.2', first['fixed_ips'][0]['ip_address'])
        self.assertEqual('10.0.0.3', second['fixed_ips'][0]['ip_address'])
        listed = self.call('GET', '/ports?network_id=%s' % net['id'])['ports']
        self.assertEqual(2, len(listed))

    def test_update_of_a_resource_deleted_meanwhile_is_404(self):
        # A delete that lands between an update's read and its write
        # leaves the update nothing to change (SQLAlchemy's
        # StaleDataError): the resource is gone, a 404, not a 500.
        group = self.call('POST', '/security-groups', {'security_group': {
            'name': 'g'}}, status=201)['security_group']
        real_get = network_api._get

        def read_then_deleted(s, kind, uuid):
            row = real_get(s, kind, uuid)
            s.execute(sa.delete(models.NetworkResource).where(
                models.NetworkResource.uuid == uuid).execution_options(
                    synchronize_session=False))
            return row

        with mock.patch.object(network_api, '_get',
                               side_effect=read_then_deleted):
            gone = self.call('PUT', '/security-groups/%s/tags' % group['id'],
                             {'tags': ['a']}, status=404)
        self.assertEqual('NetworkResourceNotFound',
                         gone['NeutronError']['type'])

    def test_shared_network_needs_admin_and_is_seen_by_all(self):
        self.call('POST', '/networks', {'network': {'shared': True}},
                  status=403)
        net, _ = self.network(token=ADMIN, shared=True)
        seen = self.call('GET', '/networks', token=OTHER)['networks']
        self.assertEqual([net['id']], [n['id'] for n in seen])

    def test_floating_ip_associate_disassociate(self):
        ext, _ = self.network(token=ADMIN, cidr='172.24.4.0/24',
                              **{'router:external': True})
        net, _ = self.network()
        port = self.call('POST', '/ports', {'port': {
            'network_id': net['id']}}, status=201)['port']
        fip = self.call('POST', '/floatingips', {'floatingip': {
            'floating_network_id': ext['id']}}, status=201)['floatingip']
        self.assertEqual('172.24.4.2', fip['floating_ip_address'])
        self.assertIsNone(fip['port_id'])
        # Reached through a router joining the port's subnet to ext.
        router = self.call('POST', '/routers', {'router': {
            'external_gateway_info': {'network_id': ext['id']}}},
            status=201)['router']
        self.call('PUT', '/routers/%s/add_router_interface' % router['id'],
                  {'subnet_id': port['fixed_ips'][0]['subnet_id']})
        fip = self.call('PUT', '/floatingips/%s' % fip['id'], {
            'floatingip': {'port_id': port['id']}})['floatingip']
        self.assertEqual(port['fixed_ips'][0]['ip_address'],
                         fip['fixed_ip_address'])
        fip = self.call('PUT', '/floatingips/%s' % fip['id'], {
            'floatingip': {'port_id': None}})['floatingip']
        self.assertIsNone(fip['fixed_ip_address'])
        self.call('POST', '/floatingips', {'floatingip': {
            'floating_network_id': net['id']}}, status=400)
        self.call('DELETE', '/floatingips/%s' % fip['id'], status=204)

    def test_bad_body_is_a_neutron_400(self):
        body = self.call('POST', '/networks', {'net': {}}, status=400)
        self.assertEqual({'type', 'message', 'detail'},
                         set(body['NeutronError']))
        self.call('GET', '/networks/%s' % 'nope', status=404)

    def test_a_value_of_the_wrong_type_is_a_400_and_stores_nothing(self):
        net, _ = self.network()
        net = self.call('GET', '/networks/%s' % net['id'])['network']
        for values in ({'description': 1.5}, {'mtu': 'big'},
                       {'availability_zone_hints': 'nova'}):
            body = self.call('PUT', '/networks/%s' % net['id'],
                             {'network': values}, status=400)
            self.assertIn('Invalid input for %s' % list(values)[0],
                          body['NeutronError']['message'])
        self.assertEqual(net, self.call(
            'GET', '/networks/%s' % net['id'])['network'])
        self.call('POST', '/networks', {'networks': [
            {'name': 'fine'}, {'name': ['not', 'a', 'string']}]},
            status=400)
        self.assertEqual(['net'], [n['name'] for n in self.call(
            'GET', '/networks')['networks']])

    def test_an_integer_given_as_text_is_the_integer(self):
        net, _ = self.network()
        for given in ('1450', 1400.0):
            changed = self.call('PUT', '/networks/%s' % net['id'], {
                'network': {'mtu': given}})['network']
            self.assertEqual(int(given), changed['mtu'])

    def test_external_network_subnets_are_the_owners(self):
        ext, subnet = self.network(token=ADMIN, cidr='172.24.4.0/24',
                                   **{'router:external': True})
        shared, shared_subnet = self.network(token=ADMIN, shared=True)
        networks = self.call('GET', '/networks')['networks']
        self.assertEqual({ext['id'], shared['id']},
                         {n['id'] for n in networks})
        self.assertEqual([shared_subnet['id']], [s['id'] for s in self.call(
            'GET', '/subnets')['subnets']])
        self.call('GET', '/subnets/%s' % subnet['id'], status=404)
