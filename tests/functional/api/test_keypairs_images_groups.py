"""Key pairs, the image catalog, server groups, limits and quotas."""

import json
import os

import fixtures
import testtools

from tests.functional.api import fixtures as api_fixtures

V = '/v2.1'
MEMBER = api_fixtures.MEMBER
OTHER = api_fixtures.OTHER
READER = api_fixtures.READER

SSH_KEY = ('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDpHd1DzqY0rhh1wdLqIyW2Yc'
           'M8JPIzvP7yVJCQoahjW test@nova-lite')


class TestKeypairs(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.api = self.useFixture(api_fixtures.APIFixture(cells=('cell1',)))

    def test_generate_list_show_delete(self):
        resp = self.api.post(V + '/os-keypairs', {'keypair': {'name': 'k1'}},
                             token=MEMBER, version='2.10')
        self.assertEqual(201, resp.status, resp)
        keypair = resp.body['keypair']
        self.assertIn('PRIVATE KEY', keypair['private_key'])
        self.assertTrue(keypair['public_key'].startswith('ssh-rsa '))
        self.assertEqual(47, len(keypair['fingerprint']))
        self.assertEqual('ssh', keypair['type'])
        listed = self.api.get(V + '/os-keypairs', token=MEMBER,
                              version='2.10').body['keypairs']
        self.assertEqual(['k1'], [k['keypair']['name'] for k in listed])
        self.assertEqual([], self.api.get(V + '/os-keypairs',
                                          token=OTHER).body['keypairs'])
        shown = self.api.get(V + '/os-keypairs/k1', token=MEMBER).body
        self.assertEqual('alice', shown['keypair']['user_id'])
        self.assertEqual(404, self.api.get(V + '/os-keypairs/k1',
                                           token=OTHER).status)
        self.assertEqual(409, self.api.post(
            V + '/os-keypairs', {'keypair': {'name': 'k1'}},
            token=MEMBER).status)
        self.assertEqual(202, self.api.delete(V + '/os-keypairs/k1',
                                              token=MEMBER).status)
        self.assertEqual(404, self.api.delete(V + '/os-keypairs/k1',
                                              token=MEMBER).status)

    def test_import_and_validation(self):
        resp = self.api.post(V + '/os-keypairs', {'keypair': {
            'name': 'imp', 'public_key': SSH_KEY}}, token=MEMBER)
        self.assertEqual(200, resp.status, resp)
        self.assertNotIn('private_key', resp.body['keypair'])
        cases = [({'name': 'bad', 'public_key': 'not a key'}, 'invalid'),
                 ({'name': 'b@d'}, 'name'), ({'name': ''}, 'name'),
                 ({'name': 'x', 'extra': 1}, 'extra'),
                 ({'name': 'x', 'type': 'pgp'}, 'type')]
        for body, word in cases:
            resp = self.api.post(V + '/os-keypairs', {'keypair': body},
                                 token=MEMBER, version='2.2')
            self.assertEqual(400, resp.status, (body, resp))
            self.assertIn(word, resp.body['badRequest']['message'])
        resp = self.api.post(V + '/os-keypairs', {'keypair': {'name': 'g'}},
                             token=MEMBER, version='2.92')
        self.assertEqual(400, resp.status)
        self.assertIn('public_key', resp.text)

    def test_admin_acts_for_another_user(self):
        resp = self.api.post(V + '/os-keypairs', {'keypair': {
            'name': 'k', 'user_id': 'alice'}}, version='2.10')
        self.assertEqual(201, resp.status)
        listed = self.api.get(V + '/os-keypairs?user_id=alice',
                              version='2.10').body['keypairs']
        self.assertEqual(1, len(listed))
        self.assertEqual(403, self.api.get(
            V + '/os-keypairs?user_id=alice', token=OTHER,
            version='2.10').status)
        self.assertEqual(403, self.api.post(V + '/os-keypairs', {
            'keypair': {'name': 'k2', 'user_id': 'alice'}}, token=OTHER,
            version='2.10').status)

    def test_unknown_query_parameters_at_2_75(self):
        self.assertEqual(200, self.api.get(V + '/os-keypairs?foo=1',
                                           token=MEMBER).status)
        resp = self.api.get(V + '/os-keypairs?foo=1', token=MEMBER,
                            version='2.75')
        self.assertEqual(400, resp.status)
        self.assertIn('foo', resp.text)
        self.assertEqual(400, self.api.get(V + '/os-keypairs?limit=x',
                                           token=MEMBER,
                                           version='2.35').status)

    def test_quota(self):
        self.api.put(V + '/os-quota-sets/proj-a',
                     {'quota_set': {'key_pairs': 1}})
        self.assertEqual(200, self.api.post(V + '/os-keypairs', {
            'keypair': {'name': 'a', 'public_key': SSH_KEY}},
            token=MEMBER).status)
        resp = self.api.post(V + '/os-keypairs', {'keypair': {
            'name': 'b', 'public_key': SSH_KEY}}, token=MEMBER)
        self.assertEqual(403, resp.status)
        self.assertIn('key_pairs', resp.text)

    def test_reader_cannot_create(self):
        self.assertEqual(403, self.api.post(
            V + '/os-keypairs', {'keypair': {'name': 'k'}},
            token=READER).status)
        self.assertEqual(200, self.api.get(V + '/os-keypairs',
                                           token=READER).status)


IMAGE_B = '5f0c5d2e-7d5a-4e0c-9a57-0f6a52e3b0b2'
IMAGE_HIDDEN = '6c3a2c4e-2b9d-4a3b-8f4f-1d8f0e7c9a11'


class TestImageCatalog(testtools.TestCase):
    def setUp(self):
        super().setUp()
        tmp = self.useFixture(fixtures.TempDir()).path
        path = os.path.join(tmp, 'images.json')
        with open(path, 'w') as f:
            json.dump([{'id': IMAGE_B, 'name': 'ubuntu', 'properties': {
                'hw_architecture': 'aarch64', 'img_hv_type': 'fake'}},
                {'id': IMAGE_HIDDEN, 'name': 'secret', 'os_hidden': True},
                {'id': 'not-a-uuid', 'name': 'skipped'}], f)
        self.api = self.useFixture(api_fixtures.APIFixture(
            cells=('cell1',), image_catalog={'images_file': path}))
        from nova_lite.conf import image_catalog
        self.default_id = image_catalog.DEFAULT_IMAGE_UUID

    def test_version_document(self):
        resp = self.api.get('/image', token=None)
        self.assertEqual(300, resp.status)
        self.assertEqual('http://nova.test:8774/image/v2/',
                         resp.body['versions'][0]['links'][0]['href'])
        self.assertEqual(300, self.api.get('/image/', token=None).status)

    def test_list_and_filters(self):
        images = self.api.get('/image/v2/images',
                              token='notused').body['images']
        self.assertEqual({self.default_id, IMAGE_B},
                         {i['id'] for i in images})
        by_name = self.api.get('/image/v2/images?name=ubuntu',
                               token=MEMBER).body['images']
        self.assertEqual('aarch64', by_name[0]['hw_architecture'])
        self.assertEqual([], self.api.get(
            '/image/v2/images?name=nope').body['images'])
        hidden = self.api.get('/image/v2/images?os_hidden=True').body
        self.assertEqual([IMAGE_HIDDEN], [i['id'] for i in hidden['images']])
        ids = self.api.get('/image/v2/images?id=in:%s,%s' % (
            IMAGE_B, IMAGE_HIDDEN)).body['images']
        self.assertEqual([IMAGE_B], [i['id'] for i in ids])
        self.assertEqual(400, self.api.get(
            '/image/v2/images?os_hidden=sure').status)

    def test_compute_image_proxy_in_nova_shapes(self):
        shown = self.api.get(V + '/images/%s' % IMAGE_B).body['image']
        self.assertEqual('ubuntu', shown['name'])
        self.assertEqual('aarch64', shown['metadata']['hw_architecture'])
        listed = self.api.get(V + '/images?name=ubuntu').body
        self.assertEqual([IMAGE_B], [i['id'] for i in listed['images']])
        self.assertNotIn('first', listed)

    def test_show(self):
        image = self.api.get('/image/v2/images/%s' % self.default_id,
                             token=MEMBER).body
        self.assertEqual('active', image['status'])
        self.assertEqual('x86_64', image['hw_architecture'])
        self.assertEqual(404, self.api.get('/image/v2/images/cirros').status)
        self.assertEqual(401, self.api.get('/image/v2/images',
                                           token=None).status)


class TestServerGroups(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.api = self.useFixture(api_fixtures.APIFixture(cells=('cell1',)))

    def test_legacy_policies(self):
        resp = self.api.post(V + '/os-server-groups', {'server_group': {
            'name': 'g', 'policies': ['anti-affinity']}}, token=MEMBER)
        self.assertEqual(200, resp.status, resp)
        group = resp.body['server_group']
        self.assertEqual(['anti-affinity'], group['policies'])
        self.assertEqual([], group['members'])
        self.assertEqual(400, self.api.post(V + '/os-server-groups', {
            'server_group': {'name': 'g', 'policies': ['soft-affinity']}},
            token=MEMBER).status)
        self.assertEqual(200, self.api.post(V + '/os-server-groups', {
            'server_group': {'name': 'g', 'policies': ['soft-affinity']}},
            token=MEMBER, version='2.15').status)

    def test_policy_and_rules_at_2_64(self):
        resp = self.api.post(V + '/os-server-groups', {'server_group': {
            'name': 'g', 'policy': 'anti-affinity',
            'rules': {'max_server_per_host': 2}}}, token=MEMBER,
            version='2.64')
        group = resp.body['server_group']
        self.assertEqual(('anti-affinity', {'max_server_per_host': 2}),
                         (group['policy'], group['rules']))
        self.assertEqual('proj-a', group['project_id'])
        bad = [{'name': 'g', 'policy': 'affinity',
                'rules': {'max_server_per_host': 2}},
               {'name': 'g', 'policy': 'anti-affinity',
                'rules': {'max_server_per_host': 0}},
               {'name': 'g', 'policy': 'anti-affinity',
                'rules': {'other': 1}},
               {'name': 'g', 'policies': ['affinity']},
               {'name': 'g', 'policy': 'sometimes'}]
        for body in bad:
            resp = self.api.post(V + '/os-server-groups',
                                 {'server_group': body}, token=MEMBER,
                                 version='2.64')
            self.assertEqual(400, resp.status, (body, resp))

    def test_project_isolation(self):
        gid = self.api.post(V + '/os-server-groups', {'server_group': {
            'name': 'g', 'policies': ['affinity']}},
            token=MEMBER).body['server_group']['id']
        self.assertEqual(200, self.api.get(V + '/os-server-groups/' + gid,
                                           token=MEMBER).status)
        self.assertEqual(403, self.api.get(V + '/os-server-groups/' + gid,
                                           token=OTHER).status)
        self.assertEqual([], self.api.get(V + '/os-server-groups',
                                          token=OTHER).body['server_groups'])
        self.assertEqual(1, len(self.api.get(
            V + '/os-server-groups?all_projects=True').body[
                'server_groups']))
        self.assertEqual(403, self.api.delete(V + '/os-server-groups/' + gid,
                                              token=READER).status)
        self.assertEqual(204, self.api.delete(V + '/os-server-groups/' + gid,
                                              token=MEMBER).status)
        self.assertEqual(404, self.api.get(V + '/os-server-groups/' + gid,
                                           token=MEMBER).status)

    def test_quota(self):
        self.api.put(V + '/os-quota-sets/proj-a',
                     {'quota_set': {'server_groups': 1}})
        body = {'server_group': {'name': 'g', 'policies': ['affinity']}}
        self.assertEqual(200, self.api.post(V + '/os-server-groups', body,
                                            token=MEMBER).status)
        resp = self.api.post(V + '/os-server-groups', body, token=MEMBER)
        self.assertEqual(403, resp.status)
        self.assertIn('Quota exceeded for server_groups', resp.text)


class TestLimitsAndQuotas(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.api = self.useFixture(api_fixtures.APIFixture(cells=('cell1',)))

    def test_limits(self):
        absolute = self.api.get(V + '/limits', token=MEMBER).body[
            'limits']['absolute']
        self.assertEqual((10, 20, 51200, 0),
                         (absolute['maxTotalInstances'],
                          absolute['maxTotalCores'],
                          absolute['maxTotalRAMSize'],
                          absolute['totalInstancesUsed']))
        self.assertIn('maxTotalFloatingIps', absolute)
        newer = self.api.get(V + '/limits', token=MEMBER,
                             version='2.57').body['limits']['absolute']
        self.assertNotIn('maxTotalFloatingIps', newer)
        self.assertNotIn('maxPersonality', newer)

    def test_show_update_defaults_delete(self):
        resp = self.api.put(V + '/os-quota-sets/proj-a', {'quota_set': {
            'instances': 5, 'cores': -1}})
        self.assertEqual(200, resp.status, resp)
        self.assertEqual((5, -1), (resp.body['quota_set']['instances'],
                                   resp.body['quota_set']['cores']))
        shown = self.api.get(V + '/os-quota-sets/proj-a',
                             token=MEMBER).body['quota_set']
        self.assertEqual(5, shown['instances'])
        detail = self.api.get(V + '/os-quota-sets/proj-a/detail').body
        self.assertEqual({'limit': 5, 'in_use': 0, 'reserved': 0},
                         detail['quota_set']['instances'])
        limits = self.api.get(V + '/limits', token=MEMBER).body
        self.assertEqual(5, limits['limits']['absolute']['maxTotalInstances'])
        defaults = self.api.get(V + '/os-quota-sets/proj-a/defaults').body
        self.assertEqual(10, defaults['quota_set']['instances'])
        self.assertEqual(202, self.api.delete(
            V + '/os-quota-sets/proj-a').status)
        shown = self.api.get(V + '/os-quota-sets/proj-a').body['quota_set']
        self.assertEqual(10, shown['instances'])

    def test_policy_and_validation(self):
        self.assertEqual(403, self.api.get(V + '/os-quota-sets/proj-b',
                                           token=MEMBER).status)
        self.assertEqual(403, self.api.put(
            V + '/os-quota-sets/proj-a', {'quota_set': {'instances': 1}},
            token=MEMBER).status)
        for body, field in (({'instances': -2}, 'instances'),
                            ({'cores': 'many'}, 'cores'),
                            ({'nonsense': 1}, 'nonsense'),
                            ({'injected_files': 1}, 'injected_files')):
            resp = self.api.put(V + '/os-quota-sets/proj-a',
                                {'quota_set': body}, version='2.57')
            self.assertEqual(400, resp.status, (body, resp))
            self.assertIn(field, resp.text)
