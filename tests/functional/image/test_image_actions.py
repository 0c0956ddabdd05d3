"""Schemas and the deactivate/reactivate actions of the Image API v2.

The published schemas must describe every image the service returns
(checked here with jsonschema, as clients check them), and the actions
follow Glance's states: active <-> deactivated, data of a deactivated
image for admins only.
"""

import jsonschema

from nova_lite.conf import image_catalog as catalog_conf
from tests.functional.image import test_image_api as base

ADMIN, MEMBER, OTHER = base.ADMIN, base.MEMBER, base.OTHER
IMAGES = base.IMAGES
SCHEMAS = '/image/v2/schemas/'


class TestSchemas(base.ImageAPITestBase):

    def schema(self, name):
        response = self.api.get(SCHEMAS + name, token=MEMBER)
        self.assertEqual(200, response.status, response)
        return response.body

    def test_image_schema_shape(self):
        schema = self.schema('image')
        self.assertEqual('image', schema['name'])
        self.assertEqual({'type': 'string'}, schema['additionalProperties'])
        for name in ('id', 'name', 'status', 'visibility', 'os_hidden',
                     'protected', 'tags', 'checksum', 'os_hash_algo',
                     'os_hash_value', 'size', 'virtual_size',
                     'container_format', 'disk_format', 'min_ram',
                     'min_disk', 'owner', 'created_at', 'updated_at',
                     'self', 'file', 'schema', 'direct_url', 'locations'):
            self.assertIn(name, schema['properties'])
        self.assertIn('deactivated', schema['properties']['status']['enum'])
        self.assertEqual(['self', 'enclosure', 'describedby'],
                         [link['rel'] for link in schema['links']])
        images = self.schema('images')
        self.assertEqual(schema, images['properties']['images']['items'])
        member = self.schema('member')
        self.assertEqual(['pending', 'accepted', 'rejected'],
                         member['properties']['status']['enum'])
        self.assertEqual(member,
                         self.schema('members')['properties']['members'][
                             'items'])
        self.assertEqual(404, self.api.get(SCHEMAS + 'nope',
                                           token=MEMBER).status)
        self.assertEqual(401, self.api.get(SCHEMAS + 'image',
                                           token=None).status)

    def test_responses_validate(self):
        image = self.create(name='v', os_distro='cirros')
        self.upload(image['id'])
        listing = self.api.get(IMAGES, token=MEMBER).body
        jsonschema.validate(listing, self.schema('images'))
        jsonschema.validate(self.show(catalog_conf.DEFAULT_IMAGE_UUID),
                            self.schema('image'))
        self.api.post('%s/%s/members' % (IMAGES, image['id']),
                      {'member': 'proj-b'}, token=MEMBER)
        members = self.api.get('%s/%s/members' % (IMAGES, image['id']),
                               token=MEMBER).body
        jsonschema.validate(members, self.schema('members'))

    def test_requests_validate_by_the_schema(self):
        self.assertEqual(400, self.api.post(
            IMAGES, {'name': 'x' * 256}, token=MEMBER).status)
        self.assertEqual(400, self.api.post(
            IMAGES, {'protected': 'yes'}, token=MEMBER).status)
        response = self.api.post(IMAGES, {'tags': [5]}, token=MEMBER)
        self.assertEqual(400, response.status)
        self.assertIn("'tags'", response.text)


class TestDeactivate(base.ImageAPITestBase):

    def action(self, image_id, action, token=MEMBER, status=204):
        response = self.api.post('%s/%s/actions/%s' % (
            IMAGES, image_id, action), token=token)
        self.assertEqual(status, response.status, response)
        return response

    def download(self, image_id, token):
        return self.api.get('%s/%s/file' % (IMAGES, image_id), token=token)

    def test_round_trip(self):
        image = self.create()
        self.action(image['id'], 'deactivate', status=403)   # queued
        self.upload(image['id'])
        self.action(image['id'], 'deactivate')
        self.assertEqual('deactivated', self.show(image['id'])['status'])
        self.action(image['id'], 'deactivate')                # no-op
        self.assertEqual(403, self.download(image['id'], MEMBER).status)
        self.assertEqual(200, self.download(image['id'], ADMIN).status)
        self.action(image['id'], 'reactivate', token=OTHER, status=404)
        self.action(image['id'], 'reactivate')
        self.assertEqual('active', self.show(image['id'])['status'])
        self.assertEqual(200, self.download(image['id'], MEMBER).status)
        self.action(image['id'], 'reactivate')                # no-op

    def test_admin_and_catalog(self):
        image = self.create(visibility='public', token=ADMIN)
        self.upload(image['id'], token=ADMIN)
        self.action(image['id'], 'deactivate', token=MEMBER, status=403)
        self.action(image['id'], 'deactivate', token=ADMIN)
        self.action(catalog_conf.DEFAULT_IMAGE_UUID, 'deactivate',
                    token=ADMIN, status=403)
        self.assertEqual(405, self.api.get('%s/%s/actions/deactivate' % (
            IMAGES, image['id']), token=ADMIN).status)
