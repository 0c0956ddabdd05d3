"""A gunicorn worker that serves each connection on a thread of its own.

gunicorn's ``gthread`` worker hands every request across threads: its
main thread polls the kept-alive connections, submits a readable one to a
thread pool, and the pool thread, once it has answered, hands the
connection back through a pipe to be registered with the poller again.
Per request that is two thread switches, a future and its callback, a
pipe write and read, two ``epoll_ctl`` and five ``ioctl`` calls and about
22 futex calls (strace, one client): over HTTP a small placement request
cost the worker several times the application's own CPU
(doc/benchmarks.md).

:class:`ConnectionThreadWorker` keeps gunicorn's master, its supervision
(heartbeat, ``timeout``, ``max_requests``, graceful stop), its HTTP
parser and its response writer, and changes only who waits for what:

* the main thread accepts connections and keeps the heartbeat;
* each connection has a thread that reads its requests one after the
  other (blocking, with ``keepalive`` seconds as the idle limit) and
  answers them, so a kept-alive connection costs no hand-off at all;
* at most ``threads`` requests run the application at once (a
  semaphore), as with ``gthread``: more would only queue on the GIL and
  on the database pool, whose overflow connections are opened and closed
  per request (more threads cost more CPU per request for no gain:
  doc/benchmarks.md);
* headers and a body of a known length leave in one ``send``.

An idle connection holds a thread blocked in ``recv`` (no CPU, no GIL);
``worker_connections`` bounds them as it bounds ``gthread``'s.
"""

import errno
import os
import selectors
import socket
import ssl
import sys
import threading
import time
from datetime import datetime

from gunicorn import http
from gunicorn.http import wsgi
from gunicorn import sock as gunicorn_sock
from gunicorn import util
from gunicorn.workers import base

# How long a stopping worker keeps idle connections open for a request a
# client may already be sending (gthread's STOP_KEEPALIVE_LINGER).
STOP_LINGER = 2.0
# Idle limit of a connection when keep-alive is off (0): its one request
# must arrive within it (gthread's DEFAULT_WORKER_DATA_TIMEOUT).
FIRST_REQUEST_TIMEOUT = 5.0
# A body the application left unread is drained up to this many bytes
# before the connection is kept (gthread's _DRAIN_MAX_BYTES).
DRAIN_MAX = 64 * 1024


class _Response(wsgi.Response):
    """gunicorn's response, its headers sent with the first body bytes."""

    _pending = None

    def send_headers(self):
        if self.headers_sent:
            return
        tosend = self.default_headers()
        tosend.extend('%s: %s\r\n' % (k, v) for k, v in self.headers)
        self._pending = ('%s\r\n' % ''.join(tosend)).encode('latin-1')
        self.headers_sent = True

    def _emit_body(self, data):
        pending, self._pending = self._pending, None
        if pending is None or self.chunked:
            if pending is not None:
                self.sock.sendall(pending)
            util.write(self.sock, data, self.chunked)
        else:
            self.sock.sendall(pending + data)

    def flush_headers(self):
        pending, self._pending = self._pending, None
        if pending is not None:
            self.sock.sendall(pending)

    def close(self):
        if not self.headers_sent:
            self.send_headers()
        self.flush_headers()
        if self.chunked:
            util.write_chunk(self.sock, b'')

    def sendfile(self, respiter):
        # Whether or not the file goes by sendfile, the headers go first.
        self.send_headers()
        self.flush_headers()
        return super().sendfile(respiter)


class ConnectionThreadWorker(base.Worker):
    """One thread per connection, ``threads`` requests at a time."""

    def init_process(self):
        self._slots = threading.BoundedSemaphore(max(self.cfg.threads, 1))
        self._lock = threading.Lock()
        # socket -> True while a request of it is being answered
        self._conns = {}
        self._idle_timeout = self.cfg.keepalive or FIRST_REQUEST_TIMEOUT
        self._max_keepalived = max(
            self.cfg.worker_connections - self.cfg.threads, 0)
        super().init_process()

    def run(self):
        poller = selectors.DefaultSelector()
        for listener in self.sockets:
            listener.setblocking(False)
            poller.register(listener, selectors.EVENT_READ)
        # gunicorn's signal handlers write to this pipe: a SIGTERM wakes
        # the select below at once.
        poller.register(self.PIPE[0], selectors.EVENT_READ)
        accepting = True
        try:
            while self.alive:
                self.notify()
                # A full worker leaves new connections in the backlog.
                full = len(self._conns) >= self.cfg.worker_connections
                if full == accepting:
                    accepting = not full
                    for listener in self.sockets:
                        if accepting:
                            poller.register(listener, selectors.EVENT_READ)
                        else:
                            poller.unregister(listener)
                for key, _ in poller.select(1.0):
                    if key.fileobj == self.PIPE[0]:
                        self._drain_pipe()
                    else:
                        self._accept(key.fileobj)
                if not self.is_parent_alive():
                    break
        finally:
            poller.close()
        self._stop()

    def _drain_pipe(self):
        try:
            os.read(self.PIPE[0], 64)
        except OSError:
            pass

    def is_parent_alive(self):
        if self.ppid != os.getppid():
            self.log.info('Parent changed, shutting down: %s', self)
            return False
        return True

    def _accept(self, listener):
        """Take one connection of the backlog, if this worker has room.

        One per wakeup, not all that are waiting: every worker polls the
        same listening socket, and one that drained the backlog took most
        of a burst of new connections, which then stay with it while kept
        alive (a compute's 8 parallel registration connections: one
        placement worker did twice the other's work). The workers woken
        by the same event take the rest, and the work evens out.
        """
        if len(self._conns) >= self.cfg.worker_connections:
            return
        try:
            client, addr = listener.accept()
        except OSError as exc:
            if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK,
                             errno.ECONNABORTED):
                return
            raise
        client.setblocking(True)
        util.close_on_exec(client)
        with self._lock:
            self._conns[client] = False
        thread = threading.Thread(
            target=self._serve,
            args=(client, addr, listener.getsockname()), daemon=True)
        thread.start()

    def _stop(self):
        """Answer the requests under way (at most ``graceful_timeout``),
        give idle connections ``STOP_LINGER`` to send one, close the rest."""
        for listener in self.sockets:
            try:
                listener.close()
            except OSError:
                pass
        now = time.monotonic()
        linger_end = now + STOP_LINGER
        deadline = now + self.cfg.graceful_timeout
        while self._conns and time.monotonic() < deadline:
            busy = any(self._conns.values())
            if not busy and time.monotonic() >= linger_end:
                break
            self.notify()
            time.sleep(0.05)
        with self._lock:
            remaining = list(self._conns)
        for client in remaining:
            try:
                client.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _serve(self, client, addr, server):
        """Read and answer the requests of one connection until it ends."""
        req = None
        try:
            client.settimeout(self._idle_timeout)
            if self.cfg.is_ssl:
                client = gunicorn_sock.ssl_wrap_socket(client, self.cfg)
            parser = http.RequestParser(self.cfg, client, addr)
            while True:
                req = next(parser)
                if not req:
                    break
                # NOTE(nova_lite): as in gthread, a request is read and
                # answered on a blocking socket: the idle limit is for
                # the wait between requests, not for a large response.
                client.settimeout(None)
                self._conns_busy(client, True)
                try:
                    with self._slots:
                        keep = self.handle_request(req, client, addr, server)
                finally:
                    self._conns_busy(client, False)
                if not keep or not self._drain(req):
                    break
                req = None
                client.settimeout(self._idle_timeout)
        except (StopIteration, http.errors.NoMoreData, TimeoutError):
            pass
        except ssl.SSLError as exc:
            if exc.args[0] != ssl.SSL_ERROR_EOF:
                self.handle_error(req, client, addr, exc)
        except OSError as exc:
            if exc.errno not in (errno.EPIPE, errno.ECONNRESET,
                                 errno.ENOTCONN, errno.EBADF):
                self.log.exception('Socket error processing request.')
        except Exception as exc:  # noqa: BLE001 - gunicorn's 400/500 page
            self.handle_error(req, client, addr, exc)
        finally:
            with self._lock:
                self._conns.pop(client, None)
            util.close(client)

    def _conns_busy(self, client, busy):
        with self._lock:
            if client in self._conns:
                self._conns[client] = busy

    @staticmethod
    def _drain(req):
        """Whether the connection can carry another request: a body the
        application did not read is drained, up to ``DRAIN_MAX`` bytes
        (then the connection closes, as gthread's does). A body read
        whole costs no system call here."""
        body = req.body
        if body is None:
            return True
        if getattr(body, 'failed', False):
            return False
        drained = 0
        while drained <= DRAIN_MAX:
            data = body.read(8192)
            if not data:
                return True
            drained += len(data)
        return False

    def handle_request(self, req, client, addr, server):
        """Answer ``req``; True when the connection stays open."""
        environ = {}
        resp = None
        try:
            self.cfg.pre_request(self, req)
            request_start = datetime.now()
            resp, environ = wsgi.create(req, client, addr, server, self.cfg,
                                        response_class=_Response)
            environ['wsgi.multithread'] = True
            self.nr += 1
            if self.nr >= self.max_requests:
                if self.alive:
                    self.log.info('Autorestarting worker after current '
                                  'request.')
                    self.alive = False
            if (not self.alive or not self.cfg.keepalive
                    or len(self._conns) > self._max_keepalived):
                resp.force_close()
            respiter = self.wsgi(environ, resp.start_response)
            if not self.alive:
                # Stopped while the application ran: this answer is the
                # connection's last.
                resp.force_close()
            try:
                if isinstance(respiter, environ['wsgi.file_wrapper']):
                    resp.write_file(respiter)
                else:
                    for item in respiter:
                        resp.write(item)
                resp.close()
            finally:
                self.log.access(resp, req, environ,
                                datetime.now() - request_start)
                if hasattr(respiter, 'close'):
                    respiter.close()
            return not resp.should_close()
        except OSError:
            util.reraise(*sys.exc_info())
        except (Exception, SystemExit):
            if resp and resp.headers_sent:
                # A 500 after the headers went would corrupt the stream.
                self.log.exception('Error handling request')
                raise StopIteration()
            raise
        finally:
            try:
                self.cfg.post_request(self, req, environ, resp)
            except Exception:  # noqa: BLE001 - as gunicorn's workers
                self.log.exception('Exception in post_request hook')
