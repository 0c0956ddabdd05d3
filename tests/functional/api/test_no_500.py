"""Junk at every route: nothing answers 500, every error is a fault.

Each route of the table gets malformed bodies, bodies of the wrong
type, unknown fields, bad ids and odd query strings, as an admin and as
a member, at the oldest and the newest microversion. Whatever the
answer, it must be below 500 (or a 501 for an API nova_lite lacks) and
an error must come in Nova's fault format.
"""

from gunicorn.http import errors as gunicorn_errors
import testtools
import webob

from nova_lite.api import deploy
from nova_lite.image.handlers import image_data
from tests.functional.api import fixtures as api_fixtures

ID_VALUES = ('1', 'x', '00000000-0000-0000-0000-000000000000',
             'a' * 300, '-1', '%C3%A9t%C3%A9', '..', '%00', '%ff%fe')
BODIES = (None, '', '{', '[]', 'null', '"text"', '42',
          '{"a": {"b": [1, 2, {"c": null}]}}', '{"flavor": []}',
          '{"server": {"name": 1}}', '{"aggregate": {"name": "\\u0000"}}',
          '{"keypair": {"name": "k", "public_key": 5}}',
          '{"extra_specs": {"resources:VCPU": {"n": 1}}}',
          '{"quota_set": {"instances": 1e30}}',
          '{"status": null, "forced_down": "x"}',
          '{"addTenantAccess": null}', '{"add_host": {"host": null}}',
          b'\xff\xfe{}', '{"flavor": {"name": "n", "ram": 1, "vcpus": 1, '
          '"disk": 0, "rxtx_factor": "0"}}')
QUERIES = ('', '?limit=x', '?limit=-5', '?marker=nope', '?is_public=x',
           '?with_servers=x', '?all_projects=x&offset=-1',
           '?changes-since=yesterday&hidden=x', '?os_hidden=x&id=in:',
           '?user_id=&tenant_id=', '?host=&binary=&zone=', '?name=%ff',
           '?limit=99999999999999999999&marker=%00')
# The servers resource's handler modules (its routes run as one test).
SERVER_MODULES = ('servers', 'server_actions')


def _paths(path_template):
    if '{' not in path_template:
        return [path_template]
    paths = []
    for value in ID_VALUES:
        path = path_template
        while '{' in path:
            start = path.index('{')
            path = path[:start] + value + path[path.index('}') + 1:]
        paths.append(path)
    return paths


# The ids every junk body goes to: one that fails a lookup's
# validation and one that passes it (the handler then looks it up).
BODY_IDS = (ID_VALUES[0], ID_VALUES[2])
# The bodies every junk id comes with: none, and a JSON object.
ID_BODIES = (None, BODIES[7])


def _pairs(path_template, method):
    """The (path, body) pairs a route gets: every junk id with
    ID_BODIES, every junk body with BODY_IDS (each id with each body
    would be ten times the requests, and a handler reads the id and the
    body apart)."""
    if method not in ('POST', 'PUT', 'PATCH'):
        return [(path, None) for path in _paths(path_template)]
    pairs = {(path, body) for path in _paths(path_template)
             for body in ID_BODIES}
    ids = _paths(path_template)
    for body in BODIES:
        pairs.update((ids[ID_VALUES.index(value)] if len(ids) > 1
                      else ids[0], body) for value in BODY_IDS)
    return sorted(pairs, key=repr)


class TestNo500(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.api = self.useFixture(api_fixtures.APIFixture())
        self.api.add_compute('host1', 'cell1')
        self.api.post('/v2.1/flavors', {'flavor': {
            'name': 'f', 'id': '1', 'ram': 1, 'vcpus': 1, 'disk': 0}})
        self.api.post('/v2.1/os-aggregates', {'aggregate': {'name': 'a'}})

    def _check(self, method, path, body, token, version):
        self.checked += 1
        resp = self.api.request(method, path, raw_body=body, token=token,
                                version=version)
        where = '%s %s %r %s %s -> %r' % (method, path, body, token,
                                          version, resp)
        self.assertTrue(resp.status < 500 or resp.status == 501, where)
        if resp.status >= 400:
            self.assertIsInstance(resp.body, dict, where)
            (name, fault), = resp.body.items()
            if path.startswith('/network'):
                # The network service answers in Neutron's format.
                self.assertEqual('NeutronError', name, where)
                self.assertEqual({'type', 'message', 'detail'}, set(fault),
                                 where)
            else:
                self.assertEqual(resp.status, fault['code'], where)
            self.assertIsInstance(fault['message'], str, where)

    def _junk(self, include):
        self.checked = 0
        for template, methods in deploy.ROUTE_DECLARATIONS.items():
            if not include(methods):
                continue
            for method in list(methods) + ['PATCH']:
                for path, body in _pairs(template, method):
                    for token in ('admin', api_fixtures.MEMBER):
                        for version in ('2.1', 'latest'):
                            self._check(method, path, body, token, version)
                    for query in QUERIES:
                        self._check(method, _paths(template)[0] + query,
                                    None, 'admin', 'latest')
        self.assertGreater(self.checked, 100)

    @staticmethod
    def _is_servers(methods):
        return any(handler.__module__.rsplit('.', 1)[-1] in SERVER_MODULES
                   for handler in methods.values())

    def test_every_route_but_servers(self):
        self._junk(lambda methods: not self._is_servers(methods))

    def test_servers_routes(self):
        self._junk(self._is_servers)


DEEP_BODIES = ('[' * 990 + ']' * 990, '{"a":' * 990 + '1' + '}' * 990)
SURROGATE_BODIES = ('{"aggregate": {"name": "\\ud800"}}',
                    '{"server": {"name": "ok", "metadata": {"k": '
                    '"\\udfff"}}}', '{"\\ud800": 1}')
HUGE = '9' * 30
TOO_BIG_ID = str(2 ** 63)


class _RaisingInput:
    """A wsgi.input whose read fails the way gunicorn's chunk reader
    does on a malformed chunk."""

    def read(self, size=-1):
        raise gunicorn_errors.InvalidChunkSize(b'zz')


class TestBadInput(testtools.TestCase):
    """Input no handler should see: 400/404 in Nova's format, never 500."""

    def setUp(self):
        super().setUp()
        self.api = self.useFixture(api_fixtures.APIFixture())
        self.api.add_compute('host1', 'cell1')
        self.api.post('/v2.1/flavors', {'flavor': {
            'name': 'f', 'id': '1', 'ram': 1, 'vcpus': 1, 'disk': 0}})

    def _assert_fault(self, resp, status, where):
        self.assertEqual(status, resp.status, '%s -> %r' % (where, resp))
        (name, fault), = resp.body.items()
        if name == 'NeutronError':
            # The network service under /network: Neutron's format.
            self.assertTrue(str(where).find('/network') >= 0, where)
            return fault['message']
        self.assertEqual(
            {'badRequest': 400, 'itemNotFound': 404}[name], status, where)
        self.assertEqual(status, fault['code'], where)
        return fault['message']

    def _writers(self):
        """The routes taking a JSON body (not image data uploads, whose
        body is opaque bytes streamed to the image store)."""
        for template, methods in deploy.ROUTE_DECLARATIONS.items():
            for method in set(methods) & {'POST', 'PUT'}:
                path = _paths(template)[0]
                if not image_data.is_data_upload(
                        {'REQUEST_METHOD': method, 'PATH_INFO': path}):
                    yield method, path

    def test_deep_json_everywhere_is_400(self):
        count = 0
        for method, path in self._writers():
            for body in DEEP_BODIES:
                for token in ('admin', api_fixtures.MEMBER):
                    resp = self.api.request(method, path, raw_body=body,
                                            token=token)
                    message = self._assert_fault(resp, 400, (method, path))
                    self.assertIn('levels deep', message)
                    count += 1
        self.assertGreater(count, 40)

    def test_lone_surrogates_everywhere_are_400(self):
        for method, path in self._writers():
            for body in SURROGATE_BODIES:
                resp = self.api.request(method, path, raw_body=body)
                message = self._assert_fault(resp, 400, (method, path))
                self.assertIn('lone surrogate', message)

    def test_surrogate_server_name_builds_nothing(self):
        resp = self.api.request('POST', '/v2.1/servers', raw_body=(
            '{"server": {"name": "\\ud800", "flavorRef": "1", '
            '"imageRef": "00000000-0000-0000-0000-000000000001", '
            '"networks": "none"}}'), version='latest')
        self._assert_fault(resp, 400, 'POST /servers')
        self.assertEqual([], self.api.get('/v2.1/servers').body['servers'])

    def test_ids_past_the_database_range_are_404(self):
        self.api.post('/v2.1/os-aggregates', {'aggregate': {'name': 'a'}})
        agg = '/v2.1/os-aggregates/' + TOO_BIG_ID
        for method, path, body in (
                ('GET', agg, None), ('DELETE', agg, None),
                ('PUT', agg, {'aggregate': {'name': 'b'}}),
                ('POST', agg + '/action',
                 {'add_host': {'host': 'host1'}}),
                ('DELETE', '/v2.1/os-services/' + TOO_BIG_ID, None),
                ('GET', '/v2.1/servers/%s/migrations/%s' % (
                    '00000000-0000-0000-0000-000000000000', TOO_BIG_ID),
                 None)):
            resp = self.api.request(method, path, body=body,
                                    version='2.1' if 'services' in path
                                    else 'latest')
            self._assert_fault(resp, 404, (method, path))

    def test_query_integers_past_the_range_are_400(self):
        for path in ('/v2.1/flavors?minDisk=' + HUGE,
                     '/v2.1/flavors/detail?minRam=' + HUGE,
                     '/v2.1/flavors?limit=' + HUGE,
                     '/v2.1/flavors?minDisk=' + TOO_BIG_ID,
                     '/v2.1/os-keypairs?limit=' + HUGE,
                     '/v2.1/os-server-groups?offset=' + HUGE,
                     '/v2.1/servers?limit=' + HUGE):
            message = self._assert_fault(
                self.api.get(path, version='latest'), 400, path)
            self.assertIn('Must be an integer <=', message)

    def test_query_surrogates_are_400(self):
        for path in ('/v2.1/servers?name=%ED%A0%80',
                     '/v2.1/flavors?marker=%ED%B0%80',
                     '/v2.1/os-aggregates/%ED%A0%80'):
            self._assert_fault(self.api.get(path), 400, path)

    def test_bad_chunked_body_is_400(self):
        req = webob.Request.blank('/v2.1/os-aggregates', method='POST')
        req.headers['X-Auth-Token'] = 'admin'
        req.headers['Transfer-Encoding'] = 'chunked'
        req.content_type = 'application/json'
        req.environ['wsgi.input'] = _RaisingInput()
        req.environ['wsgi.input_terminated'] = True
        resp = api_fixtures.Response(req.get_response(self.api.app))
        message = self._assert_fault(resp, 400, 'chunked')
        self.assertIn('could not be read', message)

    def test_body_past_the_size_limit_is_413(self):
        resp = self.api.request('POST', '/v2.1/os-aggregates', raw_body=(
            '{"aggregate": {"name": "%s"}}' % ('x' * 200000)))
        self.assertEqual(413, resp.status)
        self.assertEqual(413, resp.body['overLimit']['code'])
