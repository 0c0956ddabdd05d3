"""The Image API v2 under /image: shapes, status codes and Glance's rules.

Against the compute API in-process (APIFixture): create, JSON patch,
upload and download with their checksums, delete, tags, paging and
sorting, who sees what per visibility, and members.
"""

import hashlib
import os

import fixtures
from oslo_serialization import jsonutils
import testtools

from nova_lite import conf as nl_conf
from nova_lite.conf import image_catalog as catalog_conf
from nova_lite import context as nl_context
from nova_lite.image import objects as image_obj
from nova_lite.image import store as image_store
from tests.functional.api import fixtures as api_fixtures

CONF = nl_conf.CONF
ADMIN = api_fixtures.ADMIN
MEMBER = api_fixtures.MEMBER          # alice:proj-a
OTHER = api_fixtures.OTHER            # bob:proj-b
THIRD = 'carol:proj-c'
IMAGES = '/image/v2/images'
PATCH = 'application/openstack-images-v2.1-json-patch'
DATA = b'nova-lite image bytes\x00\x01' * 100


class ImageAPITestBase(testtools.TestCase):

    FLAGS = {}

    def setUp(self):
        super().setUp()
        self.api = self.useFixture(api_fixtures.APIFixture(
            cells=('cell1',), **self.FLAGS))

    def create(self, token=MEMBER, status=201, **body):
        body.setdefault('disk_format', 'raw')
        body.setdefault('container_format', 'bare')
        response = self.api.post(IMAGES, body, token=token)
        self.assertEqual(status, response.status, response)
        return response.body

    def patch(self, image_id, ops, token=MEMBER, status=200,
              content_type=PATCH):
        response = self.api.request(
            'PATCH', '%s/%s' % (IMAGES, image_id),
            raw_body=jsonutils.dumps(ops), token=token,
            headers={'Content-Type': content_type})
        self.assertEqual(status, response.status, response)
        return response.body

    def upload(self, image_id, data=DATA, token=MEMBER, status=204,
               content_type='application/octet-stream'):
        response = self.api.request(
            'PUT', '%s/%s/file' % (IMAGES, image_id), raw_body=data,
            token=token, headers={'Content-Type': content_type})
        self.assertEqual(status, response.status, response)
        return response

    def show(self, image_id, token=MEMBER, status=200):
        response = self.api.get('%s/%s' % (IMAGES, image_id), token=token)
        self.assertEqual(status, response.status, response)
        return response.body

    def ids(self, query='', token=MEMBER):
        response = self.api.get(IMAGES + query, token=token)
        self.assertEqual(200, response.status, response)
        return [i['id'] for i in response.body['images']]


class TestCreateShowDelete(ImageAPITestBase):

    def test_create_defaults_and_location(self):
        response = self.api.post(IMAGES, {'name': 'mine', 'hw_arch': 'x'},
                                 token=MEMBER)
        self.assertEqual(201, response.status, response)
        image = response.body
        self.assertEqual('http://nova.test:8774/image/v2/images/%s'
                         % image['id'], response.headers['Location'])
        for key, value in (('status', 'queued'), ('visibility', 'shared'),
                           ('owner', 'proj-a'), ('protected', False),
                           ('os_hidden', False), ('min_disk', 0),
                           ('min_ram', 0), ('size', None),
                           ('checksum', None), ('disk_format', None),
                           ('tags', []), ('hw_arch', 'x'),
                           ('schema', '/v2/schemas/image'),
                           ('file', '/v2/images/%s/file' % image['id'])):
            self.assertEqual(value, image[key], key)
        self.assertEqual(image, self.show(image['id']))

    def test_the_schema_s_own_extra_properties_are_checked_by_it(self):
        # kernel_id and ramdisk_id may be null (not set) and are UUIDs.
        response = self.api.post(IMAGES, {'name': 'ami', 'kernel_id': None},
                                 token=MEMBER)
        self.assertEqual(201, response.status, response)
        self.assertNotIn('kernel_id', response.body)
        self.assertEqual(400, self.api.post(
            IMAGES, {'ramdisk_id': 'not-a-uuid'}, token=MEMBER).status)

    def test_create_errors(self):
        self.assertEqual(403, self.api.post(IMAGES, {'status': 'active'},
                                            token=MEMBER).status)
        self.assertEqual(403, self.api.post(IMAGES, {'size': 5},
                                            token=MEMBER).status)
        self.assertEqual(400, self.api.post(
            IMAGES, {'disk_format': 'floppy'}, token=MEMBER).status)
        self.assertEqual(400, self.api.post(IMAGES, {'min_ram': -1},
                                            token=MEMBER).status)
        self.assertEqual(400, self.api.post(IMAGES, {'id': 'nope'},
                                            token=MEMBER).status)
        self.assertEqual(400, self.api.post(IMAGES, {'prop': 5},
                                            token=MEMBER).status)
        self.assertEqual(400, self.api.request(
            'POST', IMAGES, raw_body='[1]', token=MEMBER).status)
        # Only an admin publicizes.
        self.assertEqual(403, self.api.post(
            IMAGES, {'visibility': 'public'}, token=MEMBER).status)
        self.assertEqual(201, self.api.post(
            IMAGES, {'visibility': 'public'}, token=ADMIN).status)
        # A reader creates nothing.
        self.assertEqual(403, self.api.post(
            IMAGES, {'name': 'r'}, token=api_fixtures.READER).status)
        # A taken id is a conflict.
        image = self.create()
        self.assertEqual(409, self.api.post(IMAGES, {'id': image['id']},
                                            token=MEMBER).status)
        self.assertEqual(409, self.api.post(
            IMAGES, {'id': catalog_conf.DEFAULT_IMAGE_UUID},
            token=MEMBER).status)
        self.assertEqual(413, self.api.post(
            IMAGES, {'p%d' % i: 'v' for i in range(129)},
            token=MEMBER).status)

    def test_delete_and_protected(self):
        image = self.create(protected=True)
        response = self.api.delete('%s/%s' % (IMAGES, image['id']),
                                   token=MEMBER)
        self.assertEqual(403, response.status, response)
        self.assertIn('protected', response.text)
        self.patch(image['id'], [{'op': 'replace', 'path': '/protected',
                                  'value': False}])
        self.upload(image['id'])
        path = os.path.join(CONF.image_catalog.store_path,
                            image['id'])
        self.assertTrue(os.path.isfile(path))
        # Another project can see a shared image only as a member.
        self.assertEqual(404, self.api.delete('%s/%s' % (
            IMAGES, image['id']), token=OTHER).status)
        self.assertEqual(204, self.api.delete('%s/%s' % (
            IMAGES, image['id']), token=MEMBER).status)
        self.show(image['id'], status=404)
        self.assertFalse(os.path.exists(path))
        self.assertEqual(404, self.api.delete('%s/%s' % (
            IMAGES, image['id']), token=MEMBER).status)

    def test_catalog_image_is_read_only(self):
        default = catalog_conf.DEFAULT_IMAGE_UUID
        self.assertEqual('active', self.show(default)['status'])
        self.patch(default, [{'op': 'replace', 'path': '/name',
                              'value': 'x'}], token=ADMIN, status=403)
        self.assertEqual(403, self.api.delete('%s/%s' % (IMAGES, default),
                                              token=ADMIN).status)
        # No data to give: 204, as Glance answers for an image without.
        self.assertEqual(204, self.api.get('%s/%s/file' % (
            IMAGES, default)).status)

    def test_tasks_of_an_image(self):
        image = self.create(visibility='private')
        response = self.api.get('%s/%s/tasks' % (IMAGES, image['id']),
                                token=MEMBER)
        self.assertEqual((200, {'tasks': []}),
                         (response.status, response.body))
        self.assertEqual(404, self.api.get('%s/%s/tasks' % (
            IMAGES, image['id']), token=OTHER).status)

    def test_unknown_image(self):
        missing = '%s/00000000-0000-4000-8000-000000000000' % IMAGES
        self.assertEqual(404, self.api.get(missing).status)
        self.assertEqual(404, self.api.delete(missing).status)
        self.assertEqual(404, self.api.get(missing + '/file').status)
        self.assertEqual(404, self.api.get(missing + '/members').status)


class TestData(ImageAPITestBase):

    FLAGS = {'image_catalog': {'image_size_cap': 4096}}

    def test_upload_then_download(self):
        image = self.create(name='data')
        self.assertEqual(204, self.api.get('%s/%s/file' % (
            IMAGES, image['id'])).status)
        self.upload(image['id'])
        shown = self.show(image['id'])
        self.assertEqual('active', shown['status'])
        self.assertEqual(len(DATA), shown['size'])
        self.assertEqual(hashlib.md5(DATA).hexdigest(), shown['checksum'])
        self.assertEqual('sha512', shown['os_hash_algo'])
        self.assertEqual(hashlib.sha512(DATA).hexdigest(),
                         shown['os_hash_value'])
        response = self.api.get('%s/%s/file' % (IMAGES, image['id']))
        self.assertEqual(200, response.status)
        self.assertEqual('application/octet-stream',
                         response.headers['Content-Type'])
        self.assertEqual(shown['checksum'], response.headers['Content-MD5'])
        self.assertEqual(str(len(DATA)), response.headers['Content-Length'])

    def test_range_downloads(self):
        image = self.create(name='ranged')
        self.upload(image['id'])
        url = '%s/%s/file' % (IMAGES, image['id'])
        size = len(DATA)
        for asked, (start, stop) in (('bytes=5-9', (5, 10)),
                                     ('bytes=%d-' % (size - 3),
                                      (size - 3, size)),
                                     ('bytes=-4', (size - 4, size)),
                                     ('bytes=10-99999', (10, size))):
            response = self.api.get(url, headers={'Range': asked})
            self.assertEqual(206, response.status, asked)
            self.assertEqual(DATA[start:stop].decode(), response.text)
            self.assertEqual('bytes %d-%d/%d' % (start, stop - 1, size),
                             response.headers['Content-Range'])
            self.assertEqual(str(stop - start),
                             response.headers['Content-Length'])
            self.assertNotIn('Content-MD5', response.headers)
        response = self.api.get(url, headers={'Range': 'bytes=%d-' % size})
        self.assertEqual(416, response.status)
        self.assertEqual('bytes */%d' % size,
                         response.headers['Content-Range'])

    def test_upload_errors(self):
        image = self.create()
        self.upload(image['id'], content_type='application/json',
                    status=415)
        # Past the size cap: 413, and the image is queued again.
        self.upload(image['id'], data=b'x' * 4097, status=413)
        self.assertEqual('queued', self.show(image['id'])['status'])
        self.assertEqual([], os.listdir(
            CONF.image_catalog.store_path))
        self.upload(image['id'], token=OTHER, status=404)
        self.upload(image['id'])
        # Active: no second upload.
        self.upload(image['id'], status=409)
        # Formats first.
        bare = self.api.post(IMAGES, {'name': 'noformat'},
                             token=MEMBER).body
        self.upload(bare['id'], status=400)

    def test_image_deleted_during_its_upload_is_410(self):
        image = self.create()
        real_write = image_store.write

        def write(conf, image_id, stream, size_cap):
            stored = real_write(conf, image_id, stream, size_cap)
            image_obj.Image.destroy(nl_context.get_admin_context(),
                                    image_id)
            return stored

        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.image.store.write', write))
        self.upload(image['id'], status=410)
        self.assertEqual([], os.listdir(CONF.image_catalog.store_path))

    def test_a_body_larger_than_the_json_bound_uploads(self):
        image = self.create()
        self.upload(image['id'], data=b'y' * 4000)
        self.assertEqual(4000, self.show(image['id'])['size'])


class TestPatch(ImageAPITestBase):

    def test_replace_add_remove(self):
        image = self.create(name='a', distro='cirros')
        patched = self.patch(image['id'], [
            {'op': 'replace', 'path': '/name', 'value': 'b'},
            {'op': 'add', 'path': '/hw_disk_bus', 'value': 'scsi'},
            {'op': 'replace', 'path': '/distro', 'value': 'ubuntu'},
            {'op': 'add', 'path': '/min_ram', 'value': 512},
            {'op': 'replace', 'path': '/tags', 'value': ['x', 'y', 'x']},
            {'op': 'replace', 'path': '/visibility', 'value': 'private'}])
        self.assertEqual(('b', 'scsi', 'ubuntu', 512, ['x', 'y'],
                          'private'),
                         tuple(patched[k] for k in (
                             'name', 'hw_disk_bus', 'distro', 'min_ram',
                             'tags', 'visibility')))
        patched = self.patch(image['id'], [
            {'op': 'remove', 'path': '/distro'}])
        self.assertNotIn('distro', patched)
        self.assertEqual(patched, self.show(image['id']))

    def test_errors(self):
        image = self.create(name='a')
        url = image['id']
        self.patch(url, [{'op': 'move', 'path': '/name'}], status=400)
        self.patch(url, [{'op': 'replace', 'path': '/name'}], status=400)
        self.patch(url, {'op': 'replace'}, status=400)
        self.patch(url, [{'op': 'replace', 'path': 'name', 'value': 'x'}],
                   status=400)
        self.patch(url, [{'op': 'replace', 'path': '/min_disk',
                          'value': 'big'}], status=400)
        self.patch(url, [{'op': 'replace', 'path': '/status',
                          'value': 'active'}], status=403)
        self.patch(url, [{'op': 'replace', 'path': '/id',
                          'value': url}], status=403)
        self.patch(url, [{'op': 'remove', 'path': '/name'}], status=403)
        self.patch(url, [{'op': 'remove', 'path': '/nothing'}], status=409)
        self.patch(url, [{'op': 'replace', 'path': '/nothing',
                          'value': 'x'}], status=409)
        self.patch(url, [{'op': 'replace', 'path': '/visibility',
                          'value': 'public'}], status=403)
        self.patch(url, [{'op': 'replace', 'path': '/owner',
                          'value': 'proj-a'}], status=403)
        self.patch(url, [{'op': 'replace', 'path': '/name', 'value': 'x'}],
                   content_type='application/json', status=415)
        # Nothing of the failed patches stuck.
        self.assertEqual('a', self.show(url)['name'])
        # Once active, the formats stay.
        self.upload(url)
        self.patch(url, [{'op': 'replace', 'path': '/disk_format',
                          'value': 'qcow2'}], status=403)

    def test_only_the_owner_changes_an_image(self):
        image = self.create(name='pub', visibility='community')
        self.patch(image['id'], [{'op': 'replace', 'path': '/name',
                                  'value': 'x'}], token=OTHER, status=403)
        private = self.create(visibility='private')
        self.patch(private['id'], [{'op': 'replace', 'path': '/name',
                                    'value': 'x'}], token=OTHER, status=404)
        self.patch(private['id'], [{'op': 'replace', 'path': '/name',
                                    'value': 'by-admin'}], token=ADMIN)

    def test_tags(self):
        image = self.create()
        base = '%s/%s/tags/' % (IMAGES, image['id'])
        self.assertEqual(204, self.api.put(base + 'one', token=MEMBER)
                         .status)
        self.assertEqual(204, self.api.put(base + 'one', token=MEMBER)
                         .status)
        self.assertEqual(204, self.api.put(base + 'two', token=MEMBER)
                         .status)
        self.assertEqual(['one', 'two'], self.show(image['id'])['tags'])
        self.assertEqual([image['id']], self.ids('?tag=two'))
        self.assertEqual(204, self.api.delete(base + 'one', token=MEMBER)
                         .status)
        self.assertEqual(404, self.api.delete(base + 'one', token=MEMBER)
                         .status)
        self.assertEqual(['two'], self.show(image['id'])['tags'])


class TestListing(ImageAPITestBase):

    def test_paging_and_sorting(self):
        made = [self.create(name='img-%d' % i, visibility='private')['id']
                for i in range(5)]
        by_name = self.ids('?sort_key=name&sort_dir=asc&visibility=private')
        self.assertEqual(made, by_name)
        self.assertEqual(made[::-1], self.ids(
            '?sort=name:desc&visibility=private'))
        response = self.api.get(IMAGES + '?visibility=private&limit=2&'
                                'sort_key=name&sort_dir=asc', token=MEMBER)
        self.assertEqual(made[:2],
                         [i['id'] for i in response.body['images']])
        next_page = response.body['next']
        self.assertIn('marker=%s' % made[1], next_page)
        response = self.api.get('/image' + next_page, token=MEMBER)
        self.assertEqual(made[2:4],
                         [i['id'] for i in response.body['images']])
        self.assertEqual(400, self.api.get(IMAGES + '?sort_key=bogus',
                                           token=MEMBER).status)
        self.assertEqual(400, self.api.get(IMAGES + '?sort_dir=up',
                                           token=MEMBER).status)
        self.assertEqual(400, self.api.get(
            IMAGES + '?marker=00000000-0000-4000-8000-000000000000',
            token=MEMBER).status)
        self.assertEqual(400, self.api.get(IMAGES + '?limit=-1',
                                           token=MEMBER).status)
        self.assertEqual(400, self.api.get(IMAGES + '?visibility=secret',
                                           token=MEMBER).status)
        # Filters: name, status, owner, a property.
        self.assertEqual([made[3]], self.ids('?name=img-3'))
        self.assertEqual([], self.ids('?status=active&owner=proj-a'))
        marked = self.create(name='marked', flavour='x')['id']
        self.assertEqual([marked], self.ids('?flavour=x'))


class TestVisibility(ImageAPITestBase):

    def test_who_sees_what(self):
        private = self.create(name='private', visibility='private')['id']
        community = self.create(name='community',
                                visibility='community')['id']
        shared = self.create(name='shared')['id']
        default = catalog_conf.DEFAULT_IMAGE_UUID
        # The owner lists its own images of every kind.
        self.assertEqual({private, community, shared, default},
                         set(self.ids()))
        # Another project: the public catalog only; community on demand.
        self.assertEqual([default], self.ids(token=OTHER))
        self.assertEqual([community], self.ids('?visibility=community',
                                               token=OTHER))
        self.show(community, token=OTHER)
        self.show(private, token=OTHER, status=404)
        self.show(shared, token=OTHER, status=404)
        # An admin sees everything.
        self.assertEqual({private, community, shared, default},
                         set(self.ids(token=ADMIN)))

    def test_members(self):
        shared = self.create(name='shared')['id']
        members = '%s/%s/members' % (IMAGES, shared)
        response = self.api.post(members, {'member': 'proj-b'},
                                 token=MEMBER)
        self.assertEqual(200, response.status, response)
        self.assertEqual({'image_id': shared, 'member_id': 'proj-b',
                          'status': 'pending',
                          'schema': '/v2/schemas/member'},
                         {k: response.body[k] for k in (
                             'image_id', 'member_id', 'status', 'schema')})
        self.assertEqual(409, self.api.post(members, {'member': 'proj-b'},
                                            token=MEMBER).status)
        self.assertEqual(400, self.api.post(members, {'who': 'x'},
                                            token=MEMBER).status)
        # A pending member can show it, but does not list it by default.
        self.show(shared, token=OTHER)
        self.assertNotIn(shared, self.ids(token=OTHER))
        self.assertEqual([shared], self.ids(
            '?visibility=shared&member_status=pending', token=OTHER))
        # Only the member answers; then the image is listed for it.
        me = members + '/proj-b'
        self.assertEqual(403, self.api.put(me, {'status': 'accepted'},
                                           token=MEMBER).status)
        self.assertEqual(400, self.api.put(me, {'status': 'maybe'},
                                           token=OTHER).status)
        response = self.api.put(me, {'status': 'accepted'}, token=OTHER)
        self.assertEqual(200, response.status, response)
        self.assertEqual('accepted', response.body['status'])
        self.assertIn(shared, self.ids(token=OTHER))
        # A member sees only itself; a third project nothing at all.
        self.assertEqual(200, self.api.post(members, {'member': 'proj-c'},
                                            token=MEMBER).status)
        listed = self.api.get(members, token=OTHER).body
        self.assertEqual(['proj-b'],
                         [m['member_id'] for m in listed['members']])
        self.assertEqual('/v2/schemas/members', listed['schema'])
        self.assertEqual(2, len(self.api.get(members, token=MEMBER)
                                .body['members']))
        self.assertEqual(403, self.api.post(members, {'member': 'proj-d'},
                                            token=OTHER).status)
        self.assertEqual(404, self.api.get(me, token=THIRD).status)
        # Only the owner removes a member.
        self.assertEqual(403, self.api.delete(me, token=OTHER).status)
        self.assertEqual(204, self.api.delete(me, token=MEMBER).status)
        self.show(shared, token=OTHER, status=404)
        self.assertEqual(404, self.api.delete(me, token=MEMBER).status)

    def test_only_shared_images_have_members(self):
        private = self.create(visibility='private')['id']
        response = self.api.post('%s/%s/members' % (IMAGES, private),
                                 {'member': 'proj-b'}, token=MEMBER)
        self.assertEqual(403, response.status, response)
        self.assertIn('Only shared images have members', response.text)


class TestComputeImageProxy(ImageAPITestBase):
    """/v2.1/images (Nova's shapes, up to 2.35) reads and writes the image
    service with the caller's rights."""

    def test_metadata_and_delete_through_the_proxy(self):
        image = self.create(name='proxied', visibility='private', k='v')
        url = '/v2.1/images/%s' % image['id']
        shown = self.api.get(url, token=MEMBER, version='2.35').body
        self.assertEqual({'k': 'v'}, shown['image']['metadata'])
        self.assertEqual(404, self.api.get(url, token=OTHER,
                                           version='2.35').status)
        response = self.api.post(url + '/metadata', {'metadata': {
            'x': 'y'}}, token=MEMBER, version='2.35')
        self.assertEqual(200, response.status, response)
        self.assertEqual({'k': 'v', 'x': 'y'}, response.body['metadata'])
        self.assertEqual('y', self.show(image['id'])['x'])
        self.assertEqual(204, self.api.delete(url + '/metadata/k',
                                              token=MEMBER,
                                              version='2.35').status)
        self.assertNotIn('k', self.show(image['id']))
        self.assertEqual(403, self.api.delete(
            '/v2.1/images/%s' % catalog_conf.DEFAULT_IMAGE_UUID,
            token=ADMIN, version='2.35').status)
        self.assertEqual(204, self.api.delete(url, token=MEMBER,
                                              version='2.35').status)
        self.show(image['id'], status=404)
