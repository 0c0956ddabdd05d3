"""Flavors, flavor access and extra specs through the API."""

import testtools

from nova_lite.api import default_flavors
from tests.functional.api import fixtures as api_fixtures

V = '/v2.1'
MEMBER = api_fixtures.MEMBER


def _flavor(name='f1', flavorid='10', **extra):
    body = {'name': name, 'id': flavorid, 'ram': 512, 'vcpus': 1,
            'disk': 1}
    body.update(extra)
    return {'flavor': body}


class TestFlavors(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.api = self.useFixture(api_fixtures.APIFixture(cells=('cell1',)))

    def test_create_show_list_delete(self):
        resp = self.api.post(V + '/flavors', _flavor(
            swap=0, **{'OS-FLV-EXT-DATA:ephemeral': 2}), version='2.75')
        self.assertEqual(200, resp.status, resp)
        flavor = resp.body['flavor']
        self.assertEqual({'id': '10', 'name': 'f1', 'ram': 512, 'vcpus': 1,
                          'disk': 1, 'swap': 0,
                          'OS-FLV-EXT-DATA:ephemeral': 2},
                         {k: flavor[k] for k in (
                             'id', 'name', 'ram', 'vcpus', 'disk', 'swap',
                             'OS-FLV-EXT-DATA:ephemeral')})
        self.assertEqual({}, flavor['extra_specs'])
        shown = self.api.get(V + '/flavors/10', token=MEMBER).body['flavor']
        self.assertEqual('', shown['swap'])    # 2.1: swap 0 shows as ''
        self.assertNotIn('description', shown)
        listed = self.api.get(V + '/flavors', token=MEMBER).body['flavors']
        self.assertEqual(['10'], [f['id'] for f in listed])
        self.assertEqual(202, self.api.delete(V + '/flavors/10').status)
        self.assertEqual(404, self.api.get(V + '/flavors/10').status)

    def test_generated_id_and_duplicates(self):
        resp = self.api.post(V + '/flavors', _flavor(flavorid=None))
        self.assertEqual(36, len(resp.body['flavor']['id']))
        resp = self.api.post(V + '/flavors', _flavor(flavorid='x'))
        self.assertEqual(409, resp.status)
        self.assertIn('conflictingRequest', resp.body)

    def test_description_at_2_55(self):
        resp = self.api.post(V + '/flavors', _flavor(description='small'),
                             version='2.55')
        self.assertEqual('small', resp.body['flavor']['description'])
        resp = self.api.post(V + '/flavors', _flavor(
            name='f2', flavorid='11', description='x'), version='2.54')
        self.assertEqual(400, resp.status)
        self.assertIn('description', resp.text)
        resp = self.api.put(V + '/flavors/10', {'flavor': {
            'description': 'tiny'}}, version='2.55')
        self.assertEqual('tiny', resp.body['flavor']['description'])
        self.assertEqual(404, self.api.put(V + '/flavors/10', {'flavor': {
            'description': 'x'}}, version='2.54').status)

    def test_bad_bodies_name_the_field(self):
        cases = [
            (_flavor(ram=0), 'ram'), (_flavor(vcpus='many'), 'vcpus'),
            (_flavor(disk=-1), 'disk'), (_flavor(name=''), 'name'),
            (_flavor(flavorid='bad/id'), 'id'),
            (_flavor(ram=2 ** 40), 'ram'),
            (_flavor(**{'os-flavor-access:is_public': 'maybe'}),
             'is_public'),
            (_flavor(bogus=1), 'bogus'),
            (_flavor(rxtx_factor='0'), 'rxtx_factor'),
            (_flavor(rxtx_factor=-1), 'rxtx_factor'),
            ({'flavor': {'name': 'x'}}, 'ram'),
            ({'flavour': {}}, 'flavor'),
        ]
        for body, field in cases:
            resp = self.api.post(V + '/flavors', body)
            self.assertEqual(400, resp.status, (body, resp))
            self.assertIn(field, resp.body['badRequest']['message'], body)

    def test_member_cannot_manage(self):
        self.assertEqual(403, self.api.post(V + '/flavors', _flavor(),
                                            token=MEMBER).status)
        self.api.post(V + '/flavors', _flavor())
        self.assertEqual(403, self.api.delete(V + '/flavors/10',
                                              token=MEMBER).status)

    def test_private_flavor_and_access(self):
        self.api.post(V + '/flavors', _flavor(
            **{'os-flavor-access:is_public': False}))
        self.assertEqual(404, self.api.get(V + '/flavors/10',
                                           token=MEMBER).status)
        resp = self.api.post(V + '/flavors/10/action', {
            'addTenantAccess': {'tenant': 'proj-a'}})
        self.assertEqual([{'flavor_id': '10', 'tenant_id': 'proj-a'}],
                         resp.body['flavor_access'])
        self.assertEqual(200, self.api.get(V + '/flavors/10',
                                           token=MEMBER).status)
        listed = self.api.get(V + '/flavors/detail?is_public=None',
                              token=MEMBER).body['flavors']
        self.assertEqual(['10'], [f['id'] for f in listed])
        self.assertEqual(409, self.api.post(V + '/flavors/10/action', {
            'addTenantAccess': {'tenant': 'proj-a'}}).status)
        access = self.api.get(V + '/flavors/10/os-flavor-access')
        self.assertEqual(1, len(access.body['flavor_access']))
        self.api.post(V + '/flavors/10/action', {
            'removeTenantAccess': {'tenant': 'proj-a'}})
        self.assertEqual(404, self.api.get(V + '/flavors/10',
                                           token=MEMBER).status)
        self.assertEqual(400, self.api.post(V + '/flavors/10/action', {
            'addTenantAccess': {}}).status)

    def test_is_public_filter_and_paging(self):
        for index in range(3):
            self.api.post(V + '/flavors', _flavor(
                name='f%d' % index, flavorid=str(index + 1)))
        self.api.post(V + '/flavors', _flavor(
            name='priv', flavorid='9',
            **{'os-flavor-access:is_public': False}))
        ids = [f['id'] for f in self.api.get(
            V + '/flavors?is_public=None').body['flavors']]
        self.assertEqual(['1', '2', '3', '9'], ids)
        ids = [f['id'] for f in self.api.get(
            V + '/flavors?is_public=false').body['flavors']]
        self.assertEqual(['9'], ids)
        resp = self.api.get(V + '/flavors?limit=2')
        self.assertEqual(['1', '2'], [f['id'] for f in resp.body['flavors']])
        self.assertIn('marker=2', resp.body['flavors_links'][0]['href'])
        resp = self.api.get(V + '/flavors?marker=2')
        self.assertEqual(['3'], [f['id'] for f in resp.body['flavors']])
        self.assertEqual(400, self.api.get(V + '/flavors?marker=77').status)
        self.assertEqual(400, self.api.get(
            V + '/flavors?is_public=perhaps').status)
        self.assertEqual(400, self.api.get(V + '/flavors?limit=-1').status)
        self.assertEqual(400, self.api.get(V + '/flavors?foo=1',
                                           version='2.75').status)

    def test_default_flavors(self):
        created = default_flavors.ensure_default_flavors(
            self.api.admin_context)
        self.assertEqual(['m1.tiny', 'm1.small', 'm1.medium', 'm1.large',
                          'm1.xlarge'], created)
        self.assertEqual([], default_flavors.ensure_default_flavors(
            self.api.admin_context))
        tiny = self.api.get(V + '/flavors/1').body['flavor']
        self.assertEqual(('m1.tiny', 512, 1, 1),
                         (tiny['name'], tiny['ram'], tiny['vcpus'],
                          tiny['disk']))


class TestExtraSpecs(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.api = self.useFixture(api_fixtures.APIFixture(cells=('cell1',)))
        self.api.post(V + '/flavors', _flavor())
        self.url = V + '/flavors/10/os-extra_specs'

    def test_crud(self):
        specs = {'resources:CUSTOM_MAGIC': '1', 'trait:HW_CPU_X86_AVX2':
                 'required', 'group_policy': 'isolate',
                 'resources1:VCPU': 2, 'hw:cpu_policy': 'dedicated',
                 'aggregate_instance_extra_specs:ssd': 'true'}
        resp = self.api.post(self.url, {'extra_specs': specs})
        self.assertEqual(200, resp.status, resp)
        self.assertEqual('2', resp.body['extra_specs']['resources1:VCPU'])
        listed = self.api.get(self.url, token=MEMBER).body['extra_specs']
        self.assertEqual(6, len(listed))
        resp = self.api.get(self.url + '/group_policy', token=MEMBER)
        self.assertEqual({'group_policy': 'isolate'}, resp.body)
        resp = self.api.put(self.url + '/group_policy',
                            {'group_policy': 'none'})
        self.assertEqual({'group_policy': 'none'}, resp.body)
        self.assertEqual(200, self.api.delete(
            self.url + '/group_policy').status)
        self.assertEqual(404, self.api.get(
            self.url + '/group_policy').status)
        self.assertEqual(404, self.api.delete(
            self.url + '/group_policy').status)
        shown = self.api.get(V + '/flavors/10', version='2.61').body
        self.assertIn('trait:HW_CPU_X86_AVX2',
                      shown['flavor']['extra_specs'])

    def test_malformed_specs_name_the_key(self):
        cases = ['resources:VCPUS', 'resources:VCPU', 'trait:NOT_A_TRAIT',
                 'trait:HW_CPU_X86_AVX2', 'group_policy', 'hw:cpu_policy',
                 'hw:numa_nodes', 'hw:no_such_thing']
        values = ['1', 'lots', 'required', 'maybe', 'sometimes', 'bogus',
                  '0', '1']
        for key, value in zip(cases, values, strict=True):
            resp = self.api.post(self.url, {'extra_specs': {key: value}})
            self.assertEqual(400, resp.status, (key, resp))
            self.assertIn(key, resp.body['badRequest']['message'])
        resp = self.api.put(self.url + '/trait:CUSTOM_X',
                            {'trait:CUSTOM_X': 'sometimes'})
        self.assertEqual(400, resp.status)
        resp = self.api.put(self.url + '/a', {'b': '1'})
        self.assertEqual(400, resp.status)
        resp = self.api.post(self.url, {'extra_specs': {'bad key!': '1'}})
        self.assertEqual(400, resp.status)
        resp = self.api.post(self.url, {'extra_specs': {}})
        self.assertEqual(400, resp.status)

    def test_member_reads_admin_writes(self):
        self.assertEqual(403, self.api.post(
            self.url, {'extra_specs': {'a': 'b'}}, token=MEMBER).status)
        self.assertEqual(200, self.api.get(self.url, token=MEMBER).status)
        self.assertEqual(404, self.api.get(
            V + '/flavors/nope/os-extra_specs').status)
