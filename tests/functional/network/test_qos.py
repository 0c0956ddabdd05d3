"""Neutron's QoS under /network: policies and their rules, rule types,
the policy networks, ports, floating IPs and router gateways carry, and
Neutron's 400s, 403s, 404s and 409s."""

from tests.functional.api import fixtures as api_fixtures
from tests.functional.network import base

ADMIN = api_fixtures.ADMIN
MEMBER = api_fixtures.MEMBER          # alice:proj-a, member and reader
OTHER = api_fixtures.OTHER            # bob:proj-b
READER = api_fixtures.READER          # rita:proj-a, reader only
MANAGER = 'mia:proj-a:manager,member,reader'
P = '/qos/policies'


class QosTestCase(base.NetworkTestCase):

    def policy(self, token=MANAGER, status=201, **values):
        body = self.call('POST', P, {'policy': dict(
            {'name': 'gold'}, **values)}, token=token, status=status)
        return body.get('policy')

    def rule(self, policy, kind, status=201, token=MANAGER, **values):
        body = self.call('POST', '%s/%s/%s_rules' % (P, policy['id'], kind),
                         {kind + '_rule': values}, token=token,
                         status=status)
        return body.get(kind + '_rule', body)

    def error(self, body):
        return body['NeutronError']['type']


class QosPoliciesTest(QosTestCase):

    def test_policy_lifecycle(self):
        made = self.policy(description='10 Mbit')
        self.assertEqual(
            ('gold', '10 Mbit', False, False, [], [], 'proj-a', 0),
            (made['name'], made['description'], made['shared'],
             made['is_default'], made['rules'], made['tags'],
             made['project_id'], made['revision_number']))
        path = '%s/%s' % (P, made['id'])
        # the project's readers read it, others do not see it
        self.assertEqual('gold', self.call('GET', path,
                                           token=READER)['policy']['name'])
        self.assertEqual([made['id']], [p['id'] for p in self.call(
            'GET', P + '?name=gold', token=READER)['policies']])
        self.call('GET', path, token=OTHER, status=404)
        self.assertEqual([], self.call('GET', P, token=OTHER)['policies'])
        updated = self.call('PUT', path, {'policy': {
            'name': 'silver', 'description': ''}}, token=MANAGER)['policy']
        self.assertEqual(('silver', 1), (updated['name'],
                                         updated['revision_number']))
        # tags (standard-attr-tag), under the collection's bare name
        self.call('PUT', '/policies/%s/tags' % made['id'], {
            'tags': ['blue']}, token=MANAGER)
        self.call('PUT', path + '/tags', {'tags': ['red']}, token=MANAGER,
                  status=404)
        self.assertEqual(['blue'], self.call('GET', path)['policy']['tags'])
        self.assertEqual([made['id']], [p['id'] for p in self.call(
            'GET', P + '?tags=blue')['policies']])
        self.call('DELETE', path, token=MANAGER, status=204)
        missing = self.call('GET', path, status=404)
        self.assertEqual('QosPolicyNotFound', self.error(missing))

    def test_who_writes(self):
        # Neutron's defaults: admins and the project's managers
        self.policy(token=MEMBER, status=403)
        self.policy(token=READER, status=403)
        self.policy(token=MANAGER, project_id='proj-b', status=403)
        made = self.policy(token=ADMIN, project_id='proj-a')
        path = '%s/%s' % (P, made['id'])
        self.call('PUT', path, {'policy': {'name': 'x'}}, token=MEMBER,
                  status=403)
        self.call('DELETE', path, token=MEMBER, status=403)
        self.call('PUT', path, {'policy': {'project_id': 'proj-b'}},
                  token=ADMIN, status=400)
        self.call('DELETE', path, token=MANAGER, status=204)

    def test_bad_values(self):
        for values in ({'shared': 'sometimes'}, {'name': 'x' * 256},
                       {'is_default': 3}, {'rules': []}, {'color': 'red'}):
            self.policy(status=400, **values)
        self.call('POST', P, {'policies': 'x'}, token=MANAGER, status=400)
        self.assertEqual([], self.call('GET', P, token=ADMIN)['policies'])

    def test_shared_with_every_project(self):
        made = self.policy(token=ADMIN, project_id='proj-a', shared=True)
        self.assertTrue(made['shared'])
        seen = self.call('GET', '%s/%s' % (P, made['id']), token=OTHER)
        self.assertTrue(seen['policy']['shared'])
        policies = self.call('GET', '/rbac-policies', token=ADMIN)
        self.assertEqual([('qos_policy', made['id'], '*')], [
            (r['object_type'], r['object_id'], r['target_tenant'])
            for r in policies['rbac_policies']])
        # another project's network carries it; unsharing then is a 409
        net = self.call('POST', '/networks', {'network': {
            'name': 'b', 'qos_policy_id': made['id']}}, token=OTHER,
            status=201)['network']
        self.assertEqual(made['id'], net['qos_policy_id'])
        busy = self.call('PUT', '%s/%s' % (P, made['id']), {'policy': {
            'shared': False}}, token=ADMIN, status=409)
        self.assertEqual('RbacPolicyInUse', self.error(busy))
        # a project may drop a shared policy, not one it cannot see
        self.call('PUT', '/networks/%s' % net['id'], {'network': {
            'qos_policy_id': None}}, token=OTHER)
        self.call('PUT', '%s/%s' % (P, made['id']), {'policy': {
            'shared': False}}, token=ADMIN)
        self.call('GET', '%s/%s' % (P, made['id']), token=OTHER,
                  status=404)

    def test_sharing_with_one_project(self):
        made = self.policy()
        self.call('POST', '/rbac-policies', {'rbac_policy': {
            'object_type': 'qos_policy', 'object_id': made['id'],
            'action': 'access_as_shared', 'target_tenant': 'proj-b'}},
            status=201)
        seen = self.call('GET', '%s/%s' % (P, made['id']), token=OTHER)
        self.assertTrue(seen['policy']['shared'])
        self.call('POST', '/rbac-policies', {'rbac_policy': {
            'object_type': 'qos_policy', 'object_id': made['id'],
            'action': 'access_as_external', 'target_tenant': 'proj-b'}},
            status=400)

    def test_default_policy(self):
        made = self.policy(is_default=True)
        self.assertTrue(made['is_default'])
        twice = self.call('POST', P, {'policy': {
            'name': 'second', 'is_default': True}}, token=MANAGER,
            status=409)
        self.assertEqual('QoSPolicyDefaultAlreadyExists', self.error(twice))
        other = self.policy(name='second')
        self.call('PUT', '%s/%s' % (P, other['id']), {'policy': {
            'is_default': True}}, token=MANAGER, status=409)
        # another project has a default of its own
        self.policy(token=ADMIN, project_id='proj-b', is_default=True)
        # a new network of the project gets it unless it names one
        net = self.call('POST', '/networks', {'network': {'name': 'n'}},
                        status=201)['network']
        self.assertEqual(made['id'], net['qos_policy_id'])
        named = self.call('POST', '/networks', {'network': {
            'name': 'm', 'qos_policy_id': other['id']}},
            status=201)['network']
        self.assertEqual(other['id'], named['qos_policy_id'])
        # unmarked, it is no project's default any more
        self.call('PUT', '%s/%s' % (P, made['id']), {'policy': {
            'is_default': False}}, token=MANAGER)
        net = self.call('POST', '/networks', {'network': {'name': 'o'}},
                        status=201)['network']
        self.assertIsNone(net['qos_policy_id'])
        self.call('PUT', '%s/%s' % (P, other['id']), {'policy': {
            'is_default': True}}, token=MANAGER)


class QosRulesTest(QosTestCase):

    def test_every_rule_type(self):
        made = self.policy()
        cases = (
            ('bandwidth_limit', {'max_kbps': 10000},
             {'max_kbps': 10000, 'max_burst_kbps': 0,
              'direction': 'egress'}),
            ('dscp_marking', {'dscp_mark': '26'}, {'dscp_mark': 26}),
            ('minimum_bandwidth', {'min_kbps': 1000, 'direction': 'ingress'},
             {'min_kbps': 1000, 'direction': 'ingress'}),
            ('packet_rate_limit', {'max_kpps': 5, 'max_burst_kpps': 7},
             {'max_kpps': 5, 'max_burst_kpps': 7, 'direction': 'egress'}),
            ('minimum_packet_rate', {'min_kpps': 3, 'direction': 'any'},
             {'min_kpps': 3, 'direction': 'any'}))
        ids = {}
        for kind, values, expected in cases:
            rule = self.rule(made, kind, **values)
            ids[kind] = rule.pop('id')
            self.assertEqual(expected, rule, kind)
            listed = self.call('GET', '%s/%s/%s_rules' % (
                P, made['id'], kind), token=READER)[kind + '_rules']
            self.assertEqual([ids[kind]], [r['id'] for r in listed])
        shown = self.call('GET', '%s/%s' % (P, made['id']))['policy']
        self.assertEqual(
            sorted((kind, ids[kind], made['id']) for kind in ids),
            sorted((r['type'], r['id'], r['qos_policy_id'])
                   for r in shown['rules']))
        path = '%s/%s/bandwidth_limit_rules/%s' % (
            P, made['id'], ids['bandwidth_limit'])
        updated = self.call('PUT', path, {'bandwidth_limit_rule': {
            'max_kbps': 15000, 'max_burst_kbps': 1800,
            'direction': 'ingress'}}, token=MANAGER)['bandwidth_limit_rule']
        self.assertEqual((15000, 1800, 'ingress'), (
            updated['max_kbps'], updated['max_burst_kbps'],
            updated['direction']))
        self.assertEqual(updated, self.call('GET', path)[
            'bandwidth_limit_rule'])
        # the aliases reach a rule by its id alone
        alias = '/qos/alias_dscp_marking_rules/%s' % ids['dscp_marking']
        self.assertEqual(26, self.call('GET', alias)[
            'alias_dscp_marking_rule']['dscp_mark'])
        self.call('PUT', alias, {'alias_dscp_marking_rule': {
            'dscp_mark': 32}}, token=MANAGER)
        self.assertEqual(32, self.call('GET', '%s/%s/dscp_marking_rules/%s'
                                       % (P, made['id'],
                                          ids['dscp_marking']))[
            'dscp_marking_rule']['dscp_mark'])
        self.call('DELETE', alias, token=MANAGER, status=204)
        self.call('GET', alias, status=404)
        self.call('DELETE', path, token=MANAGER, status=204)
        gone = self.call('GET', path, status=404)
        self.assertEqual('QosRuleNotFound', self.error(gone))
        self.assertEqual(
            ['minimum_bandwidth', 'minimum_packet_rate', 'packet_rate_limit'],
            sorted(r['type'] for r in self.call(
                'GET', '%s/%s' % (P, made['id']))['policy']['rules']))

    def test_rule_validation(self):
        made = self.policy()
        bad = (
            ('dscp_marking', {'dscp_mark': 42}),
            ('dscp_marking', {'dscp_mark': 'x'}),
            ('dscp_marking', {}),
            ('bandwidth_limit', {'max_kbps': -1}),
            ('bandwidth_limit', {'max_kbps': 2 ** 31}),
            ('bandwidth_limit', {'max_kbps': 'fast'}),
            ('bandwidth_limit', {'max_kbps': True}),
            ('bandwidth_limit', {'max_kbps': 1, 'direction': 'any'}),
            ('bandwidth_limit', {'max_kbps': 1, 'dscp_mark': 8}),
            ('minimum_bandwidth', {'min_kbps': 1, 'direction': 'up'}),
            ('minimum_packet_rate', {'direction': 'any'}),
        )
        for kind, values in bad:
            self.rule(made, kind, status=400, **values)
        self.assertEqual([], self.call('GET', '%s/%s' % (
            P, made['id']))['policy']['rules'])
        self.call('POST', '%s/%s/dscp_marking_rules' % (P, made['id']),
                  {'bandwidth_limit_rule': {'max_kbps': 1}}, token=MANAGER,
                  status=400)
        missing = self.rule({'id': '0' * 32}, 'dscp_marking', status=404,
                            dscp_mark=8)
        self.assertEqual('QosPolicyNotFound', self.error(missing))
        # a rule's type is its route's
        rule = self.rule(made, 'dscp_marking', dscp_mark=8)
        self.call('GET', '%s/%s/bandwidth_limit_rules/%s' % (
            P, made['id'], rule['id']), status=404)
        self.call('PUT', '%s/%s/dscp_marking_rules/%s' % (
            P, made['id'], rule['id']), {'dscp_marking_rule': {
                'dscp_mark': 41}}, token=MANAGER, status=400)

    def test_rule_conflicts(self):
        made = self.policy()
        first = self.rule(made, 'bandwidth_limit', max_kbps=1000)
        twice = self.rule(made, 'bandwidth_limit', max_kbps=2000,
                          status=409)
        self.assertEqual('QoSRulesConflict', self.error(twice))
        self.assertIn(first['id'], twice['NeutronError']['message'])
        self.rule(made, 'bandwidth_limit', max_kbps=500, direction='ingress')
        self.rule(made, 'dscp_marking', dscp_mark=8)
        self.rule(made, 'dscp_marking', dscp_mark=10, status=409)
        # a minimum above the maximum of its direction
        over = self.rule(made, 'minimum_bandwidth', min_kbps=1500,
                         status=409)
        self.assertEqual('QoSRuleParameterConflict', self.error(over))
        low = self.rule(made, 'minimum_bandwidth', min_kbps=800)
        self.call('PUT', '%s/%s/bandwidth_limit_rules/%s' % (
            P, made['id'], first['id']), {'bandwidth_limit_rule': {
                'max_kbps': 700}}, token=MANAGER, status=409)
        # moving a rule onto another's direction
        ingress = [r for r in self.call('GET', '%s/%s' % (
            P, made['id']))['policy']['rules']
            if r.get('direction') == 'ingress'][0]
        self.call('PUT', '%s/%s/bandwidth_limit_rules/%s' % (
            P, made['id'], ingress['id']), {'bandwidth_limit_rule': {
                'direction': 'egress'}}, token=MANAGER, status=409)
        # a change naming no direction is checked against every direction
        # (the ingress limit is 500), as Neutron checks it
        rule = '%s/%s/minimum_bandwidth_rules/%s' % (P, made['id'], low['id'])
        self.call('PUT', rule, {'minimum_bandwidth_rule': {
            'min_kbps': 900}}, token=MANAGER, status=409)
        self.call('PUT', rule, {'minimum_bandwidth_rule': {
            'min_kbps': 900, 'direction': 'egress'}}, token=MANAGER)
        # a directionless minimum packet rate beside a directional one
        self.rule(made, 'minimum_packet_rate', min_kpps=1)
        mixed = self.rule(made, 'minimum_packet_rate', min_kpps=1,
                          direction='any', status=409)
        self.assertEqual('QoSRuleParameterConflict', self.error(mixed))
        before = self.call('GET', '%s/%s' % (P, made['id']))['policy']
        self.assertEqual(5, len(before['rules']))

    def test_who_writes_rules(self):
        made = self.policy()
        rule = self.rule(made, 'dscp_marking', dscp_mark=8)
        path = '%s/%s/dscp_marking_rules' % (P, made['id'])
        self.rule(made, 'bandwidth_limit', token=MEMBER, status=403,
                  max_kbps=1)
        self.call('PUT', '%s/%s' % (path, rule['id']), {
            'dscp_marking_rule': {'dscp_mark': 10}}, status=403)
        self.call('DELETE', '%s/%s' % (path, rule['id']), status=403)
        self.call('GET', path, token=READER)
        self.call('GET', path, token=OTHER, status=404)
        self.call('GET', '/qos/alias_dscp_marking_rules/%s' % rule['id'],
                  token=OTHER, status=404)
        self.call('DELETE', '%s/%s' % (path, rule['id']), token=ADMIN,
                  status=204)


class QosRuleTypesTest(QosTestCase):

    def test_rule_types(self):
        kinds = ['bandwidth_limit', 'dscp_marking', 'minimum_bandwidth',
                 'packet_rate_limit', 'minimum_packet_rate']
        for query in ('', '?all_supported=true', '?all_rules=True'):
            listed = self.call('GET', '/qos/rule-types' + query,
                               token=READER)['rule_types']
            self.assertEqual(sorted(kinds), sorted(t['type']
                                                   for t in listed))
        self.call('GET', '/qos/rule-types?all_rules=maybe', status=400)
        shown = self.call('GET', '/qos/rule-types/dscp_marking',
                          token=ADMIN)['rule_type']
        self.assertEqual('dscp_marking', shown['type'])
        self.assertEqual(['openvswitch'], [d['name']
                                          for d in shown['drivers']])
        mark = shown['drivers'][0]['supported_parameters'][0]
        self.assertEqual(('dscp_mark', 'choices'), (
            mark['parameter_name'], mark['parameter_type']))
        self.assertNotIn(42, mark['parameter_values'])
        self.call('GET', '/qos/rule-types/dscp_marking', status=403)
        self.call('GET', '/qos/rule-types/shaping', token=ADMIN,
                  status=404)

    def test_extensions_listed(self):
        aliases = {e['alias'] for e in self.call('GET', '/extensions')[
            'extensions']}
        for alias in ('qos', 'qos-default', 'qos-bw-limit-direction',
                      'qos-bw-minimum-ingress', 'qos-rule-type-details',
                      'qos-rule-type-filter', 'qos-rules-alias', 'qos-pps',
                      'qos-pps-minimum', 'qos-pps-minimum-rule-alias',
                      'qos-fip', 'qos-gateway-ip',
                      'qos-port-network-policy'):
            self.assertIn(alias, aliases)
        self.assertNotIn('port-resource-request', aliases)


class QosCarriersTest(QosTestCase):
    """What names a policy: networks, ports, floating IPs, gateways."""

    def test_network_and_port(self):
        made = self.policy()
        net = self.call('POST', '/networks', {'network': {
            'name': 'n', 'qos_policy_id': made['id']}},
            status=201)['network']
        self.assertEqual(made['id'], net['qos_policy_id'])
        self.call('POST', '/subnets', {'subnet': {
            'network_id': net['id'], 'cidr': '10.0.0.0/24'}}, status=201)
        port = self.call('POST', '/ports', {'port': {
            'network_id': net['id']}}, status=201)['port']
        self.assertEqual((None, made['id']), (
            port['qos_policy_id'], port['qos_network_policy_id']))
        port = self.call('PUT', '/ports/%s' % port['id'], {'port': {
            'qos_policy_id': made['id']}})['port']
        self.assertEqual(made['id'], port['qos_policy_id'])
        busy = self.call('DELETE', '%s/%s' % (P, made['id']),
                         token=MANAGER, status=409)
        self.assertEqual('QosPolicyInUse', self.error(busy))
        self.assertIn('port %s' % port['id'],
                      busy['NeutronError']['message'])
        self.call('PUT', '/ports/%s' % port['id'], {'port': {
            'qos_policy_id': None}})
        busy = self.call('DELETE', '%s/%s' % (P, made['id']),
                         token=MANAGER, status=409)
        self.assertIn('network %s' % net['id'],
                      busy['NeutronError']['message'])
        self.call('PUT', '/networks/%s' % net['id'], {'network': {
            'qos_policy_id': None}})
        self.assertIsNone(self.call('GET', '/ports/%s' % port['id'])[
            'port']['qos_network_policy_id'])
        self.call('DELETE', '%s/%s' % (P, made['id']), token=MANAGER,
                  status=204)

    def test_bad_policy_ids(self):
        theirs = self.policy(token=ADMIN, project_id='proj-b')
        for value, status in (('nope', 400), (7, 400), ('0' * 32, 404),
                              (theirs['id'], 404)):
            body = self.call('POST', '/networks', {'network': {
                'name': 'n', 'qos_policy_id': value}}, status=status)
            if status == 404:
                self.assertEqual('QosPolicyNotFound', self.error(body))
        self.assertEqual([], self.call('GET', '/networks')['networks'])
        net = self.call('POST', '/networks', {'network': {'name': 'n'}},
                        status=201)['network']
        self.call('POST', '/ports', {'port': {
            'network_id': net['id'], 'qos_policy_id': theirs['id']}},
            status=404)
        self.assertEqual([], self.call('GET', '/ports')['ports'])
        # a policy the caller cannot see is not the caller's to remove
        self.call('PUT', '/networks/%s' % net['id'], {'network': {
            'qos_policy_id': theirs['id']}}, token=ADMIN)
        denied = self.call('PUT', '/networks/%s' % net['id'], {'network': {
            'qos_policy_id': None}}, status=403)
        self.assertEqual('PolicyRemoveAuthorizationError',
                         self.error(denied))

    def test_floating_ip_and_gateway(self):
        made = self.policy()
        ext = self.call('POST', '/networks', {'network': {
            'name': 'public', 'router:external': True}}, token=ADMIN,
            status=201)['network']
        self.call('POST', '/subnets', {'subnet': {
            'network_id': ext['id'], 'cidr': '172.24.4.0/24'}},
            token=ADMIN, status=201)
        fip = self.call('POST', '/floatingips', {'floatingip': {
            'floating_network_id': ext['id'],
            'qos_policy_id': made['id']}}, status=201)['floatingip']
        self.assertEqual(made['id'], fip['qos_policy_id'])
        router = self.call('POST', '/routers', {'router': {
            'name': 'r', 'external_gateway_info': {
                'network_id': ext['id'], 'qos_policy_id': made['id']}}},
            status=201)['router']
        info = router['external_gateway_info']
        self.assertEqual((ext['id'], made['id']), (
            info['network_id'], info['qos_policy_id']))
        self.call('PUT', '/floatingips/%s' % fip['id'], {'floatingip': {
            'qos_policy_id': None}})
        busy = self.call('DELETE', '%s/%s' % (P, made['id']),
                         token=MANAGER, status=409)
        self.assertIn('router %s' % router['id'],
                      busy['NeutronError']['message'])
        # the gateway keeps its policy unless the update names one
        router = self.call('PUT', '/routers/%s' % router['id'], {'router': {
            'external_gateway_info': {'network_id': ext['id']}}})['router']
        self.assertEqual(made['id'],
                         router['external_gateway_info']['qos_policy_id'])
        router = self.call('PUT', '/routers/%s' % router['id'], {'router': {
            'external_gateway_info': {'network_id': ext['id'],
                                      'qos_policy_id': None}}})['router']
        self.assertIsNone(router['external_gateway_info']['qos_policy_id'])
        self.call('DELETE', '%s/%s' % (P, made['id']), token=MANAGER,
                  status=204)
