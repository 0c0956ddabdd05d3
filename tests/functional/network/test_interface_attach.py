"""os-interface attach and detach after boot, through the compute API,
the server's compute and the network service's ports, as Nova answers
them."""

from nova_lite.testing import integrated
from tests.functional.network import base

N = base.N
OTHER_TOKEN = 'bob:other-project'
MISSING = '8f1a2b3c-0000-4000-8000-000000000000'


class InterfaceAttachTest(base.ServersOnNetworksTestCase):

    def attach(self, server_id, status=200, version=None, **wanted):
        response = self.api.post('/servers/%s/os-interface' % server_id,
                                 {'interfaceAttachment': wanted},
                                 version=version)
        self.assertEqual(status, response.status, response)
        return response.body

    def port(self, port_id, status=200):
        return self.ok(self.admin_api.get(N + '/ports/%s' % port_id),
                       status)

    def interfaces(self, server_id):
        return self.ok(self.api.get('/servers/%s/os-interface'
                                    % server_id))['interfaceAttachments']

    def test_attach_by_network_then_detach_deletes_the_port(self):
        net = self.network()
        server = self.boot()
        attached = self.attach(server['id'], net_id=net['id'])[
            'interfaceAttachment']
        self.assertEqual((net['id'], 'ACTIVE'),
                         (attached['net_id'], attached['port_state']))
        port = self.port(attached['port_id'])['port']
        self.assertEqual((server['id'], 'compute:nova', 'host1'), (
            port['device_id'], port['device_owner'],
            port['binding:host_id']))
        self.assertEqual([attached['port_id']], [
            i['port_id'] for i in self.interfaces(server['id'])])
        shown = self.cloud.get_server(server['id'], api=self.api)
        self.assertEqual(['10.1.0.2'], [
            a['addr'] for a in shown['addresses']['private']])
        self.ok(self.api.get('/servers/%s/os-interface/%s' % (
            server['id'], attached['port_id'])))
        response = self.api.delete('/servers/%s/os-interface/%s' % (
            server['id'], attached['port_id']))
        self.assertEqual(202, response.status, response)
        self.assertEqual([], self.interfaces(server['id']))
        self.port(attached['port_id'], 404)
        actions = [a['action'] for a in self.ok(self.api.get(
            '/servers/%s/os-instance-actions' % server['id']))[
            'instanceActions']]
        self.assertEqual(['detach_interface', 'attach_interface', 'create'],
                         actions)

    def test_attach_a_port_then_detach_keeps_it_unbound(self):
        net = self.network()
        port = self.ok(self.api.post(N + '/ports', {'port': {
            'network_id': net['id']}}), 201)['port']
        server = self.boot()
        attached = self.attach(server['id'], port_id=port['id'],
                               version='2.70')['interfaceAttachment']
        self.assertEqual((port['id'], None),
                         (attached['port_id'], attached['tag']))
        self.assertEqual(server['id'], self.port(port['id'])['port'][
            'device_id'])
        # A bound port cannot go to a second server.
        other = self.boot()
        self.attach(other['id'], status=409, port_id=port['id'])
        self.ok(self.api.delete('/servers/%s/os-interface/%s' % (
            server['id'], port['id'])), 202)
        kept = self.port(port['id'])['port']
        self.assertEqual(('', '', ''), (
            kept['device_id'], kept['device_owner'],
            kept['binding:host_id']))
        # Now free: the other server may have it, and its delete
        # unbinds it again.
        self.attach(other['id'], port_id=port['id'])
        self.ok(self.api.delete('/servers/%s' % other['id']), 204)
        self.cloud.wait_for_builds()
        self.cloud.wait_until_deleted(other['id'])
        self.assertEqual('', self.port(port['id'])['port']['device_id'])

    def test_attach_with_fixed_ip_and_tag(self):
        net = self.network()
        server = self.boot()
        attached = self.attach(server['id'], version='2.70', tag='eth1',
                               net_id=net['id'],
                               fixed_ips=[{'ip_address': '10.1.0.50'}])[
            'interfaceAttachment']
        self.assertEqual(('10.1.0.50', 'eth1'), (
            attached['fixed_ips'][0]['ip_address'], attached['tag']))
        # The address is taken now.
        other = self.boot()
        self.attach(other['id'], status=409, net_id=net['id'],
                    fixed_ips=[{'ip_address': '10.1.0.50'}])
        # Outside the subnet.
        self.attach(other['id'], status=400, net_id=net['id'],
                    fixed_ips=[{'ip_address': '10.9.9.9'}])
        self.assertEqual([], self.interfaces(other['id']))

    def test_attach_with_no_network_named(self):
        server = self.boot()
        self.attach(server['id'], status=400)
        net = self.network()
        attached = self.attach(server['id'])['interfaceAttachment']
        self.assertEqual(net['id'], attached['net_id'])
        self.network('second', '10.2.0.0/24')
        self.attach(server['id'], status=400)

    def test_bad_requests_and_missing_things(self):
        net = self.network()
        server = self.boot()
        self.attach(server['id'], status=400, net_id=net['id'],
                    port_id=MISSING)
        self.attach(server['id'], status=400,
                    fixed_ips=[{'ip_address': '10.1.0.9'}])
        self.attach(server['id'], status=400, net_id='nope')
        self.attach(server['id'], status=400, net_id=net['id'], bogus=1)
        # tag before 2.49 is not in the schema.
        self.attach(server['id'], status=400, version='2.48',
                    net_id=net['id'], tag='x')
        self.attach(server['id'], status=404, net_id=MISSING)
        self.attach(server['id'], status=404, port_id=MISSING)
        self.attach(MISSING, status=404, net_id=net['id'])
        self.ok(self.api.delete('/servers/%s/os-interface/%s' % (
            server['id'], MISSING)), 404)
        self.ok(self.api.get('/servers/%s/os-interface/%s' % (
            server['id'], MISSING)), 404)
        other = integrated.APIClient(self.cloud.app, token=OTHER_TOKEN)
        response = other.post('/servers/%s/os-interface' % server['id'],
                              {'interfaceAttachment': {}})
        self.assertEqual(404, response.status, response)
        self.assertEqual([], self.interfaces(server['id']))
        self.assertEqual([], self.ok(self.admin_api.get(
            N + '/ports?device_id=%s' % server['id']))['ports'])

    def test_wrong_state_and_lock_are_409(self):
        net = self.network()
        server = self.boot()
        self.ok(self.api.post('/servers/%s/action' % server['id'],
                              {'suspend': None}), 202)
        self.cloud.wait_for_server(server['id'], 'SUSPENDED')
        self.attach(server['id'], status=409, net_id=net['id'])
        self.ok(self.api.post('/servers/%s/action' % server['id'],
                              {'resume': None}), 202)
        self.cloud.wait_for_server(server['id'], 'ACTIVE')
        attached = self.attach(server['id'], net_id=net['id'])[
            'interfaceAttachment']
        self.ok(self.admin_api.post('/servers/%s/action' % server['id'],
                                    {'lock': None}), 202)
        self.attach(server['id'], status=409, net_id=net['id'])
        self.ok(self.api.delete('/servers/%s/os-interface/%s' % (
            server['id'], attached['port_id'])), 409)
        self.assertEqual(1, len(self.interfaces(server['id'])))
        # Nothing was made for the refused attaches.
        self.assertEqual(1, len(self.ok(self.admin_api.get(
            N + '/ports?network_id=%s' % net['id']))['ports']))

    def test_stopped_and_boot_ports(self):
        net = self.network()
        server = self.boot(networks=[{'uuid': net['id']}])
        boot_port = self.interfaces(server['id'])[0]['port_id']
        self.ok(self.api.post('/servers/%s/action' % server['id'],
                              {'os-stop': None}), 202)
        self.cloud.wait_for_server(server['id'], 'SHUTOFF')
        self.attach(server['id'], net_id=net['id'])
        self.assertEqual(2, len(self.interfaces(server['id'])))
        # A port the server was built with detaches too.
        self.ok(self.api.delete('/servers/%s/os-interface/%s' % (
            server['id'], boot_port)), 202)
        self.port(boot_port, 404)
        self.assertEqual(1, len(self.interfaces(server['id'])))
