"""The default policy: admin-only APIs, reader read-only, project scope."""

import testtools

from tests.functional.api import fixtures as api_fixtures

V = '/v2.1'
MEMBER = api_fixtures.MEMBER
READER = api_fixtures.READER

ADMIN_ONLY = [
    ('GET', V + '/os-services', None),
    ('PUT', V + '/os-services/disable', {'host': 'h', 'binary': 'b'}),
    ('DELETE', V + '/os-services/1', None),
    ('GET', V + '/os-hypervisors', None),
    ('GET', V + '/os-hypervisors/detail', None),
    ('GET', V + '/os-hypervisors/statistics', None),
    ('GET', V + '/os-hypervisors/1', None),
    ('GET', V + '/os-aggregates', None),
    ('POST', V + '/os-aggregates', {'aggregate': {'name': 'a'}}),
    ('GET', V + '/os-aggregates/1', None),
    ('PUT', V + '/os-aggregates/1', {'aggregate': {'name': 'b'}}),
    ('DELETE', V + '/os-aggregates/1', None),
    ('POST', V + '/os-aggregates/1/action', {'add_host': {'host': 'h'}}),
    ('GET', V + '/os-migrations', None),
    ('GET', V + '/os-hosts', None),
    ('GET', V + '/os-hosts/h', None),
    ('GET', V + '/os-availability-zone/detail', None),
    ('POST', V + '/flavors', {'flavor': {'name': 'f', 'ram': 1,
                                         'vcpus': 1, 'disk': 0}}),
    ('DELETE', V + '/flavors/1', None),
    ('POST', V + '/flavors/1/os-extra_specs', {'extra_specs': {'a': 'b'}}),
    ('PUT', V + '/flavors/1/os-extra_specs/a', {'a': 'c'}),
    ('DELETE', V + '/flavors/1/os-extra_specs/a', None),
    ('POST', V + '/flavors/1/action', {'addTenantAccess': {'tenant': 't'}}),
    ('GET', V + '/flavors/1/os-flavor-access', None),
    ('PUT', V + '/os-quota-sets/proj-a', {'quota_set': {'instances': 1}}),
    ('DELETE', V + '/os-quota-sets/proj-a', None),
]

READER_ALLOWED = [
    V + '/flavors', V + '/flavors/detail', V + '/flavors/1',
    V + '/flavors/1/os-extra_specs', V + '/os-keypairs',
    V + '/os-availability-zone', V + '/os-server-groups', V + '/limits',
    V + '/os-quota-sets/proj-a', V + '/os-quota-sets/proj-a/defaults',
    '/image/v2/images',
]

READER_FORBIDDEN = [
    ('POST', V + '/os-keypairs', {'keypair': {'name': 'k'}}),
    ('POST', V + '/os-server-groups',
     {'server_group': {'name': 'g', 'policies': ['affinity']}}),
]


class TestDefaultPolicy(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.api = self.useFixture(api_fixtures.APIFixture(cells=('cell1',)))
        self.api.post(V + '/flavors', {'flavor': {
            'name': 'f', 'id': '1', 'ram': 1, 'vcpus': 1, 'disk': 0}})

    def test_admin_only_apis_refuse_members_and_readers(self):
        for method, path, body in ADMIN_ONLY:
            for token in (MEMBER, READER, 'notused'):
                resp = self.api.request(method, path, body=body, token=token)
                self.assertEqual(403, resp.status, (method, path, token))
                self.assertIn('forbidden', resp.body)

    def test_admin_passes_the_policy(self):
        for method, path, body in ADMIN_ONLY:
            resp = self.api.request(method, path, body=body)
            self.assertNotEqual(403, resp.status, (method, path, resp))

    def test_reader_reads(self):
        for path in READER_ALLOWED:
            resp = self.api.get(path, token=READER)
            self.assertEqual(200, resp.status, (path, resp))

    def test_reader_does_not_write(self):
        for method, path, body in READER_FORBIDDEN:
            resp = self.api.request(method, path, body=body, token=READER)
            self.assertEqual(403, resp.status, (method, path))

    def test_other_projects_quota_is_forbidden(self):
        self.assertEqual(403, self.api.get(V + '/os-quota-sets/proj-b',
                                           token=READER).status)
