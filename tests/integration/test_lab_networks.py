"""stack.sh's default networks, as devstack makes them: the external
network public, the member project's private and router1 joining them; a
server made with no network gets a private address, and a floating IP of
public reaches it through router1. Stacking again changes nothing."""

from tests.integration import lab as lab_mod

MEMBER, ADMIN = 'nova-lite', 'nova-lite-admin'


class TestLabNetworks(lab_mod.LabTestCase):

    LAB_KWARGS = dict(cells=1, computes_per_cell=1, nodes_per_compute=2,
                      database='sqlite', name_prefix='nl_net')

    @classmethod
    def prepare_lab(cls, lab):
        lab.env['NOVA_LITE_DEFAULT_NETWORKS'] = 'True'

    def network(self, method, path, body=None, admin=False):
        token = 'admin' if admin else lab_mod.MEMBER_PROJECT
        status, answer = self.lab.request(
            method, self.lab.api + '/network/v2.0' + path, body,
            {'X-Auth-Token': token})
        self.assertLess(status, 300, answer)
        return answer

    def test_public_private_router1_server_and_floating_ip(self):
        nets = {n['name']: n for n in self.network('GET', '/networks',
                                                   admin=True)['networks']}
        self.assertTrue(nets['public']['router:external'])
        self.assertEqual(lab_mod.MEMBER_PROJECT,
                         nets['private']['project_id'])
        subnets = {s['name']: s for s in self.network(
            'GET', '/subnets', admin=True)['subnets']}
        self.assertEqual(('172.24.4.0/24', '172.24.4.1'), (
            subnets['public-subnet']['cidr'],
            subnets['public-subnet']['gateway_ip']))
        self.assertEqual('10.0.0.0/26', subnets['private-subnet']['cidr'])
        self.assertEqual({'ipv6-public-subnet', 'ipv6-private-subnet'},
                         {n for n in subnets if n.startswith('ipv6')})
        router = self.network('GET', '/routers?name=router1')['routers'][0]
        self.assertEqual(nets['public']['id'],
                         router['external_gateway_info']['network_id'])
        interfaces = self.network(
            'GET', '/ports?device_id=%s' % router['id'])['ports']
        self.assertEqual(
            {subnets['private-subnet']['id'],
             subnets['ipv6-private-subnet']['id']},
            {ip['subnet_id'] for p in interfaces for ip in p['fixed_ips']})

        # A member's server made with no network is on private.
        status, body = self.lab.compute('POST', '/servers', {'server': {
            'name': 'vm', 'flavorRef': '1', 'imageRef': lab_mod.IMAGE,
            'networks': 'auto'}}, admin=False)
        self.assertEqual(202, status, body)
        server_id = body['server']['id']
        server = self.lab.wait_status([server_id])[server_id]
        self.assertEqual('ACTIVE', server['status'])
        address = server['addresses']['private'][0]['addr']
        self.assertTrue(address.startswith('10.0.0.'), address)

        # A floating IP of public reaches it through router1.
        fip = self.network('POST', '/floatingips', {'floatingip': {
            'floating_network_id': nets['public']['id']}})['floatingip']
        port = self.network('GET', '/ports?device_id=%s'
                            % server_id)['ports'][0]
        fip = self.network('PUT', '/floatingips/%s' % fip['id'], {
            'floatingip': {'port_id': port['id']}})['floatingip']
        self.assertEqual((router['id'], address),
                         (fip['router_id'], fip['fixed_ip_address']))

        # Stacking again keeps what is there.
        output = self.lab.stack().stdout
        self.assertIn('public, private and router1 are there', output)
        self.assertNotIn('network: network', output)
        self.assertEqual(1, len(self.network(
            'GET', '/routers?name=router1')['routers']))
