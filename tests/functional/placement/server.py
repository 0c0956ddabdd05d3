"""A real nova-lite-placement process for tests that need HTTP.

``PlacementServer(db_url, workers)`` syncs the schema, writes a config
file, starts ``python -m nova_lite.cmd.placement`` on a free 127.0.0.1
port, waits for ``/healthcheck`` and stops the server with SIGTERM on
cleanup (the test fails if it does not exit cleanly). ``endpoint`` is its
base URL; the server log is attached to the test on failure.
"""

import os
import signal
import socket
import subprocess
import sys
import time

import fixtures
import requests
import testtools.content

from nova_lite.placement.db import migration

START_TIMEOUT = 60


def wait_for_health(endpoint, process, timeout=START_TIMEOUT):
    """True once ``endpoint/healthcheck`` answers 200; False if the
    process exits first or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            if requests.get(endpoint + '/healthcheck',
                            timeout=5).status_code == 200:
                return True
        except requests.RequestException:
            # Not listening yet, or a worker still loading the app.
            pass
        time.sleep(0.2)
    return False


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def raw_exchange(port, data, read=True, timeout=10):
    """Send ``data`` as it is to 127.0.0.1:``port``; all the server
    answers until it closes (b'' when ``read`` is False)."""
    with socket.create_connection(('127.0.0.1', port),
                                  timeout=timeout) as sock:
        sock.sendall(data)
        if not read:
            return b''
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return b''.join(chunks)
            chunks.append(chunk)


class PlacementServer(fixtures.Fixture):
    def __init__(self, db_url, workers=4, auth_strategy='noauth2'):
        super().__init__()
        self.db_url = db_url
        self.workers = workers
        self.auth_strategy = auth_strategy

    def _write_config(self, tmp, port):
        path = os.path.join(tmp, 'placement.conf')
        with open(path, 'w') as f:
            f.write('[DEFAULT]\nlog_file = %s\n'
                    '[placement_database]\nconnection = %s\n'
                    '[placement_api]\nbind_host = 127.0.0.1\n'
                    'bind_port = %d\nworkers = %d\nauth_strategy = %s\n'
                    % (os.path.join(tmp, 'placement.log'), self.db_url,
                       port, self.workers, self.auth_strategy))
        return path

    def _setUp(self):
        tmp = self.useFixture(fixtures.TempDir()).path
        migration.db_sync(self.db_url)
        port = free_port()
        self.endpoint = 'http://127.0.0.1:%d' % port
        self.log_path = os.path.join(tmp, 'placement.log')
        self.config_file = self._write_config(tmp, port)
        env = dict(os.environ)
        # NOTE(nova_lite): placement needs no eventlet; keep the server in
        # its normal (threading) mode whatever mode the test runs in.
        env.pop('NOVA_LITE_EVENTLET', None)
        self.stdout = open(os.path.join(tmp, 'stdout.log'), 'w')
        self.addCleanup(self.stdout.close)
        self.process = subprocess.Popen(
            [sys.executable, '-m', 'nova_lite.cmd.placement',
             '--config-file', self.config_file],
            stdout=self.stdout, stderr=subprocess.STDOUT, env=env)
        self.addCleanup(self._stop)
        self._wait_until_healthy()

    def _wait_until_healthy(self):
        if not wait_for_health(self.endpoint, self.process):
            raise RuntimeError('nova-lite-placement did not start (exit '
                               'status %s)' % self.process.poll())

    def _stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.returncode = self.process.returncode
        if os.path.exists(self.log_path):
            log = testtools.content.content_from_file(self.log_path,
                                                      buffer_now=True)
            self.addDetail('placement-log', log)
        if self.returncode != 0:
            raise RuntimeError('nova-lite-placement exited with %s after '
                               'SIGTERM' % self.returncode)
