"""The placement HTTP client: headers, errors, retries, WSGI transport.

A tiny WSGI app stands in for placement (through the client's own
WSGIAdapter); connection errors come from an adapter that fails on
purpose. No mock.patch.
"""

import json

import fixtures
from oslo_config import cfg
from oslo_config import fixture as config_fixture
import requests
import requests.adapters
import testtools

from nova_lite.clients import placement as client_mod
from nova_lite import conf as nl_conf


class RecordingApp:
    """Answers with a canned status/body and records request headers."""

    def __init__(self, status='200 OK', body=None):
        self.status, self.body = status, body
        self.requests = []

    def __call__(self, environ, start_response):
        length = int(environ.get('CONTENT_LENGTH') or 0)
        self.requests.append({
            'method': environ['REQUEST_METHOD'],
            'path': environ['PATH_INFO'],
            'query': environ['QUERY_STRING'],
            'body': environ['wsgi.input'].read(length),
            'headers': {k: v for k, v in environ.items()
                        if k.startswith('HTTP_') or k == 'CONTENT_TYPE'}})
        payload = json.dumps(self.body).encode() if self.body is not None \
            else b''
        start_response(self.status, [('Content-Type', 'application/json')])
        return [payload]


class FlakyAdapter(requests.adapters.BaseAdapter):
    """Fails with ConnectionError ``failures`` times, then delegates."""

    def __init__(self, failures, app, error=requests.ConnectionError):
        super().__init__()
        self.failures = failures
        self.inner = client_mod.WSGIAdapter(app)
        self.calls = 0
        self.error = error

    def send(self, request, **kwargs):
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error('refused')
        return self.inner.send(request, **kwargs)

    def close(self):
        pass


class TestPlacementClient(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.conf = cfg.ConfigOpts()
        nl_conf.register_opts(self.conf)
        self.flags = self.useFixture(config_fixture.Config(self.conf))
        self.flags.config(group='placement', connect_retry_delay=0)

    def _client(self, app):
        return client_mod.in_process_client(app, conf=self.conf)

    def test_pins_microversion_and_token(self):
        app = RecordingApp(body={'resource_providers': []})
        self._client(app).list_providers(name='x')
        headers = app.requests[0]['headers']
        self.assertEqual('placement 1.39',
                         headers['HTTP_OPENSTACK_API_VERSION'])
        self.assertEqual('admin', headers['HTTP_X_AUTH_TOKEN'])
        self.assertEqual('name=x', app.requests[0]['query'])

    def test_microversion_override(self):
        app = RecordingApp(body={})
        self._client(app).request('GET', '/x', microversion='1.14')
        self.assertEqual('placement 1.14', app.requests[0]['headers'][
            'HTTP_OPENSTACK_API_VERSION'])

    def test_json_body(self):
        app = RecordingApp(status='204 No Content')
        self._client(app).set_traits('rp', 3, ['CUSTOM_A'])
        sent = app.requests[0]
        self.assertEqual('PUT', sent['method'])
        self.assertEqual('application/json', sent['headers']['CONTENT_TYPE'])
        self.assertEqual({'resource_provider_generation': 3,
                          'traits': ['CUSTOM_A']}, json.loads(sent['body']))

    def test_basic_auth(self):
        self.flags.config(group='placement', auth_type='http_basic',
                          username='nova', password='pw')
        app = RecordingApp(body={})
        self._client(app).request('GET', '/')
        self.assertTrue(app.requests[0]['headers'][
            'HTTP_AUTHORIZATION'].startswith('Basic '))

    def test_conflict_carries_code(self):
        app = RecordingApp(status='409 Conflict', body={'errors': [{
            'status': 409, 'code': 'placement.concurrent_update',
            'detail': 'generation conflict'}]})
        exc = self.assertRaises(client_mod.PlacementConflict,
                                self._client(app).request, 'PUT', '/x', {})
        self.assertTrue(exc.is_generation_conflict)
        self.assertEqual(409, exc.status)
        self.assertIn('generation conflict', str(exc))

    def test_not_found_and_non_json_errors(self):
        app = RecordingApp(status='404 Not Found', body={'errors': [{
            'code': 'placement.resource_provider.not_found'}]})
        self.assertRaises(client_mod.PlacementNotFound,
                          self._client(app).get_provider, 'x')
        app = RecordingApp(status='502 Bad Gateway')
        exc = self.assertRaises(client_mod.PlacementError,
                                self._client(app).request, 'GET', '/')
        self.assertIsNone(exc.code)

    def _flaky_client(self, failures, app, **kwargs):
        session = requests.Session()
        adapter = FlakyAdapter(failures, app, **kwargs)
        session.mount('http://', adapter)
        client = client_mod.PlacementClient(
            endpoint='http://placement.invalid', session=session,
            conf=self.conf)
        return client, adapter

    def test_retries_connection_errors(self):
        self.flags.config(group='placement', connect_retries=2)
        client, adapter = self._flaky_client(2, RecordingApp(body={'a': 1}))
        self.assertEqual({'a': 1}, client.request('GET', '/'))
        self.assertEqual(3, adapter.calls)

    def test_gives_up_after_retries(self):
        self.flags.config(group='placement', connect_retries=1)
        client, adapter = self._flaky_client(5, RecordingApp(body={}))
        self.assertRaises(client_mod.PlacementUnreachable,
                          client.request, 'GET', '/')
        self.assertEqual(2, adapter.calls)

    def test_read_timeout_is_unreachable_and_not_retried(self):
        # The request may have been applied (a claim made): the caller,
        # not the client, decides what to do about it.
        self.flags.config(group='placement', connect_retries=3)
        client, adapter = self._flaky_client(
            5, RecordingApp(body={}), error=requests.ReadTimeout)
        err = self.assertRaises(client_mod.PlacementUnreachable,
                                client.put_allocations, 'c1', {}, 'p',
                                'u')
        self.assertIn('did not answer PUT', str(err))
        self.assertEqual(1, adapter.calls)


class EnvironmentSessionTestCase(testtools.TestCase):
    """Proxy settings come from the environment once, at start."""

    def _session(self, **env):
        for name in ('http_proxy', 'HTTP_PROXY', 'no_proxy', 'NO_PROXY',
                     'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE'):
            self.useFixture(fixtures.EnvironmentVariable(name,
                                                         env.get(name)))
        return client_mod.environment_session('http://10.1.2.3:8778')

    def test_proxy_of_the_environment_is_kept(self):
        session = self._session(http_proxy='http://proxy.example:3128')
        self.assertEqual('http://proxy.example:3128',
                         session.proxies.get('http'))
        self.assertFalse(session.trust_env)

    def test_no_proxy_for_the_endpoint_is_honoured(self):
        session = self._session(http_proxy='http://proxy.example:3128',
                                no_proxy='10.1.2.3')
        self.assertNotIn('http', session.proxies)

    def test_ca_bundle_of_the_environment_is_kept(self):
        session = self._session(REQUESTS_CA_BUNDLE='/etc/ssl/bundle.pem')
        self.assertEqual('/etc/ssl/bundle.pem', session.verify)
