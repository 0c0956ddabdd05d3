"""Interoperable image import and tasks under /image/v2.

``glance-direct`` (stage, then import) and ``web-download`` (from an
HTTP server on loopback) run asynchronously, as in Glance: the image goes
``uploading`` -> ``importing`` -> ``active`` and its task ``pending`` ->
``success``; a failed download leaves the image ``queued`` with
``os_glance_failed_import`` and a ``failure`` task.
"""

import hashlib
from http import server as http_server
import threading
import time

import webob

from nova_lite.conf import image_catalog as catalog_conf
from tests.functional.image import test_image_api as base

ADMIN, MEMBER, OTHER = base.ADMIN, base.MEMBER, base.OTHER
IMAGES = base.IMAGES
DATA = base.DATA


class _Handler(http_server.BaseHTTPRequestHandler):

    def do_GET(self):
        if self.path != '/image.raw':
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header('Content-Length', str(len(DATA)))
        self.end_headers()
        self.wfile.write(DATA)

    def log_message(self, *args):
        pass


class ImportTestBase(base.ImageAPITestBase):

    def wait_status(self, image_id, status, token=MEMBER, timeout=20):
        deadline = time.monotonic() + timeout
        while True:
            image = self.show(image_id, token=token)
            if image['status'] == status:
                return image
            if time.monotonic() > deadline:
                self.fail('image %s stays %s, not %s'
                          % (image_id, image['status'], status))
            time.sleep(0.05)

    def wait_task(self, task_id, timeout=20):
        deadline = time.monotonic() + timeout
        while True:
            task = self.api.get('/image/v2/tasks/%s' % task_id,
                                token=ADMIN).body
            if task['status'] in ('success', 'failure'):
                return task
            self.assertLess(time.monotonic(), deadline, task)
            time.sleep(0.05)

    def image_tasks(self, image_id, timeout=20):
        """The image's tasks once the newest has ended (it ends just
        after the image changes)."""
        deadline = time.monotonic() + timeout
        while True:
            tasks = self.api.get('%s/%s/tasks' % (IMAGES, image_id),
                                 token=MEMBER).body['tasks']
            if tasks and tasks[0]['status'] in ('success', 'failure'):
                return tasks
            self.assertLess(time.monotonic(), deadline, tasks)
            time.sleep(0.05)

    def http_server(self):
        httpd = http_server.ThreadingHTTPServer(('127.0.0.1', 0), _Handler)
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        self.addCleanup(httpd.server_close)
        self.addCleanup(httpd.shutdown)
        return 'http://127.0.0.1:%d' % httpd.server_port

    def do_import(self, image_id, method, token=MEMBER, status=202):
        response = self.api.post('%s/%s/import' % (IMAGES, image_id),
                                 {'method': method}, token=token)
        self.assertEqual(status, response.status, response)
        return response


class TestInfo(ImportTestBase):

    def test_import_methods_and_stores(self):
        body = self.api.get('/image/v2/info/import', token=MEMBER).body
        self.assertEqual(['glance-direct', 'web-download'],
                         body['import-methods']['value'])
        stores = self.api.get('/image/v2/info/stores', token=MEMBER).body
        self.assertEqual([('local', 'true')], [
            (s['id'], s['default']) for s in stores['stores']])


class TestGlanceDirect(ImportTestBase):

    def stage(self, image_id, status=204, token=MEMBER):
        response = self.api.request(
            'PUT', '%s/%s/stage' % (IMAGES, image_id), raw_body=DATA,
            token=token, headers={'Content-Type':
                                  'application/octet-stream'})
        self.assertEqual(status, response.status, response)

    def test_stage_then_import(self):
        image = self.create(name='direct')
        self.do_import(image['id'], {'name': 'glance-direct'}, status=409)
        self.stage(image['id'])
        self.assertEqual('uploading', self.show(image['id'])['status'])
        self.stage(image['id'], status=409)
        self.do_import(image['id'], {'name': 'glance-direct'})
        done = self.wait_status(image['id'], 'active')
        self.assertEqual(len(DATA), done['size'])
        self.assertEqual(hashlib.md5(DATA).hexdigest(), done['checksum'])
        self.assertNotIn('os_glance_import_task', done)
        self.assertEqual(DATA, self._raw(image['id']))
        tasks = self.image_tasks(image['id'])
        self.assertEqual([('api_image_import', 'success')],
                         [(t['type'], t['status']) for t in tasks])
        self.assertEqual(image['id'], tasks[0]['image_id'])
        self.do_import(image['id'], {'name': 'glance-direct'}, status=409)

    def _raw(self, image_id):
        req = webob.Request.blank('%s/%s/file' % (IMAGES, image_id))
        req.headers['X-Auth-Token'] = MEMBER
        return req.get_response(self.api.app).body

    def test_errors(self):
        image = self.create()
        self.do_import(image['id'], {'name': 'copy-image'}, status=400)
        self.do_import(image['id'], {'name': 'web-download',
                                     'uri': 'file:///etc/passwd'},
                       status=400)
        self.stage(image['id'], token=OTHER, status=404)
        self.stage(catalog_conf.DEFAULT_IMAGE_UUID, status=403)
        self.assertEqual(403, self.api.post(
            IMAGES, {'os_glance_import_task': 'x'}, token=MEMBER).status)
        bare = self.create(disk_format=None, container_format=None)
        self.do_import(bare['id'], {'name': 'web-download',
                                    'uri': 'http://127.0.0.1:9/x'},
                       status=409)


class TestWebDownload(ImportTestBase):

    def test_download_and_tasks_api(self):
        url = self.http_server()
        image = self.create(name='web')
        self.do_import(image['id'], {'name': 'web-download',
                                     'uri': url + '/image.raw'})
        done = self.wait_status(image['id'], 'active')
        self.assertEqual(hashlib.sha512(DATA).hexdigest(),
                         done['os_hash_value'])
        # The tasks API is for admins, as Glance's default policy.
        self.assertEqual(403, self.api.get('/image/v2/tasks',
                                           token=MEMBER).status)
        tasks = self.api.get('/image/v2/tasks', token=ADMIN).body['tasks']
        self.assertEqual(1, len(tasks))
        task = self.wait_task(tasks[0]['id'])
        self.assertEqual('success', task['status'])
        self.assertEqual({'image_id': image['id']}, task['result'])
        self.assertIn('expires_at', task)

    def test_failed_download(self):
        url = self.http_server()
        image = self.create(name='web')
        self.do_import(image['id'], {'name': 'web-download',
                                     'uri': url + '/missing'})
        deadline = time.monotonic() + 20
        while 'os_glance_failed_import' not in self.show(image['id']):
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.05)
        self.assertEqual('queued', self.show(image['id'])['status'])
        tasks = self.image_tasks(image['id'])
        self.assertEqual('failure', tasks[0]['status'])
        self.assertIn('404', tasks[0]['message'])

    def test_task_based_import(self):
        url = self.http_server()
        response = self.api.post('/image/v2/tasks', {
            'type': 'import', 'input': {
                'import_from': url + '/image.raw',
                'import_from_format': 'raw',
                'image_properties': {'name': 'from-task'}}}, token=ADMIN)
        self.assertEqual(201, response.status, response)
        task = self.wait_task(response.body['id'])
        self.assertEqual('success', task['status'], task)
        image = self.show(task['result']['image_id'], token=ADMIN)
        self.assertEqual(('from-task', 'active', 'raw'), (
            image['name'], image['status'], image['disk_format']))
        self.assertEqual(400, self.api.post('/image/v2/tasks', {
            'type': 'export', 'input': {}}, token=ADMIN).status)
