"""What a Nova user sees on routes nova_lite serves, where a copy is easy
to get wrong: flavor access listings, quota keys, aggregates,
os-hosts writes, hypervisor ids and uptime, Nova's service binaries,
x509 key pairs, the legacy /v2 endpoint, the request id headers and
long request lines."""

import base64

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography import x509
import fixtures
import requests
import testtools

from nova_lite.db.cell import api as cell_db
from tests.functional.api import fixtures as api_fixtures
from tests.functional.api import server as api_server

V = '/v2.1'
MEMBER = api_fixtures.MEMBER
OTHER = api_fixtures.OTHER


def _flavor(name, flavorid, public=True):
    return {'flavor': {'name': name, 'id': flavorid, 'ram': 512,
                       'vcpus': 1, 'disk': 1,
                       'os-flavor-access:is_public': public}}


class FidelityTestCase(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.api = self.useFixture(api_fixtures.APIFixture(cells=('cell1',)))


class TestFlavorAccessListing(FidelityTestCase):
    def setUp(self):
        super().setUp()
        self.api.post(V + '/flavors', _flavor('pub', '1'))
        self.api.post(V + '/flavors', _flavor('priv', '2', public=False))
        self.api.post(V + '/flavors', _flavor('other', '3', public=False))
        self.api.post(V + '/flavors/2/action',
                      {'addTenantAccess': {'tenant': 'proj-a'}})

    def _ids(self, path, token):
        return [f['id'] for f in self.api.get(path, token=token).body[
            'flavors']]

    def test_member_lists_public_and_shared_flavors(self):
        for path in ('/flavors', '/flavors/detail'):
            self.assertEqual(['1', '2'], self._ids(V + path, MEMBER))
            self.assertEqual(['1'], self._ids(V + path, OTHER))
        # A member cannot widen or narrow the listing (Nova ignores it).
        self.assertEqual(['1', '2'], self._ids(
            V + '/flavors?is_public=false', MEMBER))
        self.assertEqual(['1'], self._ids(
            V + '/flavors/detail?is_public=None', OTHER))

    def test_admin_chooses_with_is_public(self):
        self.assertEqual(['1'], self._ids(V + '/flavors', 'admin'))
        self.assertEqual(['1', '2', '3'], self._ids(
            V + '/flavors?is_public=none', 'admin'))
        self.assertEqual(['2', '3'], self._ids(
            V + '/flavors?is_public=false', 'admin'))
        self.api.post(V + '/flavors/3/action',
                      {'addTenantAccess': {'tenant': 'admin'}})
        self.assertEqual(['1', '3'], self._ids(V + '/flavors', 'admin'))


class TestQuotaSets(FidelityTestCase):
    def test_file_path_key_and_versions(self):
        quota = self.api.get(V + '/os-quota-sets/proj-a').body['quota_set']
        self.assertEqual(255, quota['injected_file_path_bytes'])
        self.assertNotIn('injected_file_path_length', quota)
        self.assertEqual(-1, quota['floating_ips'])
        self.assertNotIn('networks', quota)
        at_2_36 = self.api.get(V + '/os-quota-sets/proj-a',
                               version='2.36').body['quota_set']
        self.assertNotIn('floating_ips', at_2_36)
        self.assertIn('injected_files', at_2_36)
        at_2_57 = self.api.get(V + '/os-quota-sets/proj-a/detail',
                               version='2.57').body['quota_set']
        self.assertNotIn('injected_file_path_bytes', at_2_57)
        self.assertEqual({'limit': 10, 'in_use': 0, 'reserved': 0},
                         at_2_57['instances'])

    def test_update_answers_without_id(self):
        resp = self.api.put(V + '/os-quota-sets/proj-a', {'quota_set': {
            'injected_file_path_bytes': 100, 'cores': 7}})
        self.assertEqual(200, resp.status, resp)
        self.assertNotIn('id', resp.body['quota_set'])
        self.assertEqual((100, 7), (
            resp.body['quota_set']['injected_file_path_bytes'],
            resp.body['quota_set']['cores']))
        shown = self.api.get(V + '/os-quota-sets/proj-a').body['quota_set']
        self.assertEqual(('proj-a', 100), (
            shown['id'], shown['injected_file_path_bytes']))
        self.assertEqual(400, self.api.put(V + '/os-quota-sets/proj-a', {
            'quota_set': {'networks': 3}}).status)
        self.assertEqual(400, self.api.put(
            V + '/os-quota-sets/proj-a',
            {'quota_set': {'injected_file_path_bytes': 1}},
            version='2.57').status)


    def test_legacy_network_quotas_below_2_36(self):
        resp = self.api.put(V + '/os-quota-sets/proj-a', {'quota_set': {
            'fixed_ips': 5, 'security_groups': 7}})
        self.assertEqual((5, 7, -1), (
            resp.body['quota_set']['fixed_ips'],
            resp.body['quota_set']['security_groups'],
            resp.body['quota_set']['floating_ips']))
        detail = self.api.get(V + '/os-quota-sets/proj-a/detail').body
        self.assertEqual({'limit': 5, 'in_use': 0, 'reserved': 0},
                         detail['quota_set']['fixed_ips'])
        self.assertEqual(400, self.api.put(
            V + '/os-quota-sets/proj-a', {'quota_set': {'fixed_ips': 5}},
            version='2.36').status)

    def test_refused_update_changes_nothing(self):
        self.assertEqual(200, self.api.post(
            V + '/os-server-groups', {'server_group': {
                'name': 'g', 'policies': ['affinity']}},
            token=MEMBER).status)
        resp = self.api.put(V + '/os-quota-sets/proj-a', {'quota_set': {
            'cores': 3, 'server_groups': 0}})
        self.assertEqual(400, resp.status, resp)
        shown = self.api.get(V + '/os-quota-sets/proj-a').body['quota_set']
        self.assertEqual((20, 10), (shown['cores'], shown['server_groups']))


class TestAggregates(FidelityTestCase):
    def test_create_answer_has_no_hosts_or_metadata(self):
        resp = self.api.post(V + '/os-aggregates', {'aggregate': {
            'name': 'agg1', 'availability_zone': 'az1'}})
        self.assertEqual(200, resp.status, resp)
        created = resp.body['aggregate']
        self.assertNotIn('hosts', created)
        self.assertNotIn('metadata', created)
        self.assertEqual('az1', created['availability_zone'])
        shown = self.api.get(V + '/os-aggregates/%d' % created['id'])
        self.assertEqual({'availability_zone': 'az1'},
                         shown.body['aggregate']['metadata'])
        self.assertEqual([], shown.body['aggregate']['hosts'])

    def _aggregate(self, name, zone=None):
        body = {'name': name}
        if zone is not None:
            body['availability_zone'] = zone
        resp = self.api.post(V + '/os-aggregates', {'aggregate': body})
        self.assertEqual(200, resp.status, resp)
        return resp.body['aggregate']

    def test_zone_named_internal_is_accepted(self):
        """Nova reserves no zone name: ``internal`` (the services' own
        zone) may be an aggregate's, at create, update or set_metadata."""
        created = self._aggregate('agg1', zone='internal')
        self.assertEqual('internal', created['availability_zone'])
        other = self._aggregate('agg2')
        url = V + '/os-aggregates/%d' % other['id']
        resp = self.api.put(url, {'aggregate': {
            'availability_zone': 'internal'}})
        self.assertEqual(200, resp.status, resp)
        self.assertEqual('internal',
                         resp.body['aggregate']['availability_zone'])
        third = self._aggregate('agg3')
        resp = self.api.post(
            V + '/os-aggregates/%d/action' % third['id'],
            {'set_metadata': {'metadata': {'availability_zone':
                                           'internal'}}})
        self.assertEqual(200, resp.status, resp)

    def test_zone_is_never_emptied_and_conflicts_are_400(self):
        """Nova's update and set_metadata answer 400 for a null zone and
        for a host that would be in two zones (add_host: 409)."""
        self.api.add_compute('host1')
        first = self._aggregate('agg1', zone='az1')
        plain = self._aggregate('agg2')
        for agg in (first, plain):
            resp = self.api.post(
                V + '/os-aggregates/%d/action' % agg['id'],
                {'add_host': {'host': 'host1'}})
            self.assertEqual(200, resp.status, resp)
        url = V + '/os-aggregates/%d' % plain['id']
        resp = self.api.put(url, {'aggregate': {'availability_zone': 'az2'}})
        self.assertEqual(400, resp.status, resp)
        self.assertIn("availability zone(s) ['az1']",
                      resp.body['badRequest']['message'])
        resp = self.api.post(url + '/action', {'set_metadata': {
            'metadata': {'availability_zone': 'az2'}}})
        self.assertEqual(400, resp.status, resp)
        first_url = V + '/os-aggregates/%d' % first['id']
        resp = self.api.put(first_url, {'aggregate': {
            'availability_zone': None}})
        self.assertEqual(400, resp.status, resp)
        self.assertIn('does not support empty named availability zone',
                      resp.body['badRequest']['message'])
        resp = self.api.post(first_url + '/action', {'set_metadata': {
            'metadata': {'availability_zone': None}}})
        self.assertEqual(400, resp.status, resp)
        shown = self.api.get(first_url).body['aggregate']
        self.assertEqual('az1', shown['availability_zone'])
        # The same zone again is no conflict.
        resp = self.api.put(url, {'aggregate': {'availability_zone': 'az1'}})
        self.assertEqual(200, resp.status, resp)

    def test_negative_id_is_not_found(self):
        for method in ('GET', 'DELETE'):
            self.assertEqual(404, self.api.request(
                method, V + '/os-aggregates/-1').status)
        self.assertEqual(400, self.api.get(V + '/os-aggregates/abc').status)


class TestHostsAndHypervisors(FidelityTestCase):
    def setUp(self):
        super().setUp()
        # host1 reports up and no compute listens on the fake bus: the
        # API's call to it (a disable) is recorded here, not left to wait
        # for the RPC timeout.
        self.host_enabled_calls = []
        self.useFixture(fixtures.MockPatch(
            'nova_lite.compute.rpcapi.ComputeAPI.set_host_enabled',
            side_effect=lambda ctxt, host, enabled:
            self.host_enabled_calls.append((host, enabled))))
        self.service, self.nodes = self.api.add_compute('host1', 'cell1')
        ctxt = self.api.cell_context('cell1')
        cell_db.service_create(ctxt, {'host': 'cond1', 'topic': 'conductor',
                                      'binary': 'nova-lite-conductor'})

    def test_host_update_answers_as_the_fake_driver(self):
        resp = self.api.put(V + '/os-hosts/host1', {
            'status': 'disable', 'maintenance_mode': 'Enable'})
        self.assertEqual(200, resp.status, resp)
        self.assertEqual({'host': 'host1', 'status': 'disabled',
                          'maintenance_mode': 'on_maintenance'}, resp.body)
        for body in ({}, {'status': 'maybe'}, {'maintenance_mode': 'on'},
                     {'status': 'enable', 'other': 1}):
            self.assertEqual(400, self.api.put(V + '/os-hosts/host1',
                                               body).status, body)
        self.assertEqual(404, self.api.put(V + '/os-hosts/nowhere', {
            'status': 'enable'}).status)
        self.assertEqual(403, self.api.put(V + '/os-hosts/host1', {
            'status': 'enable'}, token=MEMBER).status)
        self.assertEqual(404, self.api.put(V + '/os-hosts/host1', {
            'status': 'enable'}, version='2.43').status)

    def test_power_actions(self):
        for action in ('reboot', 'shutdown', 'startup'):
            resp = self.api.get(V + '/os-hosts/host1/%s' % action)
            self.assertEqual({'host': 'host1', 'power_action': action},
                             resp.body)
            self.assertEqual(404, self.api.get(
                V + '/os-hosts/nowhere/%s' % action).status)
            self.assertEqual(403, self.api.get(
                V + '/os-hosts/host1/%s' % action, token=MEMBER).status)

    def test_non_integer_hypervisor_id_below_2_53_is_not_found(self):
        for path in ('/os-hypervisors/abc', '/os-hypervisors/abc/uptime'):
            resp = self.api.get(V + path, version='2.52')
            self.assertEqual(404, resp.status, resp)
        self.assertEqual(400, self.api.get(V + '/os-hypervisors/abc',
                                           version='2.53').status)

    def test_uptime_is_a_string(self):
        node = self.nodes[0]
        resp = self.api.get(V + '/os-hypervisors/%d/uptime' % node.id)
        self.assertIsInstance(resp.body['hypervisor']['uptime'], str)
        self.assertIn(' up 0 days, 0:00', resp.body['hypervisor']['uptime'])
        detail = self.api.get(V + '/os-hypervisors/%s' % node.uuid,
                              version='2.88').body['hypervisor']
        self.assertIsInstance(detail['uptime'], str)

    def test_services_and_zones_speak_nova_binaries(self):
        services = self.api.get(V + '/os-services').body['services']
        self.assertEqual({('host1', 'nova-compute'),
                          ('cond1', 'nova-conductor')},
                         {(s['host'], s['binary']) for s in services})
        only = self.api.get(V + '/os-services?binary=nova-compute')
        self.assertEqual(['host1'], [s['host'] for s in
                                     only.body['services']])
        zones = self.api.get(V + '/os-availability-zone/detail').body[
            'availabilityZoneInfo']
        hosts = {host: sorted(binaries) for zone in zones
                 for host, binaries in zone['hosts'].items()}
        self.assertEqual({'host1': ['nova-compute'],
                          'cond1': ['nova-conductor']}, hosts)
        resp = self.api.put(V + '/os-services/disable', {
            'host': 'host1', 'binary': 'nova-compute'})
        self.assertEqual(200, resp.status, resp)
        self.assertEqual([('host1', False)], self.host_enabled_calls)


class TestX509Keypairs(FidelityTestCase):
    def test_generated_at_2_2(self):
        resp = self.api.post(V + '/os-keypairs', {'keypair': {
            'name': 'win', 'type': 'x509'}}, token=MEMBER, version='2.2')
        self.assertEqual(201, resp.status, resp)
        pair = resp.body['keypair']
        self.assertEqual('x509', pair['type'])
        cert = x509.load_pem_x509_certificate(pair['public_key'].encode())
        self.assertEqual('CN=alice', cert.subject.rfc4514_string())
        _key, bundled, _extra = pkcs12.load_key_and_certificates(
            base64.b64decode(pair['private_key']), None)
        self.assertEqual(cert, bundled)
        self.assertEqual(pair['fingerprint'], ':'.join(
            '%02x' % b for b in cert.fingerprint(hashes.SHA1())))
        shown = self.api.get(V + '/os-keypairs/win', token=MEMBER,
                             version='2.2').body['keypair']
        self.assertEqual(pair['public_key'], shown['public_key'])
        self.assertNotIn('private_key', shown)


class TestVersionsAndHeaders(FidelityTestCase):
    def test_every_advertised_version_answers(self):
        versions = self.api.get('/', token=None).body['versions']
        self.assertEqual({'v2.0': 'DEPRECATED', 'v2.1': 'CURRENT'},
                         {v['id']: v['status'] for v in versions})
        for version in versions:
            path = version['links'][0]['href'].split('nova.test:8774')[1]
            resp = self.api.get(path, token=None)
            self.assertEqual(200, resp.status, path)
            self.assertEqual(version['id'], resp.body['version']['id'])
        legacy = self.api.get('/v2', token=None).body['version']
        self.assertEqual(
            'application/vnd.openstack.compute+json;version=2',
            legacy['media-types'][0]['type'])

    def test_legacy_v2_serves_the_base_api(self):
        self.api.post(V + '/flavors', _flavor('pub', '1'))
        for path in ('/v2/flavors', '/v2/0123abcd/flavors',
                     '/v2/0123abcd/flavors/1'):
            resp = self.api.get(path, token=MEMBER, version='2.55')
            self.assertEqual(200, resp.status, path)
            self.assertNotIn('OpenStack-API-Version', resp.headers)
            self.assertNotIn('X-OpenStack-Nova-API-Version', resp.headers)
            self.assertNotIn('OpenStack-API-Version',
                             resp.headers.get('Vary', ''))
        flavor = self.api.get('/v2/flavors/1', token=MEMBER,
                              version='2.55').body['flavor']
        self.assertNotIn('description', flavor)   # 2.55 was not applied
        self.assertEqual(401, self.api.get('/v2/flavors', token=None).status)

    def test_project_id_in_v2_1_paths(self):
        self.api.post(V + '/flavors', _flavor('pub', '1'))
        token = 'demo:0123abcd'
        for path in ('/flavors', '/flavors/1', '/servers/detail'):
            resp = self.api.get(V + '/0123abcd' + path, token=token)
            self.assertEqual(200, resp.status, path)
            self.assertEqual(self.api.get(V + path, token=token).body,
                             resp.body)
        resp = self.api.get(V + '/fedcba98/flavors', token=token)
        self.assertEqual(400, resp.status)
        self.assertIn("URL's project_id 'fedcba98' doesn't match",
                      resp.body['badRequest']['message'])

    def test_request_id_headers(self):
        resp = self.api.get(V + '/flavors', token=MEMBER)
        request_id = resp.headers['x-compute-request-id']
        self.assertTrue(request_id.startswith('req-'))
        self.assertEqual(request_id, resp.headers['x-openstack-request-id'])
        self.assertIn('x-compute-request-id',
                      self.api.get(V + '/nowhere').headers)


class TestLongRequestLine(testtools.TestCase):
    def test_8000_byte_request_line_is_answered(self):
        """Nova behind Apache answers request lines up to 8190 bytes
        (``?uuid=...&uuid=...``); nova-lite-api's gunicorn reset the
        connection past 4094."""
        server = self.useFixture(api_server.APIServer())
        query = '&'.join('uuid=%s' % ('%036d' % i) for i in range(190))
        url = server.endpoint + '/servers?' + query
        line = 'GET %s HTTP/1.1' % url[len(server.host_url):]
        self.assertGreater(len(line), 7900)
        resp = requests.get(url, headers={'X-Auth-Token': 'admin'},
                            timeout=60)
        self.assertEqual(200, resp.status_code, resp.text)
        self.assertEqual([], resp.json()['servers'])
