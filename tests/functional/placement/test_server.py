"""nova-lite-placement as a process: configuration errors, serving, SIGTERM."""

import os
import subprocess
import sys

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
