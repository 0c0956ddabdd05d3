"""Server snapshots: createImage and the image a shelve stores.

Through the whole cloud in-process: the API creates the image, the
compute's fake driver uploads the guest through the image API (RPC
``snapshot_instance``, ``shelve_instance`` with the image), a server
boots from the snapshot, and an offloaded server unshelves from its
shelve image, which is then deleted as Nova does.
"""

from nova_lite import cells
from nova_lite import context as nl_context
from nova_lite.image import objects as image_obj
from nova_lite import objects
from tests.functional import test_servers

IMAGES = '/image/v2/images'


class SnapshotBase(test_servers.ServersTestBase):

    COMPUTES = ('host1',)

    def image(self, image_id, status=200):
        response = self.api.get('%s/%s' % (IMAGES, image_id))
        self.assertEqual(status, response.status, response)
        return response.body

    def action(self, server_id, body, version=None):
        response = self.api.post('/servers/%s/action' % server_id, body,
                                 version=version)
        self.cloud.wait_for_builds()
        return response


class SnapshotTestCase(SnapshotBase):

    def test_create_image_then_boot_from_it(self):
        server = self.boot('ACTIVE')
        response = self.action(server['id'], {'createImage': {
            'name': 'snap', 'metadata': {'purpose': 'test'}}})
        self.assertEqual(202, response.status, response)
        image_id = response.body['image_id']
        self.assertNotIn('Location', response.headers)
        image = self.image(image_id)
        self.assertEqual(('snap', 'active', 'private', 'demo-project',
                          'raw', 'bare', 'snapshot', server['id'], 'test'),
                         tuple(image[k] for k in (
                             'name', 'status', 'visibility', 'owner',
                             'disk_format', 'container_format',
                             'image_type', 'instance_uuid', 'purpose')))
        self.assertGreater(image['size'], 0)
        self.assertEqual(32, len(image['checksum']))
        data = self.api.get('%s/%s/file' % (IMAGES, image_id))
        self.assertEqual(image['checksum'], data.headers['Content-MD5'])
        shown = self.cloud.get_server(server['id'])
        self.assertIsNone(shown['OS-EXT-STS:task_state'])
        self.assertEqual('ACTIVE', shown['status'])

        booted = self.boot('ACTIVE', image_id=image_id, name='from-snap')
        self.assertEqual(image_id, booted['image']['id'])

    def test_create_image_before_2_45_answers_a_location(self):
        server = self.boot('ACTIVE')
        response = self.action(server['id'], {'createImage': {
            'name': 'old'}}, version='2.44')
        self.assertEqual(202, response.status, response)
        self.assertEqual('', response.text)
        location = response.headers['Location']
        self.assertIn('/image/images/', location)
        self.assertEqual('active',
                         self.image(location.rsplit('/', 1)[1])['status'])

    def test_create_image_errors(self):
        server = self.boot('ACTIVE')
        url = '/servers/%s/action' % server['id']
        self.assertEqual(400, self.api.post(url, {'createImage': {}}).status)
        self.assertEqual(400, self.api.post(url, {'createImage': {
            'name': 'x', 'metadata': {'k': 1}}}).status)
        self.assertEqual(400, self.api.post(url, {'createImage': {
            'name': 'x', 'extra': 1}}).status)
        self.action(server['id'], {'shelve': None})
        self.cloud.wait_for_server(server['id'], 'SHELVED_OFFLOADED')
        before = len(image_obj.Image.get_all(
            nl_context.get_admin_context()))
        response = self.api.post(url, {'createImage': {'name': 'x'}})
        self.assertEqual(409, response.status, response)
        # The refused action left no image behind.
        self.assertEqual(before, len(image_obj.Image.get_all(
            nl_context.get_admin_context())))

    def test_shelve_offload_unshelve_through_the_snapshot(self):
        server = self.boot('ACTIVE')
        self.action(server['id'], {'shelve': None})
        self.cloud.wait_for_server(server['id'], 'SHELVED_OFFLOADED')
        images = [i for i in self.api.get(IMAGES).body['images']
                  if i.get('instance_uuid') == server['id']]
        self.assertEqual(['server-shelved'], [i['name'] for i in images])
        snapshot = images[0]
        self.assertEqual('active', snapshot['status'])
        with cells.target_cell(
                nl_context.get_admin_context(),
                self.cloud.dbs.cells['cell1']) as cctxt:
            instance = objects.Instance.get_by_uuid(cctxt, server['id'])
        self.assertEqual(snapshot['id'],
                         instance.system_metadata['shelved_image_id'])

        response = self.action(server['id'], {'unshelve': None})
        self.assertEqual(202, response.status, response)
        active = self.cloud.wait_for_server(server['id'], 'ACTIVE')
        # The server keeps its own image; the shelve's one is gone.
        self.assertEqual(server['image']['id'], active['image']['id'])
        self.image(snapshot['id'], status=404)

    def test_deleting_a_shelved_server_deletes_its_snapshot(self):
        server = self.boot('ACTIVE')
        self.action(server['id'], {'shelve': None})
        self.cloud.wait_for_server(server['id'], 'SHELVED_OFFLOADED')
        (snapshot,) = [i for i in self.api.get(IMAGES).body['images']
                       if i.get('instance_uuid') == server['id']]
        self.assertEqual(204, self.api.delete('/servers/%s'
                                              % server['id']).status)
        self.image(snapshot['id'], status=404)

    def test_unshelve_without_its_snapshot_is_an_error(self):
        server = self.boot('ACTIVE')
        self.action(server['id'], {'shelve': None})
        self.cloud.wait_for_server(server['id'], 'SHELVED_OFFLOADED')
        (snapshot,) = [i for i in self.api.get(IMAGES).body['images']
                       if i.get('instance_uuid') == server['id']]
        self.assertEqual(204, self.api.delete('%s/%s' % (
            IMAGES, snapshot['id'])).status)
        self.assertEqual(202, self.action(server['id'],
                                          {'unshelve': None}).status)
        failed = self.cloud.wait_for_server(server['id'], 'ERROR')
        self.assertIn('cannot be found', failed['fault']['message'])


class ShelveKeepSnapshotTestCase(SnapshotBase):
    """``shelved_offload_time`` -1: the server unshelves on the host that
    kept its guest, and its shelve image goes all the same."""

    FLAGS = {'DEFAULT': {'shelved_offload_time': -1}}

    def test_unshelve_in_place_deletes_the_snapshot(self):
        server = self.boot('ACTIVE')
        self.action(server['id'], {'shelve': None})
        self.cloud.wait_for_server(server['id'], 'SHELVED')
        snapshot = [i for i in self.api.get(IMAGES).body['images']
                    if i.get('instance_uuid') == server['id']][0]

        self.action(server['id'], {'unshelve': None})
        self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.image(snapshot['id'], status=404)


class BackupTestCase(SnapshotBase):
    """createBackup: a snapshot as a ``backup``, then the rotation."""

    def backups(self, server_id, backup_type='daily'):
        """The names of the server's active backups, oldest first."""
        listed = self.api.get(
            '%s?image_type=backup&backup_type=%s&instance_uuid=%s'
            '&status=active&sort_key=created_at&sort_dir=asc'
            % (IMAGES, backup_type, server_id)).body['images']
        return [image['name'] for image in listed]

    def backup(self, server_id, name, rotation, backup_type='daily',
               version=None, status='ACTIVE'):
        # No pause between backups: the fake driver makes several in a
        # second, and the listing and the rotation still order them as
        # made (created_at shows seconds, sorts by microseconds).
        response = self.action(server_id, {'createBackup': dict(
            name=name, backup_type=backup_type, rotation=rotation)},
            version=version)
        self.assertEqual(202, response.status, response)
        shown = self.cloud.wait_for_server(server_id, status)
        self.assertIsNone(shown['OS-EXT-STS:task_state'])
        return response

    def test_rotation_keeps_the_newest_backups(self):
        server = self.boot('ACTIVE')
        first = self.backup(server['id'], 'b1', 2).body['image_id']
        image = self.image(first)
        self.assertEqual(('active', 'backup', 'daily', server['id'],
                          'private'),
                         tuple(image[k] for k in (
                             'status', 'image_type', 'backup_type',
                             'instance_uuid', 'visibility')))
        self.backup(server['id'], 'b2', '2')
        self.backup(server['id'], 'w1', 2, backup_type='weekly')
        self.assertEqual(['b1', 'b2'], self.backups(server['id']))
        self.backup(server['id'], 'b3', 2)
        self.assertEqual(['b2', 'b3'], self.backups(server['id']))
        self.image(first, status=404)
        # Another backup type of the same server is rotated on its own.
        self.assertEqual(['w1'], self.backups(server['id'], 'weekly'))

    def test_before_2_45_a_location_unless_rotation_is_0(self):
        server = self.boot('ACTIVE')
        response = self.backup(server['id'], 'old', 1, version='2.44')
        self.assertEqual('', response.text)
        location = response.headers['Location']
        self.assertIn('/v2.1/images/', location)
        self.assertEqual('active',
                         self.image(location.rsplit('/', 1)[1])['status'])
        # Rotation 0 keeps no backup: no Location, and the backup goes.
        response = self.backup(server['id'], 'none', 0, version='2.44')
        self.assertNotIn('Location', response.headers)
        self.assertEqual([], self.backups(server['id']))

    def test_backup_errors(self):
        server = self.boot('ACTIVE')
        url = '/servers/%s/action' % server['id']
        for bad in ({'name': 'b', 'backup_type': 'daily'},
                    {'name': 'b', 'backup_type': 'daily', 'rotation': -1},
                    {'name': 'b', 'backup_type': 'daily', 'rotation': 'x'},
                    {'name': 'b', 'backup_type': 'daily', 'rotation': 1,
                     'extra': 1}):
            response = self.api.post(url, {'createBackup': bad})
            self.assertEqual(400, response.status, (bad, response))
        self.action(server['id'], {'pause': None})
        self.cloud.wait_for_server(server['id'], 'PAUSED')
        self.backup(server['id'], 'paused', 1, status='PAUSED')
        self.assertEqual(['paused'], self.backups(server['id']))
