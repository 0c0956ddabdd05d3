"""Routers under /network (Neutron's L3 and extraroute extensions):
gateway and interface ports, Neutron's errors, who sees what, and
floating IPs reaching a port only through a router."""

import testtools

from tests.functional.api import fixtures as api_fixtures

ADMIN = api_fixtures.ADMIN
MEMBER = api_fixtures.MEMBER          # alice:proj-a
OTHER = api_fixtures.OTHER            # bob:proj-b
N = '/network/v2.0'


class RoutersTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.api = self.useFixture(api_fixtures.APIFixture(
            cells=('cell1',)))
        self.ext, self.ext_subnet = self.network(
            token=ADMIN, cidr='172.24.4.0/24', name='public',
            **{'router:external': True})
        self.net, self.subnet = self.network()

    def call(self, method, path, body=None, token=MEMBER, status=200):
        response = self.api.request(method, N + path, body=body,
                                    token=token)
        self.assertEqual(status, response.status, response)
        return response.body

    def network(self, token=MEMBER, cidr='10.0.0.0/26', name='private',
                **values):
        net = self.call('POST', '/networks', {'network': dict(
            name=name, **values)}, token=token, status=201)['network']
        subnet = self.call('POST', '/subnets', {'subnet': {
            'network_id': net['id'], 'cidr': cidr, 'ip_version': 4}},
            token=token, status=201)['subnet']
        return net, subnet

    def router(self, token=MEMBER, status=201, **values):
        body = self.call('POST', '/routers', {'router': dict(
            name='router1', **values)}, token=token, status=status)
        return body.get('router')

    def interface(self, router, action='add', status=200, token=MEMBER,
                  **body):
        return self.call('PUT', '/routers/%s/%s_router_interface' % (
            router['id'], action), body, token=token, status=status)

    def test_create_with_gateway_show_list_update_delete(self):
        router = self.router(external_gateway_info={
            'network_id': self.ext['id']})
        self.assertEqual(('router1', 'ACTIVE', True, 'proj-a', []), (
            router['name'], router['status'], router['admin_state_up'],
            router['project_id'], router['routes']))
        info = router['external_gateway_info']
        self.assertEqual((self.ext['id'], True), (info['network_id'],
                                                  info['enable_snat']))
        self.assertEqual([{'subnet_id': self.ext_subnet['id'],
                           'ip_address': '172.24.4.2'}],
                         info['external_fixed_ips'])
        self.assertNotIn('distributed', router)
        shown = self.call('GET', '/routers/%s' % router['id'],
                          token=ADMIN)['router']
        self.assertEqual((False, False), (shown['distributed'],
                                          shown['ha']))
        gateway = self.call('GET', '/ports?device_id=%s' % router['id'],
                            token=ADMIN)['ports']
        self.assertEqual(['network:router_gateway'],
                         [p['device_owner'] for p in gateway])
        # The gateway port is no project's and only goes with its router.
        self.assertEqual([], self.call(
            'GET', '/ports?device_id=%s' % router['id'])['ports'])
        self.call('DELETE', '/ports/%s' % gateway[0]['id'], token=ADMIN,
                  status=409)
        self.assertEqual([router['id']], [r['id'] for r in self.call(
            'GET', '/routers')['routers']])
        self.assertEqual([], self.call('GET', '/routers',
                                       token=OTHER)['routers'])
        self.call('GET', '/routers/%s' % router['id'], token=OTHER,
                  status=404)
        updated = self.call('PUT', '/routers/%s' % router['id'], {
            'router': {'name': 'r', 'external_gateway_info': None}})[
            'router']
        self.assertEqual(('r', None, 1), (
            updated['name'], updated['external_gateway_info'],
            updated['revision_number']))
        self.assertEqual([], self.call(
            'GET', '/ports?device_id=%s' % router['id'],
            token=ADMIN)['ports'])
        self.call('DELETE', '/routers/%s' % router['id'], status=204)
        self.call('GET', '/routers/%s' % router['id'], status=404)

    def test_gateway_errors_and_admin_only_attributes(self):
        self.router(status=404, external_gateway_info={
            'network_id': '8f1a2b3c-0000-4000-8000-000000000000'})
        body = self.router(status=400, external_gateway_info={
            'network_id': self.net['id']})
        self.assertIsNone(body)
        self.router(status=403, external_gateway_info={
            'network_id': self.ext['id'], 'enable_snat': False})
        self.router(status=403, distributed=True)
        self.router(status=400, routes=[])
        router = self.router(token=ADMIN, external_gateway_info={
            'network_id': self.ext['id'], 'enable_snat': False})
        self.assertFalse(router['external_gateway_info']['enable_snat'])
        self.assertEqual([], self.call('GET', '/routers')['routers'])

    def test_interfaces_by_subnet_and_by_port(self):
        router = self.router()
        added = self.interface(router, subnet_id=self.subnet['id'])
        self.assertEqual((router['id'], self.net['id'], [self.subnet['id']]),
                         (added['id'], added['network_id'],
                          added['subnet_ids']))
        port = self.call('GET', '/ports/%s' % added['port_id'])['port']
        self.assertEqual(('network:router_interface', router['id'],
                          '10.0.0.1'),
                         (port['device_owner'], port['device_id'],
                          port['fixed_ips'][0]['ip_address']))
        # Attached twice: Neutron's 400; neither key, both keys: 400.
        self.interface(router, subnet_id=self.subnet['id'], status=400)
        self.interface(router, status=400)
        self.interface(router, status=400, subnet_id=self.subnet['id'],
                       port_id=port['id'])
        # Another router cannot take the gateway address: 409.
        other = self.router()
        self.interface(other, subnet_id=self.subnet['id'], status=409)
        # The subnet, its network and the port stay while attached.
        self.call('DELETE', '/ports/%s' % port['id'], status=409)
        self.call('DELETE', '/subnets/%s' % self.subnet['id'], status=409)
        self.call('DELETE', '/networks/%s' % self.net['id'], status=409)
        self.call('DELETE', '/routers/%s' % router['id'], status=409)
        # By port: a port of another network.
        net2, subnet2 = self.network(cidr='10.0.1.0/24', name='net2')
        own = self.call('POST', '/ports', {'port': {
            'network_id': net2['id']}}, status=201)['port']
        added2 = self.interface(router, port_id=own['id'])
        self.assertEqual(own['id'], added2['port_id'])
        self.interface(router, port_id=own['id'], status=409)
        self.interface(router, 'remove', port_id=own['id'])
        self.interface(router, 'remove', port_id=own['id'], status=404)
        self.interface(router, 'remove', subnet_id=self.subnet['id'])
        self.interface(router, 'remove', subnet_id=self.subnet['id'],
                       status=404)
        self.call('DELETE', '/routers/%s' % router['id'], status=204)
        self.call('DELETE', '/networks/%s' % self.net['id'], status=204)
        self.interface(other, subnet_id=self.subnet['id'], status=404)

    def test_extra_routes_need_a_connected_nexthop(self):
        router = self.router()
        route = {'destination': '192.168.0.0/24', 'nexthop': '10.0.0.5'}
        self.call('PUT', '/routers/%s' % router['id'], {'router': {
            'routes': [route]}}, status=400)
        self.interface(router, subnet_id=self.subnet['id'])
        self.call('PUT', '/routers/%s' % router['id'], {'router': {
            'routes': [dict(route, nexthop='10.0.0.1')]}}, status=400)
        updated = self.call('PUT', '/routers/%s' % router['id'], {
            'router': {'routes': [route]}})['router']
        self.assertEqual([route], updated['routes'])
        self.interface(router, 'remove', subnet_id=self.subnet['id'],
                       status=409)
        self.call('PUT', '/routers/%s' % router['id'], {'router': {
            'routes': []}})
        self.interface(router, 'remove', subnet_id=self.subnet['id'])

    def test_add_and_remove_extra_routes_atomically(self):
        router = self.router()
        self.interface(router, subnet_id=self.subnet['id'])
        path = '/routers/%s/%%s_extraroutes' % router['id']
        one = {'destination': '10.0.10.0/24', 'nexthop': '10.0.0.10'}
        two = {'destination': '10.0.11.0/24', 'nexthop': '10.0.0.11'}
        three = {'destination': '10.0.12.0/24', 'nexthop': '10.0.0.12'}
        added = self.call('PUT', path % 'add', {'router': {
            'routes': [one]}})['router']
        self.assertEqual([one], added['routes'])
        # one already there stays once
        added = self.call('PUT', path % 'add', {'router': {
            'routes': [one, two]}})['router']
        self.assertEqual([one, two], added['routes'])
        # one not there is ignored
        removed = self.call('PUT', path % 'remove', {'router': {
            'routes': [two, three]}})['router']
        self.assertEqual([one], removed['routes'])
        # checked as an update's routes; nothing changes on an error
        self.call('PUT', path % 'add', {'router': {'routes': [
            {'destination': '10.0.13.0/24', 'nexthop': '192.0.2.1'}]}},
            status=400)
        self.call('PUT', path % 'add', {'routes': [one]}, status=400)
        self.call('PUT', path % 'add', {'router': {'routes': 'x'}},
                  status=400)
        self.call('PUT', '/routers/%s/add_extraroutes' % ('0' * 32), {
            'router': {'routes': [one]}}, status=404)
        self.call('PUT', path % 'add', {'router': {'routes': [two]}},
                  token=OTHER, status=404)
        shown = self.call('GET', '/routers/%s' % router['id'])['router']
        self.assertEqual([one], shown['routes'])

    def test_extra_route_through_the_gateway(self):
        router = self.router(external_gateway_info={
            'network_id': self.ext['id']})
        gateway_ip = router['external_gateway_info'][
            'external_fixed_ips'][0]['ip_address']
        route = {'destination': '10.9.9.0/24', 'nexthop': '172.24.4.99'}
        updated = self.call('PUT', '/routers/%s' % router['id'], {
            'router': {'routes': [route]}})['router']
        self.assertEqual([route], updated['routes'])
        # the gateway's own address is the router's, not a nexthop
        error = self.call('PUT', '/routers/%s' % router['id'], {'router': {
            'routes': [dict(route, nexthop=gateway_ip)]}}, status=400)
        self.assertIn('the nexthop is used by router',
                      error['NeutronError']['message'])

    def test_floating_ip_reaches_a_port_only_through_a_router(self):
        port = self.call('POST', '/ports', {'port': {
            'network_id': self.net['id']}}, status=201)['port']
        fip = self.call('POST', '/floatingips', {'floatingip': {
            'floating_network_id': self.ext['id']}}, status=201)[
            'floatingip']
        body = self.call('PUT', '/floatingips/%s' % fip['id'], {
            'floatingip': {'port_id': port['id']}}, status=404)
        self.assertEqual('ExternalGatewayForFloatingIPNotFound',
                         body['NeutronError']['type'])
        self.assertIn('is not reachable from subnet %s'
                      % self.subnet['id'], body['NeutronError']['message'])
        router = self.router(external_gateway_info={
            'network_id': self.ext['id']})
        # A gateway alone is not enough: the subnet must be attached.
        self.call('PUT', '/floatingips/%s' % fip['id'], {
            'floatingip': {'port_id': port['id']}}, status=404)
        self.interface(router, subnet_id=self.subnet['id'])
        fip = self.call('PUT', '/floatingips/%s' % fip['id'], {
            'floatingip': {'port_id': port['id']}})['floatingip']
        self.assertEqual((router['id'], 'ACTIVE'),
                         (fip['router_id'], fip['status']))
        # The path stays while a floating IP uses it.
        self.interface(router, 'remove', subnet_id=self.subnet['id'],
                       status=409)
        self.call('PUT', '/routers/%s' % router['id'], {'router': {
            'external_gateway_info': None}}, status=409)
        fip = self.call('PUT', '/floatingips/%s' % fip['id'], {
            'floatingip': {'port_id': None}})['floatingip']
        self.assertIsNone(fip['router_id'])
        # Created associated.
        second = self.call('POST', '/floatingips', {'floatingip': {
            'floating_network_id': self.ext['id'],
            'port_id': port['id']}}, status=201)['floatingip']
        self.assertEqual(router['id'], second['router_id'])
        self.call('DELETE', '/ports/%s' % port['id'], status=204)
        self.assertIsNone(self.call(
            'GET', '/floatingips/%s' % second['id'])['floatingip'][
            'router_id'])
        self.interface(router, 'remove', subnet_id=self.subnet['id'])
        self.call('DELETE', '/routers/%s' % router['id'], status=204)

    def test_floating_ip_port_details(self):
        port = self.call('POST', '/ports', {'port': {
            'network_id': self.net['id'], 'name': 'web'}},
            status=201)['port']
        router = self.router(external_gateway_info={
            'network_id': self.ext['id']})
        self.interface(router, subnet_id=self.subnet['id'])
        fip = self.call('POST', '/floatingips', {'floatingip': {
            'floating_network_id': self.ext['id']}}, status=201)[
            'floatingip']
        self.assertIsNone(fip['port_details'])
        fip = self.call('PUT', '/floatingips/%s' % fip['id'], {
            'floatingip': {'port_id': port['id']}})['floatingip']
        expected = {k: port[k] for k in (
            'name', 'network_id', 'mac_address', 'admin_state_up',
            'status', 'device_id', 'device_owner')}
        self.assertEqual(expected, fip['port_details'])
        # what the port is now, not what it was
        self.call('PUT', '/ports/%s' % port['id'], {'port': {
            'name': 'renamed'}})
        shown = self.call('GET', '/floatingips/%s' % fip['id'])[
            'floatingip']
        self.assertEqual('renamed', shown['port_details']['name'])
        listed = self.call('GET', '/floatingips')['floatingips']
        self.assertEqual(['renamed'], [
            f['port_details']['name'] for f in listed])
        fip = self.call('PUT', '/floatingips/%s' % fip['id'], {
            'floatingip': {'port_id': None}})['floatingip']
        self.assertIsNone(fip['port_details'])

    def test_admin_router_carries_floating_ips_of_a_shared_network(self):
        shared, subnet = self.network(token=ADMIN, cidr='192.168.0.0/16',
                                      name='shared', shared=True)
        router = self.router(token=ADMIN, external_gateway_info={
            'network_id': self.ext['id']})
        self.interface(router, token=ADMIN, subnet_id=subnet['id'])
        port = self.call('POST', '/ports', {'port': {
            'network_id': shared['id']}}, token=OTHER, status=201)['port']
        self.assertEqual('192.168.0.2', port['fixed_ips'][0]['ip_address'])
        fip = self.call('POST', '/floatingips', {'floatingip': {
            'floating_network_id': self.ext['id'], 'port_id': port['id']}},
            token=OTHER, status=201)['floatingip']
        self.assertEqual(router['id'], fip['router_id'])
        # The router stays the admin's.
        self.call('GET', '/routers/%s' % router['id'], token=OTHER,
                  status=404)
