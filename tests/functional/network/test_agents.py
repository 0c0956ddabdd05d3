"""Network agents: those of the network node and of each compute host,
what an admin changes on them, and which routers and networks the L3
and DHCP agents host."""

from nova_lite import conf as nl_conf
from tests.functional.api import fixtures as api_fixtures
from tests.functional.network import base

ADMIN = api_fixtures.ADMIN
MEMBER = api_fixtures.MEMBER
CONF = nl_conf.CONF


class AgentTest(base.NetworkTestCase):

    def setUp(self):
        super().setUp()
        self.api.add_compute('compute-a')

    def agents(self, query=''):
        return self.call('GET', '/agents' + query, token=ADMIN)['agents']

    def one(self, agent_type, host=None):
        return next(a for a in self.agents()
                    if a['agent_type'] == agent_type and
                    a['host'] == (host or CONF.host))

    def test_agents_of_the_lab_hosts(self):
        found = {(a['host'], a['agent_type'], a['alive'])
                 for a in self.agents()}
        self.assertEqual({
            (CONF.host, 'DHCP agent', True), (CONF.host, 'L3 agent', True),
            (CONF.host, 'Metadata agent', True),
            (CONF.host, 'Open vSwitch agent', True),
            ('compute-a', 'Open vSwitch agent', True)}, found)
        l3 = self.agents('?agent_type=L3+agent')
        self.assertEqual([('neutron-l3-agent', 'l3_agent', 'nova')],
                         [(a['binary'], a['topic'],
                           a['availability_zone']) for a in l3])
        shown = self.call('GET', '/agents/%s' % l3[0]['id'], token=ADMIN)
        self.assertEqual(l3[0], shown['agent'])

    def test_agents_are_the_admins(self):
        agent = self.one('L3 agent')
        self.assertEqual([], self.call('GET', '/agents')['agents'])
        body = self.call('GET', '/agents/%s' % agent['id'], status=404)
        self.assertEqual('AgentNotFound', body['NeutronError']['type'])
        self.call('PUT', '/agents/%s' % agent['id'], {'agent': {
            'description': 'x'}}, status=404)
        self.call('DELETE', '/agents/%s' % agent['id'], status=404)
        self.call('GET', '/agents/%s/l3-routers' % agent['id'], status=404)

    def test_update_and_delete(self):
        agent = self.one('Open vSwitch agent', 'compute-a')
        updated = self.call('PUT', '/agents/%s' % agent['id'], {'agent': {
            'admin_state_up': False, 'description': 'maintenance'}},
            token=ADMIN)['agent']
        self.assertEqual((False, 'maintenance'),
                         (updated['admin_state_up'], updated['description']))
        self.assertEqual(updated, self.one('Open vSwitch agent',
                                           'compute-a'))
        self.call('PUT', '/agents/%s' % agent['id'], {'agent': {
            'host': 'elsewhere'}}, token=ADMIN, status=400)
        self.call('PUT', '/agents/%s' % agent['id'], {'agent': {
            'admin_state_up': 'maybe'}}, token=ADMIN, status=400)
        self.call('DELETE', '/agents/%s' % agent['id'], token=ADMIN,
                  status=204)
        self.call('GET', '/agents/%s' % agent['id'], token=ADMIN,
                  status=404)
        # the running agent registers again, afresh
        again = self.one('Open vSwitch agent', 'compute-a')
        self.assertNotEqual(agent['id'], again['id'])
        self.assertEqual((True, None), (again['admin_state_up'],
                                        again['description']))

    def test_l3_agent_hosts_routers(self):
        agent = self.one('L3 agent')
        router = self.call('POST', '/routers', {'router': {'name': 'r'}},
                           status=201)['router']
        path = '/agents/%s/l3-routers' % agent['id']
        self.call('POST', path, {'router_id': router['id']}, token=ADMIN,
                  status=201)
        self.assertEqual([router['id']], [r['id'] for r in self.call(
            'GET', path, token=ADMIN)['routers']])
        hosting = self.call('GET', '/routers/%s/l3-agents' % router['id'],
                            token=ADMIN)['agents']
        self.assertEqual([agent['id']], [a['id'] for a in hosting])
        self.call('DELETE', '%s/%s' % (path, router['id']), token=ADMIN,
                  status=204)
        self.assertEqual([], self.call('GET', '/routers/%s/l3-agents'
                                       % router['id'],
                                       token=ADMIN)['agents'])
        body = self.call('DELETE', '%s/%s' % (path, router['id']),
                         token=ADMIN, status=404)
        self.assertEqual('RouterNotHostedByL3Agent',
                         body['NeutronError']['type'])
        self.call('POST', path, {'router_id': 'nope'}, token=ADMIN,
                  status=404)
        dhcp = self.one('DHCP agent')
        body = self.call('POST', '/agents/%s/l3-routers' % dhcp['id'],
                         {'router_id': router['id']}, token=ADMIN,
                         status=400)
        self.assertEqual('InvalidL3Agent', body['NeutronError']['type'])

    def test_dhcp_agent_hosts_networks(self):
        agent = self.one('DHCP agent')
        net = self.call('POST', '/networks', {'network': {'name': 'n'}},
                        status=201)['network']
        path = '/agents/%s/dhcp-networks' % agent['id']
        self.call('POST', path, {'network_id': net['id']}, token=ADMIN,
                  status=201)
        body = self.call('POST', path, {'network_id': net['id']},
                         token=ADMIN, status=409)
        self.assertEqual('NetworkHostedByDHCPAgent',
                         body['NeutronError']['type'])
        self.assertEqual([net['id']], [n['id'] for n in self.call(
            'GET', path, token=ADMIN)['networks']])
        self.assertEqual([agent['id']], [a['id'] for a in self.call(
            'GET', '/networks/%s/dhcp-agents' % net['id'],
            token=ADMIN)['agents']])
        self.call('DELETE', '%s/%s' % (path, net['id']), token=ADMIN,
                  status=204)
        self.call('DELETE', '%s/%s' % (path, net['id']), token=ADMIN,
                  status=409)
        self.call('POST', path, {}, token=ADMIN, status=400)
