"""The ``openstack`` client drives servers through the whole stack.

The in-process cloud (:mod:`nova_lite.testing.integrated`) is served over
HTTP on a free port of 127.0.0.1; the client runs as separate processes
with the keystone-less clouds.yaml of DEPS_AND_CLIENTS §4, as a member
(``nova-lite``) and as an admin (``nova-lite-admin``). Skipped when the
client is not installed.
"""

import json
import os
import shutil
import socketserver
import subprocess
import sys
import threading
from wsgiref import simple_server

import fixtures
import testtools

from nova_lite.testing import integrated


class _QuietHandler(simple_server.WSGIRequestHandler):
    def log_message(self, *args):
        pass


class _ThreadingWSGIServer(socketserver.ThreadingMixIn,
                           simple_server.WSGIServer):
    daemon_threads = True


def _openstack_command():
    local = os.path.join(os.path.dirname(sys.executable), 'openstack')
    return local if os.access(local, os.X_OK) else shutil.which('openstack')


class OpenStackClientServersTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.command = _openstack_command()
        if self.command is None:
            self.skipTest('the openstack command is not installed')
        self.cloud = self.useFixture(integrated.IntegratedFixture(flags={
            'image_catalog': {'default_image_properties': {}}}))
        self.cloud.start_compute('host1')
        httpd = simple_server.make_server(
            '127.0.0.1', 0, self.cloud.app, server_class=_ThreadingWSGIServer,
            handler_class=_QuietHandler)
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        self.addCleanup(httpd.server_close)
        self.addCleanup(httpd.shutdown)
        base = 'http://127.0.0.1:%d' % httpd.server_port
        tmp = self.useFixture(fixtures.TempDir()).path
        clouds = os.path.join(tmp, 'clouds.yaml')
        with open(clouds, 'w') as f:
            f.write(
                'clouds:\n'
                '  nova-lite:\n'
                '    auth_type: none\n'
                '    auth: {endpoint: "%(ep)s"}\n'
                '    identity_api_version: "3"\n'
                '    image_endpoint_override: "%(image)s"\n'
                '  nova-lite-admin:\n'
                '    auth_type: admin_token\n'
                '    auth: {endpoint: "%(ep)s", token: admin}\n'
                '    identity_api_version: "3"\n'
                '    identity_endpoint_override: "%(ep)s"\n'
                '    image_endpoint_override: "%(image)s"\n'
                % {'ep': base + '/v2.1', 'image': base + '/image'})
        for name in [k for k in os.environ if k.startswith('OS_')]:
            self.useFixture(fixtures.EnvironmentVariable(name))
        self.useFixture(fixtures.EnvironmentVariable(
            'OS_CLIENT_CONFIG_FILE', clouds))

    def openstack(self, cloud, *args):
        result = subprocess.run(
            [self.command, '--os-cloud', cloud] + list(args),
            capture_output=True, text=True, timeout=120)
        self.assertEqual(0, result.returncode,
                         'openstack %s failed: %s%s' % (
                             ' '.join(args), result.stdout, result.stderr))
        return result.stdout

    def test_server_create_list_show_delete(self):
        created = json.loads(self.openstack(
            'nova-lite', 'server', 'create', '--image',
            'cirros-0.6.3-x86_64-disk', '--flavor', 'm1.tiny', '--nic',
            'none', '--wait', '-f', 'json', 'vm1'))
        self.assertEqual('ACTIVE', created['status'])
        listed = json.loads(self.openstack('nova-lite', 'server', 'list',
                                           '-f', 'json'))
        self.assertEqual(['vm1'], [s['Name'] for s in listed])
        shown = json.loads(self.openstack('nova-lite', 'server', 'show',
                                          'vm1', '-f', 'json'))
        self.assertEqual(created['id'], shown['id'])
        admin_listed = json.loads(self.openstack(
            'nova-lite-admin', 'server', 'list', '--all-projects', '-f',
            'json'))
        self.assertEqual([created['id']], [s['ID'] for s in admin_listed])
        self.openstack('nova-lite', 'server', 'delete', '--wait', 'vm1')
        self.assertEqual([], json.loads(self.openstack(
            'nova-lite', 'server', 'list', '-f', 'json')))
