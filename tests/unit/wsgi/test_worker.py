"""How nova_lite's gunicorn worker writes a response and takes connections."""

import errno
import socket
import threading

import gunicorn.config
import testtools

from nova_lite.wsgi import server
from nova_lite.wsgi import worker


class _Socket:
    def __init__(self):
        self.sent = []

    def sendall(self, data):
        self.sent.append(bytes(data))


class _Request:
    version = (1, 1)
    method = 'GET'

    def should_close(self):
        return False


def _response(headers, method='GET'):
    req = _Request()
    req.method = method
    sock = _Socket()
    resp = worker._Response(req, sock, gunicorn.config.Config())
    resp.start_response('200 OK', headers)
    return resp, sock


class TestResponse(testtools.TestCase):

    def test_headers_and_a_known_length_body_in_one_send(self):
        resp, sock = _response([('Content-Length', '5')])
        resp.write(b'hello')
        resp.close()
        self.assertEqual(1, len(sock.sent))
        head, _, body = sock.sent[0].partition(b'\r\n\r\n')
        self.assertTrue(head.startswith(b'HTTP/1.1 200 OK\r\n'))
        self.assertIn(b'\r\nContent-Length: 5', head)
        self.assertEqual(b'hello', body)

    def test_no_body_sends_the_headers_at_close(self):
        resp, sock = _response([('Content-Length', '0')], method='HEAD')
        resp.write(b'')
        self.assertEqual([], sock.sent)
        resp.close()
        self.assertEqual(1, len(sock.sent))
        self.assertTrue(sock.sent[0].endswith(b'\r\n\r\n'))

    def test_chunked_body_after_its_headers(self):
        resp, sock = _response([])
        resp.write(b'abc')
        resp.write(b'de')
        resp.close()
        data = b''.join(sock.sent)
        head, _, body = data.partition(b'\r\n\r\n')
        self.assertIn(b'Transfer-Encoding: chunked', head)
        self.assertEqual(b'3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n', body)


class TestOptions(testtools.TestCase):

    def test_both_servers_run_the_connection_thread_worker(self):
        options = server.options('x', '127.0.0.1', 8778, 1, 30)
        self.assertEqual('nova_lite.wsgi.worker.ConnectionThreadWorker',
                         options['worker_class'])
        cfg = gunicorn.config.Config()
        cfg.set('worker_class', options['worker_class'])
        self.assertIs(worker.ConnectionThreadWorker, cfg.worker_class)

    def test_request_lines_up_to_8190_bytes(self):
        """Apache's limit, which Nova's API runs behind (gunicorn's own
        default is 4094)."""
        options = server.options('x', '127.0.0.1', 8778, 1, 30)
        cfg = gunicorn.config.Config()
        cfg.set('limit_request_line', options['limit_request_line'])
        self.assertEqual(8190, cfg.limit_request_line)


class _Listener:
    """A listening socket with ``pending`` connections in its backlog."""

    def __init__(self, pending):
        self.pending = list(pending)

    def accept(self):
        if not self.pending:
            raise BlockingIOError(errno.EAGAIN, 'no connection waiting')
        return self.pending.pop(0), ('127.0.0.1', 40000)

    def getsockname(self):
        return ('127.0.0.1', 8778)


class TestAccept(testtools.TestCase):

    def _worker(self, worker_connections=1000):
        cfg = gunicorn.config.Config()
        cfg.set('worker_connections', worker_connections)
        w = worker.ConnectionThreadWorker.__new__(
            worker.ConnectionThreadWorker)
        w.cfg = cfg
        w._conns = {}
        w._lock = threading.Lock()
        # The connection's thread has nothing to serve here.
        w._serve = lambda client, addr, server: None
        return w

    def _clients(self, n):
        pairs = [socket.socketpair() for _ in range(n)]
        for pair in pairs:
            for sock in pair:
                self.addCleanup(sock.close)
        return [pair[0] for pair in pairs]

    def test_one_connection_per_wakeup_leaves_the_rest_to_others(self):
        """A burst of connections is shared by the workers polling the
        listening socket: a wakeup takes one, not the whole backlog."""
        w = self._worker()
        clients = self._clients(3)
        listener = _Listener(clients)
        w._accept(listener)
        self.assertEqual([clients[0]], list(w._conns))
        self.assertEqual(clients[1:], listener.pending)
        w._accept(listener)
        w._accept(listener)
        w._accept(listener)
        self.assertEqual(clients, list(w._conns))

    def test_a_full_worker_leaves_the_backlog_alone(self):
        w = self._worker(worker_connections=1)
        clients = self._clients(2)
        listener = _Listener(clients)
        w._accept(listener)
        w._accept(listener)
        self.assertEqual([clients[0]], list(w._conns))
        self.assertEqual([clients[1]], listener.pending)
