"""Glance's cache API (``/image/v2/cache``) over the lab's image cache:
queueing fetches an image's data into the cache, downloads read the
cached copy and count hits, and deleting or clearing drops copies."""

import os

from nova_lite import conf as nl_conf
from tests.functional.image import test_image_api as base

ADMIN, MEMBER = base.ADMIN, base.MEMBER
IMAGES = base.IMAGES
CACHE = '/image/v2/cache'
CONF = nl_conf.CONF


class TestImageCache(base.ImageAPITestBase):

    def cache(self, method='GET', image_id=None, token=ADMIN, status=200,
              headers=None):
        path = CACHE if image_id is None else '%s/%s' % (CACHE, image_id)
        response = self.api.request(method, path, token=token,
                                    headers=headers)
        self.assertEqual(status, response.status, response)
        return response.body

    def active_image(self):
        image = self.create(name='cached')
        self.upload(image['id'])
        return image['id']

    def test_queue_caches_the_data_and_downloads_read_it(self):
        image_id = self.active_image()
        self.assertEqual({'cached_images': [], 'queued_images': []},
                         self.cache())
        self.cache('PUT', image_id, status=202)
        listed = self.cache()
        self.assertEqual([], listed['queued_images'])
        [entry] = listed['cached_images']
        self.assertEqual((image_id, len(base.DATA), 0), (
            entry['image_id'], entry['size'], entry['hits']))
        for key in ('last_accessed', 'last_modified'):
            self.assertIsInstance(entry[key], float)
        # the copy is what a download reads: the store's file may go
        os.unlink(os.path.join(
            CONF.image_catalog.store_path, image_id))
        response = self.api.get('%s/%s/file' % (IMAGES, image_id),
                                token=MEMBER)
        self.assertEqual((200, base.DATA.decode()), (response.status,
                                            response.text))
        part = self.api.request('GET', '%s/%s/file' % (IMAGES, image_id),
                                token=MEMBER, headers={'Range': 'bytes=0-3'})
        self.assertEqual((206, base.DATA[:4].decode()),
                         (part.status, part.text))
        self.assertEqual(2, self.cache()['cached_images'][0]['hits'])
        # queueing a cached image again leaves it cached
        self.cache('PUT', image_id, status=202)
        self.assertEqual([image_id], [
            e['image_id'] for e in self.cache()['cached_images']])
        self.cache('DELETE', image_id, status=204)
        self.assertEqual({'cached_images': [], 'queued_images': []},
                         self.cache())

    def test_an_image_without_readable_data_stays_queued(self):
        image_id = self.active_image()
        os.unlink(os.path.join(
            CONF.image_catalog.store_path, image_id))
        self.cache('PUT', image_id, status=202)
        self.assertEqual({'cached_images': [], 'queued_images': [image_id]},
                         self.cache())
        self.cache('DELETE', image_id, status=204)
        self.assertEqual([], self.cache()['queued_images'])

    def test_clear_targets(self):
        cached = self.active_image()
        queued = self.active_image()
        self.cache('PUT', cached, status=202)
        os.unlink(os.path.join(
            CONF.image_catalog.store_path, queued))
        self.cache('PUT', queued, status=202)
        self.cache('DELETE', status=400,
                   headers={'x-image-cache-clear-target': 'everything'})
        self.cache('DELETE', status=204,
                   headers={'x-image-cache-clear-target': 'queue'})
        listed = self.cache()
        self.assertEqual(([cached], []), (
            [e['image_id'] for e in listed['cached_images']],
            listed['queued_images']))
        self.cache('PUT', queued, status=202)
        self.cache('DELETE', status=204,
                   headers={'x-image-cache-clear-target': 'cache'})
        self.assertEqual({'cached_images': [], 'queued_images': [queued]},
                         self.cache())
        self.cache('PUT', cached, status=202)
        self.cache('DELETE', status=204)
        self.assertEqual({'cached_images': [], 'queued_images': []},
                         self.cache())

    def test_deleting_an_image_drops_its_copy(self):
        image_id = self.active_image()
        self.cache('PUT', image_id, status=202)
        response = self.api.delete('%s/%s' % (IMAGES, image_id),
                                   token=MEMBER)
        self.assertEqual(204, response.status, response)
        self.assertEqual([], self.cache()['cached_images'])
        left = [name for _dir, _subdirs, names in os.walk(
            CONF.image_catalog.cache_path) for name in names]
        self.assertEqual([], left)

    def test_errors(self):
        image_id = self.active_image()
        # admins only
        self.cache(token=MEMBER, status=403)
        self.cache('PUT', image_id, token=MEMBER, status=403)
        self.cache('DELETE', image_id, token=MEMBER, status=403)
        self.cache('DELETE', token=MEMBER, status=403)
        # an image that is not there, or not active
        self.cache('PUT', '0' * 32, status=404)
        self.cache('PUT', 'not-an-id', status=404)
        self.cache('DELETE', 'c0ffee00-0000-4000-8000-000000000000',
                   status=404)
        self.cache('DELETE', 'not-an-id', status=404)
        queued = self.create(name='no data')
        self.cache('PUT', queued['id'], status=400)
        # an image that is there but not cached: nothing to delete
        self.cache('DELETE', image_id, status=204)
        self.assertEqual({'cached_images': [], 'queued_images': []},
                         self.cache())


class TestWithoutCache(base.ImageAPITestBase):

    FLAGS = {'image_catalog': {'cache_path': ''}}

    def test_no_cache_is_a_404(self):
        image = self.create(name='i')
        self.upload(image['id'])
        for method, path in (('GET', CACHE), ('DELETE', CACHE),
                             ('PUT', '%s/%s' % (CACHE, image['id'])),
                             ('DELETE', '%s/%s' % (CACHE, image['id']))):
            response = self.api.request(method, path, token=ADMIN)
            self.assertEqual(404, response.status, (method, response))
        response = self.api.get('%s/%s/file' % (IMAGES, image['id']),
                                token=MEMBER)
        self.assertEqual((200, base.DATA.decode()), (response.status,
                                            response.text))
