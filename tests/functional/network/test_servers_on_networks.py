"""Servers on the network service's networks, through the compute API:
ports made at create and deleted with the server, addresses, ips,
os-interface, os-networks, and Nova's security group proxies."""

from nova_lite import conf as nl_conf
from tests.functional.network import base

N = base.N
OLD = '2.35'


def IMAGE():
    return nl_conf.CONF.image_catalog.default_image_uuid


class ServersOnNetworksTest(base.ServersOnNetworksTestCase):

    def ports_of(self, server_id):
        return self.ok(self.admin_api.get(
            N + '/ports?device_id=%s' % server_id))['ports']

    def test_port_per_requested_network_shown_and_deleted(self):
        net1 = self.network('net1', '10.1.0.0/24')
        net2 = self.network('net2', '10.2.0.0/24')
        server = self.boot([{'uuid': net1['id']}, {'uuid': net2['id']},
                            {'uuid': net1['id']}])
        self.assertEqual(
            {'net1': ['10.1.0.2', '10.1.0.3'], 'net2': ['10.2.0.2']},
            {name: [a['addr'] for a in entries]
             for name, entries in server['addresses'].items()})
        self.assertEqual('fixed', server['addresses']['net1'][0][
            'OS-EXT-IPS:type'])
        ips = self.ok(self.api.get('/servers/%s/ips' % server['id']))
        self.assertEqual({'version': 4, 'addr': '10.2.0.2'},
                         ips['addresses']['net2'][0])
        self.assertEqual(2, len(self.ok(self.api.get(
            '/servers/%s/ips/net1' % server['id']))['net1']))
        self.ok(self.api.get('/servers/%s/ips/nope' % server['id']), 404)
        ports = self.ports_of(server['id'])
        self.assertEqual(3, len(ports))
        self.assertEqual({'compute:nova'}, {p['device_owner'] for p in ports})
        attachments = self.ok(self.api.get(
            '/servers/%s/os-interface' % server['id']))[
            'interfaceAttachments']
        self.assertEqual({p['id'] for p in ports},
                         {a['port_id'] for a in attachments})
        self.ok(self.api.delete('/servers/%s' % server['id']), 204)
        self.assertEqual([], self.ports_of(server['id']))
        # Its networks can go now.
        self.ok(self.api.delete(N + '/networks/%s' % net1['id']), 204)

    def test_auto_and_omitted_networks_pick_the_one_network(self):
        none = self.boot('auto')
        self.assertEqual({}, none['addresses'])
        net = self.network()
        server = self.boot('auto')
        self.assertEqual(['private'], list(server['addresses']))
        # Another project's network is not the admin's, as in Nova.
        admins = self.cloud.create_server(networks='auto',
                                          api=self.admin_api)
        self.cloud.wait_for_builds()
        self.assertEqual({}, self.cloud.wait_for_server(
            admins['id'], 'ACTIVE', api=self.admin_api)['addresses'])
        # No network asked: a server on no network, as before.
        bare = self.boot('none')
        self.assertEqual({}, bare['addresses'])
        self.assertEqual([], self.ports_of(bare['id']))
        self.network('second', '10.9.0.0/24')
        response = self.api.post('/servers', {'server': {
            'name': 'x', 'flavorRef': '1', 'networks': 'auto',
            'imageRef': server['image']['id']}})
        self.assertEqual(409, response.status, response)
        self.assertIsNotNone(net)

    def test_unknown_network_or_group_is_400(self):
        net = self.network()
        for networks, extra in (
                ([{'uuid': '8f1a2b3c-0000-4000-8000-000000000000'}], {}),
                ([{'uuid': net['id']}],
                 {'security_groups': [{'name': 'nope'}]})):
            body = {'name': 'x', 'flavorRef': '1', 'networks': networks,
                    'imageRef': 'cirros-0.6.3-x86_64-disk'}
            body.update(extra)
            response = self.api.post('/servers', {'server': body})
            self.assertEqual(400, response.status, response)
        self.assertEqual([], self.ok(self.admin_api.get(
            N + '/ports'))['ports'])

    def test_unknown_group_is_400_with_any_networks(self):
        net = self.network()
        before = self.ok(self.api.get('/servers'))['servers']
        for networks in ('none', 'auto', [{'uuid': net['id']}]):
            body = {'name': 'x', 'flavorRef': '1',
                    'imageRef': IMAGE(),
                    'security_groups': [{'name': 'does_not_exist'}],
                    'networks': networks}
            response = self.api.post('/servers', {'server': body})
            self.assertEqual(400, response.status, response)
            self.assertIn('does_not_exist', str(response.body))
        self.assertEqual(before, self.ok(self.api.get('/servers'))[
            'servers'])
        # The default group is always there (made on first use).
        server = self.boot('none', security_groups=[{'name': 'default'}])
        self.assertEqual('ACTIVE', server['status'])

    def test_security_group_proxies(self):
        net = self.network()
        group = self.ok(self.api.post('/os-security-groups', {
            'security_group': {'name': ' web ', 'description': 'd'}},
            version=OLD))['security_group']
        self.assertEqual(' web ', group['name'])
        self.assertEqual([], group['rules'])   # egress only so far
        rule = self.ok(self.api.post('/os-security-group-rules', {
            'security_group_rule': {
                'parent_group_id': group['id'], 'ip_protocol': 'tcp',
                'from_port': 22, 'to_port': 22}}, version=OLD))[
            'security_group_rule']
        self.assertEqual({'cidr': '0.0.0.0/0'}, rule['ip_range'])
        dup = self.api.post('/os-security-group-rules', {
            'security_group_rule': {
                'parent_group_id': group['id'], 'ip_protocol': 'tcp',
                'from_port': 22, 'to_port': 22}}, version=OLD)
        self.assertEqual(400, dup.status, dup)
        for bad in ({'ip_protocol': 'tcp', 'from_port': 22, 'to_port': 21},
                    {'ip_protocol': 'x999', 'from_port': 1, 'to_port': 2},
                    {'ip_protocol': 'tcp', 'from_port': 70000,
                     'to_port': 22}):
            bad['parent_group_id'] = group['id']
            response = self.api.post('/os-security-group-rules', {
                'security_group_rule': bad}, version=OLD)
            self.assertEqual(400, response.status, (bad, response))
        server = self.boot([{'uuid': net['id']}])
        self.assertEqual([{'name': 'default'}], server['security_groups'])
        self.ok(self.api.post('/servers/%s/action' % server['id'], {
            'addSecurityGroup': {'name': ' web '}}), 202)
        listed = self.ok(self.api.get(
            '/servers/%s/os-security-groups' % server['id']))
        self.assertEqual(['default', ' web '],
                         [g['name'] for g in listed['security_groups']])
        in_use = self.api.delete('/os-security-groups/%s' % group['id'],
                                 version=OLD)
        self.assertEqual(400, in_use.status, in_use)
        for name in ('default', ' web '):
            self.ok(self.api.post('/servers/%s/action' % server['id'], {
                'removeSecurityGroup': {'name': name}}), 202)
        shown = self.cloud.get_server(server['id'], api=self.api)
        self.assertNotIn('security_groups', shown)
        again = self.api.post('/servers/%s/action' % server['id'], {
            'removeSecurityGroup': {'name': 'default'}})
        self.assertEqual(400, again.status, again)
        default = [g for g in self.ok(self.api.get(
            '/os-security-groups', version=OLD))['security_groups']
            if g['name'] == 'default'][0]
        self.assertEqual(400, self.api.delete(
            '/os-security-groups/%s' % default['id'],
            version=OLD).status)
        self.ok(self.api.delete('/os-security-groups/%s' % group['id'],
                                version=OLD), 202)
        self.ok(self.api.get('/os-security-groups/%s' % group['id'],
                             version=OLD), 404)

    def test_os_networks_lists_the_network_service_networks(self):
        net = self.network()
        listed = self.ok(self.api.get('/os-networks', version=OLD))
        self.assertEqual([(net['id'], 'private')],
                         [(n['id'], n['label']) for n in listed['networks']])
        shown = self.ok(self.api.get('/os-tenant-networks/%s' % net['id'],
                                     version=OLD))
        self.assertEqual('private', shown['network']['label'])

    def test_floating_ip_proxies(self):
        net = self.network()
        public = self.ok(self.admin_api.post(N + '/networks', {'network': {
            'name': 'public', 'router:external': True}}), 201)['network']
        self.ok(self.admin_api.post(N + '/subnets', {'subnet': {
            'network_id': public['id'], 'cidr': '172.24.4.0/24',
            'ip_version': 4}}), 201)
        pools = self.ok(self.api.get('/os-floating-ip-pools', version=OLD))
        self.assertEqual([{'name': 'public'}], pools['floating_ip_pools'])
        self.ok(self.api.post('/os-floating-ips', {'pool': 'nope'},
                              version=OLD), 404)
        fip = self.ok(self.api.post('/os-floating-ips', {'pool': 'public'},
                                    version=OLD))['floating_ip']
        self.assertEqual({'ip': '172.24.4.2', 'pool': 'public',
                          'fixed_ip': None, 'instance_id': None},
                         {k: fip[k] for k in ('ip', 'pool', 'fixed_ip',
                                              'instance_id')})
        server = self.boot([{'uuid': net['id']}])
        action = '/servers/%s/action' % server['id']
        # No router joins the server's subnet to public: Nova's 400.
        self.ok(self.api.post(action, {'addFloatingIp': {
            'address': fip['ip']}}, version=OLD), 400)
        router = self.ok(self.api.post(N + '/routers', {'router': {
            'external_gateway_info': {'network_id': public['id']}}}),
            201)['router']
        self.ok(self.api.put(
            N + '/routers/%s/add_router_interface' % router['id'],
            {'subnet_id': self.ok(self.api.get(
                N + '/networks/%s' % net['id']))['network']['subnets'][0]}))
        self.ok(self.api.post(action, {'addFloatingIp': {
            'address': fip['ip']}}, version=OLD), 202)
        shown = self.ok(self.api.get('/os-floating-ips/%s' % fip['id'],
                                     version=OLD))['floating_ip']
        self.assertEqual((server['id'], '10.1.0.2'),
                         (shown['instance_id'], shown['fixed_ip']))
        addresses = self.cloud.get_server(server['id'])['addresses']
        self.assertEqual(['fixed', 'floating'], [
            a['OS-EXT-IPS:type'] for a in addresses['private']])
        second = self.ok(self.api.post('/os-floating-ips', {
            'pool': public['id']}, version=OLD))['floating_ip']
        self.ok(self.api.post(action, {'addFloatingIp': {
            'address': second['ip']}}, version=OLD), 400)
        self.ok(self.api.post(action, {'addFloatingIp': {
            'address': '0.0.0.0'}}, version=OLD), 404)
        self.ok(self.api.post(action, {'removeFloatingIp': {
            'address': fip['ip']}}, version=OLD), 202)
        self.ok(self.api.post(action, {'removeFloatingIp': {
            'address': fip['ip']}}, version=OLD), 409)
        for item in (fip, second):
            self.ok(self.api.delete('/os-floating-ips/%s' % item['id'],
                                    version=OLD), 202)
        self.assertEqual([], self.ok(self.api.get(
            '/os-floating-ips', version=OLD))['floating_ips'])

    def test_list_filtered_by_ip(self):
        net = self.network()
        servers = [self.boot([{'uuid': net['id']}], name='s%d' % i)
                   for i in range(2)]
        self.assertEqual(['10.1.0.2', '10.1.0.3'], [
            s['addresses']['private'][0]['addr'] for s in servers])
        listed = self.ok(self.api.get('/servers?ip=10.1.0.3'))['servers']
        self.assertEqual([servers[1]['id']], [s['id'] for s in listed])
        listed = self.ok(self.api.get('/servers?ip=10.1.0'))['servers']
        self.assertEqual({s['id'] for s in servers},
                         {s['id'] for s in listed})
        self.assertEqual([], self.ok(self.api.get(
            '/servers/detail?ip=10.2'))['servers'])

    def test_rebuild_and_update_answers_show_basic_addresses(self):
        net = self.network()
        server = self.boot([{'uuid': net['id']}])
        self.assertIn('OS-EXT-IPS:type',
                      server['addresses']['private'][0])
        for version in ('2.1', '2.74'):
            updated = self.ok(self.api.put('/servers/%s' % server['id'], {
                'server': {'name': 'renamed'}}, version=version))['server']
            self.assertEqual([{'version': 4, 'addr': '10.1.0.2'}],
                             updated['addresses']['private'])
        updated = self.ok(self.api.put('/servers/%s' % server['id'], {
            'server': {'name': 'renamed'}}, version='2.75'))['server']
        self.assertIn('OS-EXT-IPS:type',
                      updated['addresses']['private'][0])

    def test_console_output_is_501_for_a_server_404_without(self):
        server = self.boot('none')
        body = {'os-getConsoleOutput': {'length': 10}}
        self.ok(self.api.post('/servers/%s/action' % server['id'], body),
                501)
        self.ok(self.api.post('/servers/%s/action'
                              % '8f1a2b3c-0000-4000-8000-000000000000',
                              body), 404)
