"""nova-lite-placement as a process: configuration errors, serving, SIGTERM."""

import http.client
import os
import subprocess
import sys
import time

import fixtures
import requests
import testtools

from nova_lite.placement.db import migration
from tests import db_fixtures
from tests.functional.placement import server


class TestPlacementProcess(testtools.TestCase):
    def _run(self, config):
        tmp = self.useFixture(fixtures.TempDir()).path
        path = os.path.join(tmp, 'bad.conf')
        with open(path, 'w') as f:
            f.write(config)
        return subprocess.run(
            [sys.executable, '-m', 'nova_lite.cmd.placement',
             '--config-file', path], capture_output=True, text=True,
            timeout=60)

    def test_bad_option_is_one_line_and_status_2(self):
        result = self._run('[placement_api]\nauth_strategy = bogus\n'
                           '[placement_database]\nconnection = sqlite://\n')
        self.assertEqual(2, result.returncode)
        self.assertEqual(1, len(result.stderr.strip().splitlines()))
        self.assertIn('auth_strategy', result.stderr)
        self.assertNotIn('Traceback', result.stderr)

    def test_missing_connection(self):
        result = self._run('[placement_api]\nworkers = 1\n')
        self.assertEqual(2, result.returncode)
        self.assertIn('[placement_database] connection', result.stderr)

    def test_serves_and_stops_on_sigterm(self):
        url = self.useFixture(db_fixtures.SQLiteDatabase()).url
        placement = server.PlacementServer(url, workers=2)
        placement.setUp()
        try:
            response = requests.get(placement.endpoint + '/', timeout=10)
            self.assertEqual(200, response.status_code)
            self.assertEqual('1.39',
                             response.json()['versions'][0]['max_version'])
            self.assertEqual('gunicorn', response.headers['Server'])
        finally:
            placement.cleanUp()
        self.assertEqual(0, placement.returncode)

    def test_idle_connection_outlasts_a_client_poll(self):
        """A client polling every 2 s (openstacksdk's ``--wait``) reuses
        its connection: the server does not close it under the request."""
        url = self.useFixture(db_fixtures.SQLiteDatabase()).url
        placement = self.useFixture(server.PlacementServer(url, workers=1))
        host, port = placement.endpoint.split('//')[1].split(':')
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        self.addCleanup(connection.close)
        for pause in (0, 3.5):
            time.sleep(pause)
            connection.request('GET', '/')
            response = connection.getresponse()
            response.read()
            self.assertEqual(200, response.status)
            self.assertNotEqual('close', response.getheader('Connection'))


class TestWSGIFactory(testtools.TestCase):
    """nova_lite.placement.wsgi:init_application under another server."""

    def test_plain_gunicorn_serves_the_factory(self):
        url = self.useFixture(db_fixtures.SQLiteDatabase()).url
        tmp = self.useFixture(fixtures.TempDir()).path
        config = os.path.join(tmp, 'placement.conf')
        with open(config, 'w') as f:
            f.write('[placement_database]\nconnection = %s\n' % url)
        migration.db_sync(url)
        port = server.free_port()
        env = dict(os.environ, NOVA_LITE_CONFIG_FILES=config)
        env.pop('NOVA_LITE_EVENTLET', None)
        process = subprocess.Popen(
            [sys.executable, '-m', 'gunicorn', '--workers', '1',
             '--bind', '127.0.0.1:%d' % port,
             'nova_lite.placement.wsgi:init_application()'],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(process.wait, 30)
        self.addCleanup(process.terminate)
        endpoint = 'http://127.0.0.1:%d' % port
        self.assertTrue(server.wait_for_health(endpoint, process))
        response = requests.get(endpoint + '/resource_providers',
                                headers={'X-Auth-Token': 'admin'},
                                timeout=60)
        self.assertEqual(200, response.status_code)


class TestBrokenBodies(testtools.TestCase):
    """gunicorn's own errors on a body: a 400, and no traceback logged."""

    def setUp(self):
        super().setUp()
        url = self.useFixture(db_fixtures.SQLiteDatabase()).url
        self.placement = self.useFixture(server.PlacementServer(
            url, workers=1))
        self.port = int(self.placement.endpoint.rsplit(':', 1)[1])

    def _raw(self, data, read=True):
        return server.raw_exchange(self.port, data, read)

    def _log(self):
        with open(self.placement.log_path) as f:
            return f.read()

    def test_bad_chunked_encoding_is_400(self):
        answer = self._raw(
            b'POST /resource_providers HTTP/1.1\r\nHost: x\r\n'
            b'X-Auth-Token: admin\r\nContent-Type: application/json\r\n'
            b'Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n'
            b'zz\r\n{"name": "x"}\r\n0\r\n\r\n')
        self.assertTrue(answer.startswith(b'HTTP/1.1 400'), answer)
        self.assertIn(b'"errors"', answer)
        self.assertNotIn('Traceback', self._log())

    def test_client_gone_mid_body_is_an_info_line(self):
        self._raw(b'POST /resource_providers HTTP/1.1\r\nHost: x\r\n'
                  b'X-Auth-Token: admin\r\nContent-Type: application/json'
                  b'\r\nContent-Length: 100\r\n\r\n{"name": ', read=False)
        for _ in range(100):
            if 'Client disconnected' in self._log():
                break
            time.sleep(0.1)
        log = self._log()
        self.assertIn('INFO nova_lite.wsgi.request_input', log)
        self.assertIn('Client disconnected', log)
        self.assertNotIn('Traceback', log)
        self.assertNotIn('ERROR', log)
