"""nova_lite's gunicorn worker (nova_lite.wsgi.worker) on a real socket."""

import concurrent.futures
import http.client
import os
import signal
import socket
import subprocess
import sys
import time

import fixtures
import testtools

from tests.functional.placement import server as placement_server


class WorkerServer(fixtures.Fixture):
    """``worker_app`` in its own process; stopped with SIGTERM."""

    def __init__(self, threads=4, keepalive=30):
        super().__init__()
        self.threads = threads
        self.keepalive = keepalive

    def _setUp(self):
        self.port = placement_server.free_port()
        env = dict(os.environ)
        env.pop('NOVA_LITE_EVENTLET', None)
        self.process = subprocess.Popen(
            [sys.executable, '-m', 'tests.functional.wsgi.worker_app',
             str(self.port), str(self.threads), str(self.keepalive)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(self._stop)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                self.get('/')
                return
            except OSError:
                time.sleep(0.1)
        raise AssertionError('worker_app did not start')

    def _stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def connection(self):
        return http.client.HTTPConnection('127.0.0.1', self.port, timeout=30)

    def get(self, path, connection=None):
        conn = connection or self.connection()
        try:
            conn.request('GET', path)
            response = conn.getresponse()
            return response, response.read().decode()
        finally:
            if connection is None:
                conn.close()

    def raw(self, data):
        return placement_server.raw_exchange(self.port, data, timeout=30)


class TestConnectionThreadWorker(testtools.TestCase):

    def test_a_kept_alive_connection_is_answered_on_one_thread(self):
        """No hand-off between threads per request: every request of one
        connection is answered by the same thread, on the same socket."""
        worker = self.useFixture(WorkerServer())
        conn = worker.connection()
        self.addCleanup(conn.close)
        threads = set()
        for _ in range(20):
            response, text = worker.get('/thread', conn)
            self.assertEqual(200, response.status)
            self.assertEqual('keep-alive', response.getheader('Connection'))
            threads.add(text)
        self.assertEqual(1, len(threads))
        other, _ = worker.get('/thread')
        self.assertEqual(200, other.status)

    def test_at_most_threads_requests_run_at_once(self):
        worker = self.useFixture(WorkerServer(threads=2))
        with concurrent.futures.ThreadPoolExecutor(6) as pool:
            answers = list(pool.map(
                lambda _: worker.get('/slow?seconds=0.4'), range(6)))
        self.assertEqual([200] * 6, [r.status for r, _ in answers])
        self.assertEqual({'max=2'}, {text for _, text in answers[-2:]})
        self.assertLessEqual(max(int(t.split('=')[1]) for _, t in answers),
                             2)

    def test_an_idle_connection_is_closed_after_keepalive(self):
        worker = self.useFixture(WorkerServer(keepalive=1))
        with socket.create_connection(('127.0.0.1', worker.port),
                                      timeout=30) as sock:
            sock.sendall(b'GET / HTTP/1.1\r\nHost: x\r\n\r\n')
            answer = sock.recv(65536)
            self.assertTrue(answer.startswith(b'HTTP/1.1 200'), answer)
            started = time.monotonic()
            self.assertEqual(b'', sock.recv(65536))
            self.assertLess(time.monotonic() - started, 10)

    def test_a_body_left_unread_is_drained_for_the_next_request(self):
        worker = self.useFixture(WorkerServer())
        answer = worker.raw(
            b'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello'
            b'POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n'
            b'Connection: close\r\n\r\nabc')
        self.assertEqual(2, answer.count(b'HTTP/1.1 200 OK'), answer)
        self.assertTrue(answer.endswith(b'\r\n\r\n3'), answer)

    def test_bad_request_and_application_error_are_gunicorns_pages(self):
        worker = self.useFixture(WorkerServer())
        answer = worker.raw(b'NOT A REQUEST\r\n\r\n')
        self.assertTrue(answer.startswith(b'HTTP/1.1 400'), answer)
        answer = worker.raw(b'GET /boom HTTP/1.1\r\nHost: x\r\n\r\n')
        self.assertTrue(answer.startswith(b'HTTP/1.1 500'), answer)
        response, _ = worker.get('/')
        self.assertEqual(200, response.status)

    def test_a_request_line_of_8000_bytes_is_answered(self):
        """As Nova behind Apache: a listing filtered by many uuids (a
        request line past gunicorn's default 4094 bytes) gets its
        answer, on the settings nova-lite-api and -placement share."""
        worker = self.useFixture(WorkerServer())
        query = '&'.join(['uuid=%s' % ('%036d' % i) for i in range(191)])
        path = '/thread?' + query
        self.assertGreater(len('GET %s HTTP/1.1' % path), 8000)
        response, _ = worker.get(path)
        self.assertEqual(200, response.status)

    def test_sigterm_answers_the_request_under_way_then_exits(self):
        worker = self.useFixture(WorkerServer())
        idle = worker.connection()
        self.addCleanup(idle.close)
        self.assertEqual(200, worker.get('/', idle)[0].status)
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            slow = pool.submit(worker.get, '/slow?seconds=1.5')
            time.sleep(0.5)
            worker.process.send_signal(signal.SIGTERM)
            response, text = slow.result(30)
        self.assertEqual(200, response.status)
        self.assertEqual('close', response.getheader('Connection'))
        self.assertEqual(0, worker.process.wait(30))
