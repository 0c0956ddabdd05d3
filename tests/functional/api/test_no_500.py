"""Junk at every route: nothing answers 500, every error is a fault.

Each route of the table gets malformed bodies, bodies of the wrong
type, unknown fields, bad ids and odd query strings, as an admin and as
a member, at the oldest and the newest microversion. Whatever the
answer, it must be below 500 (or a 501 for an API nova_lite lacks) and
an error must come in Nova's fault format.
"""

import testtools

from nova_lite.api import router
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
            self.assertEqual(resp.status, fault['code'], where)
            self.assertIsInstance(fault['message'], str, where)

    def _junk(self, include):
        self.checked = 0
        for template, methods in router.ROUTE_DECLARATIONS.items():
            if not include(methods):
                continue
            for method in list(methods) + ['PATCH']:
                for path in _paths(template):
                    for token in ('admin', api_fixtures.MEMBER):
                        for version in ('2.1', 'latest'):
                            bodies = BODIES if method in (
                                'POST', 'PUT', 'PATCH') else (None,)
                            for body in bodies:
                                self._check(method, path, body, token,
                                            version)
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
