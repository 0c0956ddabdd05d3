"""Trunks: a parent port with VLAN subports, the parent's
trunk_details, and the rules on which ports may be in a trunk."""

from tests.functional.api import fixtures as api_fixtures
from tests.functional.network import base

ADMIN = api_fixtures.ADMIN
MEMBER = api_fixtures.MEMBER
OTHER = api_fixtures.OTHER


class TrunkTest(base.NetworkTestCase):

    def setUp(self):
        super().setUp()
        self.net = self.call('POST', '/networks', {'network': {
            'name': 'n'}}, status=201)['network']
        self.call('POST', '/subnets', {'subnet': {
            'network_id': self.net['id'], 'cidr': '10.2.0.0/24'}},
            status=201)
        self.parent, self.sub1, self.sub2 = [self.port() for _ in range(3)]

    def port(self, token=MEMBER):
        return self.call('POST', '/ports', {'port': {
            'network_id': self.net['id']}}, token=token,
            status=201)['port']

    def trunk(self, port_id=None, status=201, **values):
        values.setdefault('port_id', port_id or self.parent['id'])
        return self.call('POST', '/trunks', {'trunk': values},
                         status=status)

    def subport(self, port, segment, kind='vlan'):
        return {'port_id': port['id'], 'segmentation_type': kind,
                'segmentation_id': segment}

    def test_crud_and_subports(self):
        trunk = self.trunk(name='t')['trunk']
        self.assertEqual(('t', [], 'DOWN', True),
                         (trunk['name'], trunk['sub_ports'],
                          trunk['status'], trunk['admin_state_up']))
        self.assertEqual([trunk['id']], [t['id'] for t in self.call(
            'GET', '/trunks?name=t')['trunks']])
        self.assertEqual({'sub_ports': []}, self.call(
            'GET', '/trunks/%s/get_subports' % trunk['id']))
        added = self.call('PUT', '/trunks/%s/add_subports' % trunk['id'],
                          {'sub_ports': [self.subport(self.sub1, 100)]})
        self.assertEqual([self.subport(self.sub1, 100)],
                         added['sub_ports'])
        sub = self.call('GET', '/ports/%s' % self.sub1['id'])['port']
        self.assertEqual(('trunk:subport', trunk['id']),
                         (sub['device_owner'], sub['device_id']))
        details = self.call('GET', '/ports/%s' % self.parent['id'])[
            'port']['trunk_details']
        self.assertEqual({'trunk_id': trunk['id'], 'sub_ports': [dict(
            self.subport(self.sub1, 100),
            mac_address=self.sub1['mac_address'])]}, details)
        removed = self.call(
            'PUT', '/trunks/%s/remove_subports' % trunk['id'],
            {'sub_ports': [{'port_id': self.sub1['id']}]})
        self.assertEqual([], removed['sub_ports'])
        self.assertEqual('', self.call('GET', '/ports/%s' % self.sub1[
            'id'])['port']['device_owner'])
        renamed = self.call('PUT', '/trunks/%s' % trunk['id'],
                            {'trunk': {'name': 'u'}})['trunk']
        self.assertEqual('u', renamed['name'])
        self.call('DELETE', '/trunks/%s' % trunk['id'], status=204)
        self.assertNotIn('trunk_details', self.call(
            'GET', '/ports/%s' % self.parent['id'])['port'])
        self.call('DELETE', '/ports/%s' % self.parent['id'], status=204)

    def test_ports_of_a_trunk_are_held(self):
        trunk = self.trunk(sub_ports=[self.subport(self.sub1, 7)])['trunk']
        body = self.call('DELETE', '/ports/%s' % self.parent['id'],
                         status=409)
        self.assertEqual('PortInUseAsTrunkParent',
                         body['NeutronError']['type'])
        body = self.call('DELETE', '/ports/%s' % self.sub1['id'],
                         status=409)
        self.assertEqual('PortInUseAsSubPort', body['NeutronError']['type'])
        body = self.trunk(status=409)
        self.assertEqual('TrunkPortInUse', body['NeutronError']['type'])
        body = self.trunk(port_id=self.sub1['id'], status=409)
        self.assertEqual('PortInUseAsSubPort', body['NeutronError']['type'])
        other = self.trunk(port_id=self.sub2['id'])['trunk']
        body = self.call('PUT', '/trunks/%s/add_subports' % other['id'],
                         {'sub_ports': [self.subport(self.parent, 9)]},
                         status=409)
        self.assertEqual('PortInUseAsTrunkParent',
                         body['NeutronError']['type'])
        # deleting the trunk frees its ports
        self.call('DELETE', '/trunks/%s' % trunk['id'], status=204)
        self.call('DELETE', '/ports/%s' % self.sub1['id'], status=204)

    def test_subport_validation(self):
        trunk = self.trunk(sub_ports=[self.subport(self.sub1, 7)])['trunk']
        path = '/trunks/%s/add_subports' % trunk['id']
        body = self.call('PUT', path, {'sub_ports': [
            self.subport(self.sub2, 7)]}, status=409)
        self.assertEqual('DuplicateSubPort', body['NeutronError']['type'])
        for bad in (self.subport(self.sub2, 0), self.subport(self.sub2, 4095),
                    self.subport(self.sub2, 'x'),
                    self.subport(self.sub2, 8, kind='vxlan'),
                    {'port_id': self.sub2['id']}):
            self.call('PUT', path, {'sub_ports': [bad]}, status=400)
        self.call('PUT', path, {'sub_ports': [{
            'port_id': 'nope', 'segmentation_type': 'vlan',
            'segmentation_id': 8}]}, status=404)
        self.call('PUT', path, {'nothing': []}, status=400)
        body = self.call('PUT', '/trunks/%s/remove_subports' % trunk['id'],
                         {'sub_ports': [{'port_id': self.sub2['id']}]},
                         status=404)
        self.assertEqual('SubPortNotFound', body['NeutronError']['type'])
        # the failed requests changed nothing
        self.assertEqual([self.subport(self.sub1, 7)], self.call(
            'GET', '/trunks/%s/get_subports' % trunk['id'])['sub_ports'])
        self.trunk(port_id='nope', status=404)
        self.call('POST', '/trunks', {'trunk': {'name': 'x'}}, status=400)

    def test_disabled_trunk_takes_no_subports(self):
        trunk = self.trunk(admin_state_up=False)['trunk']
        body = self.call('PUT', '/trunks/%s/add_subports' % trunk['id'],
                         {'sub_ports': [self.subport(self.sub1, 5)]},
                         status=409)
        self.assertEqual('TrunkDisabled', body['NeutronError']['type'])

    def test_bound_parent_makes_an_active_trunk_in_use(self):
        trunk = self.trunk()['trunk']
        self.call('PUT', '/ports/%s' % self.parent['id'],
                  {'port': {'device_id': 'server-1'}})
        self.assertEqual('ACTIVE', self.call(
            'GET', '/trunks/%s' % trunk['id'])['trunk']['status'])
        body = self.call('DELETE', '/trunks/%s' % trunk['id'], status=409)
        self.assertEqual('TrunkInUse', body['NeutronError']['type'])

    def test_other_projects(self):
        trunk = self.trunk()['trunk']
        self.call('GET', '/trunks/%s' % trunk['id'], token=OTHER,
                  status=404)
        self.assertEqual([], self.call('GET', '/trunks',
                                       token=OTHER)['trunks'])
        self.call('DELETE', '/trunks/%s' % trunk['id'], token=OTHER,
                  status=404)
        self.call('POST', '/trunks', {'trunk': {
            'port_id': self.sub1['id']}}, token=OTHER, status=404)
        self.call('GET', '/trunks/%s' % trunk['id'], token=ADMIN)
        self.call('POST', '/trunks', {'trunk': {
            'port_id': self.sub1['id'], 'project_id': 'proj-b'}},
            status=403)
