"""The entry points as real processes, without RabbitMQ or MariaDB.

Configuration mistakes end with one line and status 2; a service on the
in-process ``fake://`` bus and the API under gunicorn run until SIGTERM and
exit 0. (Services talking to each other over RabbitMQ: tests/integration.)
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import fixtures
import testtools

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
WAIT_SECONDS = 60


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class EntryPointTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.tempdir = self.useFixture(fixtures.TempDir()).path

    def _config(self, name, text):
        path = os.path.join(self.tempdir, name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def _popen(self, module, *args, **kwargs):
        env = dict(os.environ, PYTHONPATH=REPO_ROOT)
        proc = subprocess.Popen(
            [sys.executable, '-m', module, *args], env=env, cwd=REPO_ROOT,
            start_new_session=True, **kwargs)
        self.addCleanup(self._kill, proc)
        return proc

    @staticmethod
    def _kill(proc):
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)

    def test_configuration_errors_are_one_line(self):
        db_conf = self._config('compute.conf',
                               '[database]\nconnection = sqlite://\n')
        bad_url = self._config('bad.conf',
                               '[DEFAULT]\ntransport_url = nonsense\n')
        bad_int = self._config('int.conf', '[DEFAULT]\nreport_interval = x\n')
        cases = [
            ('nova_lite.cmd.compute', ['--config-file', db_conf],
             'must not have [database] connection'),
            ('nova_lite.cmd.scheduler', ['--config-file', bad_url],
             'transport_url is invalid'),
            ('nova_lite.cmd.conductor', ['--config-file', bad_int],
             'report_interval'),
            ('nova_lite.cmd.conductor', ['--cell', 'cell1'],
             'needs [database] connection'),
            ('nova_lite.cmd.api', ['--config-file', '/nonexistent.conf'],
             'Failed to find some config files'),
        ]
        procs = [(self._popen(module, *args, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True), expected)
                 for module, args, expected in cases]
        for proc, expected in procs:
            out, err = proc.communicate(timeout=WAIT_SECONDS)
            self.assertEqual(2, proc.returncode, err)
            self.assertEqual(1, len(err.strip().splitlines()), err)
            self.assertIn(expected, err)
            self.assertNotIn('Traceback', err + out)

    def test_service_runs_until_sigterm_and_exits_zero(self):
        conf = self._config('scheduler.conf', '\n'.join([
            '[DEFAULT]', 'transport_url = fake:///', 'host = sched-1',
            'report_interval = 1', '']))
        log = os.path.join(self.tempdir, 'scheduler.log')
        proc = self._popen('nova_lite.cmd.scheduler', '--config-file', conf,
                           '--log-file', log)
        self._wait_for_text(log, 'nova-lite-scheduler started on sched-1')
        proc.send_signal(signal.SIGTERM)
        self.assertEqual(0, proc.wait(timeout=WAIT_SECONDS))
        self._wait_for_text(log, 'nova-lite-scheduler on sched-1 stopped')

    def test_api_serves_versions_and_healthcheck(self):
        port = _free_port()
        conf = self._config('api.conf', '\n'.join([
            '[api]', 'bind_host = 127.0.0.1', 'bind_port = %d' % port,
            'workers = 1', '']))
        proc = self._popen('nova_lite.cmd.api', '--config-file', conf,
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        base = 'http://127.0.0.1:%d' % port
        root = self._wait_for_url(base + '/')
        self.assertEqual(['v2.0', 'v2.1'],
                         [v['id'] for v in json.loads(root)['versions']])
        version = json.loads(self._wait_for_url(base + '/v2.1'))['version']
        self.assertEqual('CURRENT', version['status'])
        self._wait_for_url(base + '/healthcheck')
        proc.send_signal(signal.SIGTERM)
        self.assertEqual(0, proc.wait(timeout=WAIT_SECONDS))

    def _wait_for_text(self, path, text):
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            if os.path.exists(path):
                with open(path, errors='replace') as f:
                    if text in f.read():
                        return
            time.sleep(0.1)
        self.fail('%r never appeared in %s' % (text, path))

    def _wait_for_url(self, url):
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    return response.read()
            except (urllib.error.URLError, ConnectionError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
