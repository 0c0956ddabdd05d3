"""python-glanceclient drives the image service, schemas and all.

glanceclient reads ``/v2/schemas/image`` (or ``member``) before it lists,
shows, creates or patches, builds its models from that schema and
validates what the service returns against it, so these calls pass only
when the published schemas and the responses agree. Requests go through
the compute API's whole middleware pipeline in-process (wsgi-intercept
in front of ``requests``). Skipped when glanceclient is not installed.
"""

import io
import time

import testtools

from nova_lite.conf import image_catalog as catalog_conf
from tests.functional.api import fixtures as api_fixtures

try:
    import glanceclient
    from glanceclient import exc as glance_exc
    from wsgi_intercept import interceptor
except ImportError:  # pragma: no cover - optional client
    glanceclient = None

HOST, PORT = 'glance.test', 8792
DATA = b'glanceclient image bytes' * 64


def _decoded(raw):
    body, rest = b'', raw
    while rest:
        size_line, _sep, rest = rest.partition(b'\r\n')
        size = int(size_line.split(b';')[0], 16)
        if size == 0:
            break
        body, rest = body + rest[:size], rest[size + 2:]
    return body


def _dechunked(app):
    """What gunicorn does in the lab and wsgi-intercept does not: a
    chunked body (glanceclient uploads so) decoded, the input marked
    terminated."""
    def wrapper(environ, start_response):
        if 'chunked' in environ.get('HTTP_TRANSFER_ENCODING', ''):
            body = _decoded(environ['wsgi.input'].read())
            environ['wsgi.input'] = io.BytesIO(body)
            environ['wsgi.input_terminated'] = True
        return app(environ, start_response)
    return wrapper


class GlanceClientTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        if glanceclient is None:
            self.skipTest('python-glanceclient is not installed')
        self.api = self.useFixture(api_fixtures.APIFixture(
            cells=('cell1',)))
        intercept = interceptor.RequestsInterceptor(
            app=lambda: _dechunked(self.api.app), host=HOST, port=PORT)
        intercept.__enter__()
        self.addCleanup(intercept.__exit__, None, None, None)

    def client(self, token=api_fixtures.MEMBER):
        return glanceclient.Client(
            '2', endpoint='http://%s:%d/image' % (HOST, PORT), token=token)

    def test_schemas(self):
        glance = self.client()
        image = glance.schemas.get('image')
        self.assertIn('os_hash_value', image.raw()['properties'])
        self.assertEqual({'type': 'string'},
                         image.raw()['additionalProperties'])
        self.assertTrue(image.is_core_property('min_ram'))
        self.assertFalse(image.is_core_property('hw_machine_type'))
        for name in ('images', 'member', 'members'):
            self.assertEqual(name, glance.schemas.get(name).name)

    def test_list_and_get_the_catalog_image(self):
        glance = self.client()
        images = list(glance.images.list())
        self.assertIn(catalog_conf.DEFAULT_IMAGE_UUID,
                      [i['id'] for i in images])
        image = glance.images.get(catalog_conf.DEFAULT_IMAGE_UUID)
        self.assertEqual('active', image.status)

    def test_image_life_cycle(self):
        glance = self.client()
        image = glance.images.create(
            name='gc', disk_format='raw', container_format='bare',
            os_distro='cirros', tags=['a'])
        self.assertEqual('queued', image.status)
        glance.images.upload(image.id, io.BytesIO(DATA))
        shown = glance.images.get(image.id)
        self.assertEqual(('active', len(DATA)), (shown.status, shown.size))
        self.assertEqual(DATA, b''.join(glance.images.data(image.id)))
        updated = glance.images.update(image.id, name='renamed',
                                       hw_rng_model='virtio',
                                       remove_props=['os_distro'])
        self.assertEqual('renamed', updated.name)
        self.assertEqual('virtio', updated['hw_rng_model'])
        self.assertNotIn('os_distro', updated)
        glance.image_tags.update(image.id, 'b')
        glance.image_tags.delete(image.id, 'a')
        self.assertEqual(['b'], glance.images.get(image.id).tags)
        listed = list(glance.images.list(filters={'name': 'renamed'}))
        self.assertEqual([image.id], [i.id for i in listed])
        glance.images.delete(image.id)
        self.assertRaises(glance_exc.HTTPNotFound, glance.images.get,
                          image.id)

    def test_members(self):
        owner = self.client()
        other = self.client(api_fixtures.OTHER)
        image = owner.images.create(name='shared', visibility='shared',
                                    disk_format='raw',
                                    container_format='bare')
        member = owner.image_members.create(image.id, 'proj-b')
        self.assertEqual('pending', member.status)
        self.assertEqual(['proj-b'], [m.member_id for m in
                                      owner.image_members.list(image.id)])
        other.image_members.update(image.id, 'proj-b', 'accepted')
        self.assertIn(image.id, [i.id for i in other.images.list()])
        owner.image_members.delete(image.id, 'proj-b')
        self.assertRaises(glance_exc.HTTPNotFound, other.images.get,
                          image.id)

    def test_deactivate_and_reactivate(self):
        glance = self.client()
        image = glance.images.create(name='d', disk_format='raw',
                                     container_format='bare')
        glance.images.upload(image.id, io.BytesIO(DATA))
        glance.images.deactivate(image.id)
        self.assertEqual('deactivated', glance.images.get(image.id).status)
        self.assertRaises(glance_exc.HTTPForbidden, glance.images.data,
                          image.id)
        admin = self.client(api_fixtures.ADMIN)
        self.assertEqual(DATA, b''.join(admin.images.data(image.id)))
        glance.images.reactivate(image.id)
        self.assertEqual('active', glance.images.get(image.id).status)

    def test_stage_and_glance_direct_import(self):
        glance = self.client()
        info = glance.images.get_import_info()
        self.assertIn('glance-direct', info['import-methods']['value'])
        self.assertEqual(['local'], [s['id'] for s in
                                     glance.images.get_stores_info()[
                                         'stores']])
        image = glance.images.create(name='staged', disk_format='raw',
                                     container_format='bare')
        glance.images.stage(image.id, io.BytesIO(DATA))
        self.assertEqual('uploading', glance.images.get(image.id).status)
        glance.images.image_import(image.id, method='glance-direct')
        deadline = time.monotonic() + 20
        while glance.images.get(image.id).status != 'active':
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.05)
        self.assertEqual(DATA, b''.join(glance.images.data(image.id)))
        admin = self.client(api_fixtures.ADMIN)
        self.assertIn(image.id, [t.get('image_id') for t in (
            admin.tasks.get(t.id) for t in admin.tasks.list())])
