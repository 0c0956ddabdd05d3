"""The image service with the standard clients, unchanged, against a lab.

One small lab (1 cell, 1 compute, 2 fake nodes, SQLite): ``openstack
image create --file``, ``image show``, ``image save`` (same checksum),
``image set --property``, ``image delete``; ``openstack server image
create`` and a boot from that snapshot; shelve (offloaded) and unshelve
through the shelve's snapshot, which is deleted afterwards; and
python-glanceclient (which reads the image schema first and uploads
chunked, decoded by the lab's gunicorn): list, create, upload, download,
a web-download import from a loopback HTTP server, delete.
"""

import hashlib
from http import server as http_server
import io
import os
import threading
import time

import fixtures

from tests.integration import lab as lab_mod

MEMBER = 'nova-lite'
DATA = os.urandom(3 * 65536 + 17)


def md5_of(path):
    with open(path, 'rb') as f:
        return hashlib.md5(f.read()).hexdigest()


class TestImagesAgainstLab(lab_mod.LabTestCase):

    LAB_KWARGS = dict(cells=1, computes_per_cell=1, nodes_per_compute=2,
                      database='sqlite', name_prefix='nl_img')

    def os(self, *args, parse=True):
        return self.lab.openstack(MEMBER, *args, parse=parse)

    def wait_status(self, kind, name, status, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            shown = self.os(kind, 'show', name)
            if shown['status'] == status:
                return shown
            if time.monotonic() > deadline:
                self.fail('%s %s is %s, not %s' % (kind, name,
                                                   shown['status'], status))
            time.sleep(1)

    def test_image_create_show_save_set_delete(self):
        folder = self.useFixture(fixtures.TempDir()).path
        source = os.path.join(folder, 'disk.raw')
        with open(source, 'wb') as f:
            f.write(DATA)
        created = self.os('image', 'create', '--file', source,
                          '--disk-format', 'raw', '--container-format',
                          'bare', 'cli-image')
        self.assertEqual('active', created['status'])
        self.assertEqual(md5_of(source), created['checksum'])
        shown = self.os('image', 'show', 'cli-image')
        self.assertEqual(len(DATA), shown['size'])
        self.assertEqual(created['id'], shown['id'])

        saved = os.path.join(folder, 'saved.raw')
        self.os('image', 'save', '--file', saved, 'cli-image', parse=False)
        self.assertEqual(md5_of(source), md5_of(saved))

        self.os('image', 'set', '--property', 'hw_disk_bus=scsi',
                '--property', 'purpose=lab', 'cli-image', parse=False)
        properties = self.os('image', 'show', 'cli-image')['properties']
        self.assertEqual('scsi', properties['hw_disk_bus'])
        self.assertEqual('lab', properties['purpose'])

        self.os('image', 'delete', 'cli-image', parse=False)
        names = {i['Name'] for i in self.os('image', 'list')}
        self.assertNotIn('cli-image', names)
        self.assertIn(lab_mod.IMAGE, names)

    def test_server_image_create_then_boot_from_it(self):
        server = self.os('server', 'create', '--flavor', 'm1.tiny',
                         '--image', lab_mod.IMAGE, '--nic', 'none',
                         '--wait', 'snap-source')
        self.assertEqual('ACTIVE', server['status'])
        snapshot = self.os('server', 'image', 'create', '--name',
                           'cli-snap', '--wait', 'snap-source')
        self.assertEqual('cli-snap', snapshot['name'])
        shown = self.wait_status('image', 'cli-snap', 'active')
        self.assertGreater(shown['size'], 0)
        self.assertEqual(server['id'],
                         shown['properties']['instance_uuid'])

        booted = self.os('server', 'create', '--flavor', 'm1.tiny',
                         '--image', 'cli-snap', '--nic', 'none', '--wait',
                         'from-snap')
        self.assertEqual('ACTIVE', booted['status'])
        self.assertEqual('cli-snap', booted['image'].split(' (')[0])

        # Shelve offloads (shelved_offload_time 0) through a snapshot;
        # unshelve boots from it and deletes it.
        self.os('server', 'shelve', '--wait', 'snap-source', parse=False)
        self.wait_status('server', 'snap-source', 'SHELVED_OFFLOADED')
        shelved = [i for i in self.os('image', 'list')
                   if i['Name'] == 'snap-source-shelved']
        self.assertEqual(1, len(shelved))
        self.os('server', 'unshelve', '--wait', 'snap-source', parse=False)
        self.wait_status('server', 'snap-source', 'ACTIVE')
        names = {i['Name'] for i in self.os('image', 'list')}
        self.assertNotIn('snap-source-shelved', names)

        for name in ('from-snap', 'snap-source'):
            self.os('server', 'delete', '--wait', name, parse=False)
        self.os('image', 'delete', 'cli-snap', parse=False)

    def test_glanceclient(self):
        try:
            import glanceclient
        except ImportError:
            self.skipTest('python-glanceclient is not installed')
        glance = glanceclient.Client('2', endpoint=self.lab.api + '/image',
                                     token=lab_mod.MEMBER_PROJECT)
        self.assertIn(lab_mod.IMAGE,
                      [i['name'] for i in glance.images.list()])
        image = glance.images.create(name='gc-image', disk_format='raw',
                                     container_format='bare')
        glance.images.upload(image.id, io.BytesIO(DATA))
        shown = glance.images.get(image.id)
        self.assertEqual(('active', len(DATA)), (shown.status, shown.size))
        self.assertEqual(DATA, b''.join(glance.images.data(image.id)))

        class Serve(http_server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header('Content-Length', str(len(DATA)))
                self.end_headers()
                self.wfile.write(DATA)

            def log_message(self, *args):
                pass

        httpd = http_server.ThreadingHTTPServer(('127.0.0.1', 0), Serve)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        self.addCleanup(httpd.server_close)
        self.addCleanup(httpd.shutdown)
        web = glance.images.create(name='gc-web', disk_format='raw',
                                   container_format='bare')
        glance.images.image_import(
            web.id, method='web-download',
            uri='http://127.0.0.1:%d/disk.raw' % httpd.server_port)
        deadline = time.monotonic() + 60
        while glance.images.get(web.id).status != 'active':
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.5)
        self.assertEqual(hashlib.md5(DATA).hexdigest(),
                         glance.images.get(web.id).checksum)
        for image_id in (image.id, web.id):
            glance.images.delete(image_id)
