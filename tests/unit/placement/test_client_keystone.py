"""The placement client with ``[placement] auth_type = password``.

A tiny WSGI app plays both Keystone (under ``/identity``) and placement,
reached through the client's own WSGIAdapter; keystoneauth1's real
password plugin logs in to it. No mock.patch.
"""

import json

from oslo_config import cfg
from oslo_config import fixture as config_fixture
import testtools

from nova_lite.clients import placement as client_mod
from nova_lite import conf as nl_conf

BASE = 'http://placement.invalid'


class KeystoneAndPlacement:
    """Issues tokens tok-1, tok-2, ...; placement refuses revoked ones."""

    def __init__(self):
        self.logins = []
        self.revoked = set()
        self.seen_tokens = []

    def __call__(self, environ, start_response):
        path = environ['PATH_INFO']
        if path.rstrip('/') == '/identity/v3':
            return self._json(start_response, '200 OK', {'version': {
                'id': 'v3.14', 'status': 'stable', 'links': [
                    {'rel': 'self', 'href': BASE + '/identity/v3/'}]}})
        if path == '/identity/v3/auth/tokens':
            length = int(environ.get('CONTENT_LENGTH') or 0)
            self.logins.append(json.loads(environ['wsgi.input'].read(
                length)))
            token = 'tok-%d' % len(self.logins)
            return self._json(start_response, '201 Created', {'token': {
                'expires_at': '2099-01-01T00:00:00.000000Z',
                'issued_at': '2026-01-01T00:00:00.000000Z',
                'methods': ['password'],
                'user': {'id': 'u1', 'name': 'nova_lite',
                         'domain': {'id': 'default', 'name': 'Default'}},
                'project': {'id': 'p1', 'name': 'service',
                            'domain': {'id': 'default', 'name': 'Default'}},
                'roles': [{'id': 'r1', 'name': 'admin'}], 'catalog': []}},
                [('X-Subject-Token', token)])
        token = environ.get('HTTP_X_AUTH_TOKEN')
        self.seen_tokens.append(token)
        if token is None or token in self.revoked:
            return self._json(start_response, '401 Unauthorized',
                              {'error': {'code': 401}})
        return self._json(start_response, '200 OK', {})

    @staticmethod
    def _json(start_response, status, body, headers=()):
        start_response(status, [('Content-Type', 'application/json')]
                       + list(headers))
        return [json.dumps(body).encode()]


class TestPasswordAuth(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.conf = cfg.ConfigOpts()
        nl_conf.register_opts(self.conf)
        flags = self.useFixture(config_fixture.Config(self.conf))
        flags.config(group='placement', auth_type='password',
                     auth_url=BASE + '/identity/v3', username='nova_lite',
                     password='secret', project_name='service',
                     connect_retry_delay=0)
        self.app = KeystoneAndPlacement()
        self.client = client_mod.in_process_client(self.app, conf=self.conf)

    def test_sends_the_token_of_one_password_login(self):
        self.client.request('GET', '/resource_providers')
        self.client.request('GET', '/resource_providers')
        self.assertEqual(['tok-1', 'tok-1'], self.app.seen_tokens)
        self.assertEqual(1, len(self.app.logins))
        identity = self.app.logins[0]['auth']['identity']
        self.assertEqual(['password'], identity['methods'])
        user = identity['password']['user']
        self.assertEqual(('nova_lite', 'secret', 'Default'),
                         (user['name'], user['password'],
                          user['domain']['name']))
        self.assertEqual('service', self.app.logins[0]['auth']['scope'][
            'project']['name'])

    def test_refused_token_is_replaced_once(self):
        self.client.request('GET', '/resource_providers')
        self.app.revoked.add('tok-1')
        self.assertEqual({}, self.client.request('GET', '/x'))
        self.assertEqual(['tok-1', 'tok-1', 'tok-2'], self.app.seen_tokens)

    def test_second_refusal_is_an_error(self):
        self.app.revoked.update({'tok-1', 'tok-2'})
        exc = self.assertRaises(client_mod.PlacementError,
                                self.client.request, 'GET', '/x')
        self.assertEqual(401, exc.status)
        self.assertEqual(2, len(self.app.logins))
