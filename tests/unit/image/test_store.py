"""The image store: whole files or nothing, sizes and hashes."""

import hashlib
import io
import os

import fixtures
from oslo_config import cfg
import testtools

from nova_lite import conf as nl_conf
from nova_lite.image import store as image_store

IMAGE_ID = '7d3c1c9e-9c63-4d7a-9f3e-2f6f5e0b6a11'


class ImageStoreTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.conf = cfg.ConfigOpts()
        nl_conf.register_opts(self.conf)
        self.conf([], default_config_files=[])
        self.conf.set_override('state_path',
                               self.useFixture(fixtures.TempDir()).path)
        self.directory = self.conf.image_catalog.store_path

    def test_store_path_is_under_the_state_path(self):
        self.assertEqual(os.path.join(self.conf.state_path, 'images'),
                         self.directory)

    def test_write_read_delete(self):
        data = b'z' * (image_store.CHUNK * 2 + 3)
        stored = image_store.write(self.conf, IMAGE_ID, io.BytesIO(data),
                                   len(data))
        self.assertEqual((len(data), hashlib.md5(data).hexdigest(),
                          'sha512', hashlib.sha512(data).hexdigest()),
                         (stored.size, stored.checksum, stored.os_hash_algo,
                          stored.os_hash_value))
        self.assertEqual(data, b''.join(image_store.chunks(self.conf,
                                                           IMAGE_ID)))
        image_store.delete(self.conf, IMAGE_ID)
        self.assertFalse(image_store.exists(self.conf, IMAGE_ID))
        image_store.delete(self.conf, IMAGE_ID)

    def test_too_large_leaves_nothing(self):
        self.assertRaises(image_store.TooLarge, image_store.write, self.conf,
                          IMAGE_ID, io.BytesIO(b'x' * 11), 10)
        self.assertEqual([], os.listdir(self.directory))

    def test_only_image_ids_name_files(self):
        self.assertRaises(ValueError, image_store.path, self.conf,
                          '../etc/passwd')
