"""The pipeline: version documents, microversions, auth, faults, routing."""

import os

import bcrypt
import testtools
import webob

from nova_lite.api import faults
from nova_lite.api import microversion
from nova_lite.wsgi import faults as wsgi_faults
from nova_lite.wsgi import microversion as wsgi_microversion
from tests.functional.api import fixtures as api_fixtures

V = '/v2.1'


class TestVersionDocuments(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.api = self.useFixture(api_fixtures.APIFixture(cells=('cell1',)))

    def test_root_lists_versions_without_credentials(self):
        resp = self.api.get('/', token=None)
        self.assertEqual(200, resp.status)
        by_id = {v['id']: v for v in resp.body['versions']}
        current = by_id['v2.1']
        self.assertEqual('CURRENT', current['status'])
        self.assertEqual('2.100', current['version'])
        self.assertEqual('2.1', current['min_version'])
        self.assertEqual('http://nova.test:8774/v2.1/',
                         current['links'][0]['href'])

    def test_v21_with_and_without_slash(self):
        for path in (V, V + '/'):
            resp = self.api.get(path, token=None)
            self.assertEqual(200, resp.status, path)
            self.assertEqual('2.100', resp.body['version']['version'])
            self.assertEqual('http://nova.test:8774/v2.1/',
                             resp.body['version']['links'][0]['href'])

    def test_healthcheck_without_credentials(self):
        resp = self.api.get('/healthcheck', token=None)
        self.assertEqual(200, resp.status)

    def test_request_id_on_every_response(self):
        resp = self.api.get(V + '/flavors')
        self.assertTrue(resp.headers['x-openstack-request-id'].startswith(
            'req-'))


class TestMicroversions(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.api = self.useFixture(api_fixtures.APIFixture(cells=('cell1',)))

    def _headers(self, resp):
        return (resp.headers['OpenStack-API-Version'],
                resp.headers['X-OpenStack-Nova-API-Version'])

    def test_default_is_2_1_and_both_headers_echoed(self):
        resp = self.api.get(V + '/flavors')
        self.assertEqual(('compute 2.1', '2.1'), self._headers(resp))
        self.assertIn('OpenStack-API-Version', resp.headers['Vary'])
        self.assertIn('X-OpenStack-Nova-API-Version', resp.headers['Vary'])

    def test_latest(self):
        resp = self.api.get(V + '/flavors', version='latest')
        self.assertEqual(('compute 2.100', '2.100'), self._headers(resp))

    def test_legacy_header(self):
        resp = self.api.get(V + '/flavors', headers={
            'X-OpenStack-Nova-API-Version': '2.53'})
        self.assertEqual(('compute 2.53', '2.53'), self._headers(resp))

    def test_out_of_range_is_406(self):
        for version in ('2.101', '2.0', '3.0'):
            resp = self.api.get(V + '/flavors', version=version)
            self.assertEqual(406, resp.status, version)
            self.assertIn('not supported', resp.text)

    def test_malformed_is_400(self):
        resp = self.api.get(V + '/flavors', version='two')
        self.assertEqual(400, resp.status)
        self.assertIn('badRequest', resp.body)

    def test_version_helpers(self):
        self.assertEqual((2, 53), wsgi_microversion.parse('2.53'))
        self.assertRaises(ValueError, wsgi_microversion.parse, '2.x')
        self.assertEqual('2.100',
                         wsgi_microversion.format_version(
                             microversion.MAX_VERSION))


class TestRoutingAndFaults(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.api = self.useFixture(api_fixtures.APIFixture(cells=('cell1',)))

    def test_unknown_path_is_item_not_found(self):
        resp = self.api.get(V + '/no-such-thing')
        self.assertEqual(404, resp.status)
        self.assertEqual(404, resp.body['itemNotFound']['code'])

    def test_wrong_method_is_not_found(self):
        # Nova's routes match a method and a path: no 405 in the compute
        # API, a known path asked with another method is a 404.
        resp = self.api.delete(V + '/flavors')
        self.assertEqual(404, resp.status)
        self.assertEqual(404, resp.body['itemNotFound']['code'])

    def test_post_to_version_document_is_not_found(self):
        resp = self.api.post(V, {})
        self.assertEqual(404, resp.status)

    def test_trailing_slash_is_not_found_but_for_the_version(self):
        self.assertEqual(404, self.api.get(V + '/flavors/').status)
        self.assertEqual(404, self.api.delete(V + '/images/').status)
        self.assertEqual(404, self.api.get(
            V + '/os-simple-tenant-usage/').status)
        self.assertEqual(200, self.api.get(V + '/').status)
        self.assertEqual(200, self.api.get(V + '/flavors').status)

    def test_malformed_json_is_bad_request(self):
        resp = self.api.post(V + '/flavors', raw_body='{"flavor": ')
        self.assertEqual(400, resp.status)
        self.assertIn('Malformed', resp.body['badRequest']['message'])

    def test_fault_wrapper_hides_tracebacks(self):
        def broken(environ, start_response):
            raise RuntimeError('secret detail')
        app = wsgi_faults.FaultWrapper(broken, faults.ERRORS)
        resp = webob.Request.blank('/x').get_response(app)
        self.assertEqual(500, resp.status_int)
        body = resp.json_body
        self.assertEqual(500, body['computeFault']['code'])
        self.assertNotIn('secret detail', resp.text)
        self.assertNotIn('Traceback', resp.text)

    def test_fault_names(self):
        self.assertEqual({'conflictingRequest': {'code': 409,
                                                 'message': 'm'}},
                         faults.fault_body(409, 'm'))
        self.assertIn('computeFault', faults.fault_body(500, 'm'))


class TestNoAuth(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.api = self.useFixture(api_fixtures.APIFixture(cells=('cell1',)))

    def test_missing_token_is_401(self):
        resp = self.api.get(V + '/flavors', token=None)
        self.assertEqual(401, resp.status)
        self.assertIn('unauthorized', resp.body)

    def test_notused_token_is_a_member(self):
        self.assertEqual(200, self.api.get(V + '/flavors',
                                           token='notused').status)
        self.assertEqual(403, self.api.get(V + '/os-services',
                                           token='notused').status)

    def test_admin_token(self):
        self.assertEqual(200, self.api.get(V + '/os-services').status)

    def test_x_roles_reader_cannot_write(self):
        resp = self.api.post(V + '/os-keypairs',
                             {'keypair': {'name': 'k'}}, token='rita:p',
                             headers={'X-Roles': 'reader'})
        self.assertEqual(403, resp.status)


class TestHttpBasic(testtools.TestCase):
    def setUp(self):
        super().setUp()
        tmp = self.useFixture(__import__('fixtures').TempDir()).path
        path = os.path.join(tmp, 'htpasswd')
        with open(path, 'w') as f:
            for user, password in (('admin', b'secret'), ('ann', b'pw')):
                f.write('%s:%s\n' % (user, bcrypt.hashpw(
                    password, bcrypt.gensalt(4)).decode()))
        self.api = self.useFixture(api_fixtures.APIFixture(
            cells=('cell1',), api={'auth_strategy': 'http_basic',
                                   'http_basic_auth_user_file': path}))

    def _get(self, path, user, password):
        import base64
        auth = base64.b64encode(('%s:%s' % (user, password)).encode())
        return self.api.get(path, token=None, headers={
            'Authorization': 'Basic %s' % auth.decode()})

    def test_good_and_bad_passwords(self):
        self.assertEqual(200, self._get(V + '/flavors', 'ann', 'pw').status)
        resp = self._get(V + '/flavors', 'ann', 'wrong')
        self.assertEqual(401, resp.status)
        self.assertIn('unauthorized', resp.body)

    def test_admin_users(self):
        self.assertEqual(403, self._get(V + '/os-services', 'ann',
                                        'pw').status)
        self.assertEqual(200, self._get(V + '/os-services', 'admin',
                                        'secret').status)

    def test_version_documents_need_no_credentials(self):
        self.assertEqual(200, self.api.get('/', token=None).status)
        self.assertEqual(200, self.api.get(V + '/', token=None).status)

    def test_errors_of_the_app_are_not_401(self):
        resp = self._get(V + '/flavors/nope', 'ann', 'pw')
        self.assertEqual(404, resp.status)


class TestKeystone(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.api = self.useFixture(api_fixtures.APIFixture(
            cells=('cell1',), api={'auth_strategy': 'keystone'},
            keystone_authtoken={
                'www_authenticate_uri': 'http://keystone.invalid/v3'}))

    def test_no_token_is_401_and_versions_are_public(self):
        self.assertEqual(401, self.api.get(V + '/flavors', token=None).status)
        self.assertEqual(200, self.api.get('/', token=None).status)
        self.assertEqual(200, self.api.get(V, token=None).status)
