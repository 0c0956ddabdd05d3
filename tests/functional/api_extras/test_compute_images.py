"""The compute API's image proxy (/v2.1/images) in Nova's shapes."""

import json
import os

import fixtures
import testtools

from tests.functional.api import fixtures as api_fixtures

V = '/v2.1'
IMAGE_B = '5f0c5d2e-7d5a-4e0c-9a57-0f6a52e3b0b2'
SNAP = '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
SERVER = '11111111-2222-3333-4444-555555555555'


class ComputeImageProxyTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        tmp = self.useFixture(fixtures.TempDir()).path
        path = os.path.join(tmp, 'images.json')
        with open(path, 'w') as f:
            json.dump([
                {'id': IMAGE_B, 'name': 'ubuntu', 'min_ram': 256,
                 'properties': {'hw_architecture': 'aarch64'}},
                {'id': SNAP, 'name': 'snap', 'min_disk': 2,
                 'properties': {'instance_uuid': SERVER,
                                'image_type': 'snapshot',
                                'auto_disk_config': 'True'}}], f)
        self.api = self.useFixture(api_fixtures.APIFixture(
            cells=('cell1',), image_catalog={'images_file': path}))

    def test_list_basic_and_detail(self):
        r = self.api.get(V + '/images')
        self.assertEqual(200, r.status, r)
        self.assertEqual(set(['images']), set(r.body))
        image = [i for i in r.body['images'] if i['id'] == IMAGE_B][0]
        self.assertEqual(set(['id', 'name', 'links']), set(image))
        self.assertEqual(['self', 'bookmark', 'alternate'],
                         [link['rel'] for link in image['links']])
        r = self.api.get(V + '/images/detail')
        image = [i for i in r.body['images'] if i['id'] == IMAGE_B][0]
        self.assertEqual((256, 0, 'ACTIVE', 100), (
            image['minRam'], image['minDisk'], image['status'],
            image['progress']))
        self.assertEqual({'hw_architecture': 'aarch64'}, image['metadata'])
        self.assertIn('OS-EXT-IMG-SIZE:size', image)
        self.assertEqual('2026-01-01T00:00:00Z', image['created'])

    def test_show_snapshot_has_server_and_disk_config(self):
        r = self.api.get(V + '/images/%s' % SNAP)
        self.assertEqual(200, r.status, r)
        image = r.body['image']
        self.assertEqual(SERVER, image['server']['id'])
        self.assertEqual('AUTO', image['OS-DCF:diskConfig'])
        self.assertEqual(404, self.api.get(V + '/images/nope').status)

    def test_filters_and_paging(self):
        def ids(query):
            r = self.api.get(V + '/images/detail?' + query)
            self.assertEqual(200, r.status, r)
            return [i['id'] for i in r.body['images']]

        self.assertEqual([SNAP], ids('server=%s' % SERVER))
        self.assertEqual([SNAP], ids('type=snapshot'))
        self.assertEqual([IMAGE_B], ids('minRam=100'))
        self.assertEqual([IMAGE_B], ids('property-hw_architecture=aarch64'))
        self.assertEqual([IMAGE_B], ids('name=ubuntu&status=ACTIVE'))
        r = self.api.get(V + '/images?limit=1')
        self.assertEqual(1, len(r.body['images']))
        self.assertIn('marker=%s' % r.body['images'][0]['id'],
                      r.body['images_links'][0]['href'])
        self.assertEqual(400, self.api.get(V + '/images?minRam=x').status)

    def test_gone_from_2_36(self):
        self.assertEqual(404, self.api.get(V + '/images',
                                           version='2.36').status)
        self.assertEqual(404, self.api.get(V + '/images/%s' % IMAGE_B,
                                           version='2.36').status)
        self.assertEqual(200, self.api.get(
            V + '/images/%s/metadata' % IMAGE_B, version='2.38').status)
        self.assertEqual(404, self.api.get(
            V + '/images/%s/metadata' % IMAGE_B, version='2.39').status)

    def test_metadata(self):
        path = V + '/images/%s/metadata' % IMAGE_B
        self.assertEqual({'metadata': {'hw_architecture': 'aarch64'}},
                         self.api.get(path).body)
        self.assertEqual({'meta': {'hw_architecture': 'aarch64'}},
                         self.api.get(path + '/hw_architecture').body)
        self.assertEqual(404, self.api.get(path + '/nope').status)
        self.assertEqual(404, self.api.delete(path + '/nope').status)
        self.assertEqual(400, self.api.put(path + '/a',
                                           {'meta': {'b': '1'}}).status)
        # The catalog cannot change.
        self.assertEqual(403, self.api.post(
            path, {'metadata': {'a': '1'}}).status)
        self.assertEqual(403, self.api.delete(
            V + '/images/%s' % IMAGE_B).status)
