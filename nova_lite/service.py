"""Service: one RPC service (scheduler, conductor, compute) in a process.

A :class:`Service` hosts a manager (``nova_lite.manager.Manager``):

1. it records itself in its cell's ``services`` table, unique per (host,
   binary): directly in the cell database when the process has one, through
   the cell conductor over RPC for a compute (computes hold no database
   credentials);
2. it runs the manager's start-up recovery (``pre_start_hook``: a
   compute fails the builds a previous process left) and only then
   consumes RPC on ``Target(topic, server=host)``: the manager, the base
   API (:mod:`nova_lite.baserpc`) and the manager's additional endpoints,
   so a message that arrives at start is never mistaken for a left-over;
   then ``post_start_hook`` (work that may wait for consuming: the
   scheduler warms its host cache);
3. it heartbeats every ``[DEFAULT] report_interval`` seconds
   (``report_count`` + 1) and runs the manager's periodic tasks when
   ``[DEFAULT] periodic_enable`` is on, each in its own thread;
4. :meth:`stop` (a real process's SIGTERM, see :func:`serve`) stops
   consuming for good (:func:`nova_lite.rpc.stop_consuming`: what the
   broker has not handed over stays queued for the next process), waits
   for a :meth:`start` still running, for the messages in flight and for
   the manager's own work (``drain``: a compute's queued builds), all
   within ``[DEFAULT] graceful_shutdown_timeout``, then stops the threads,
   calls ``cleanup_host`` and returns; the process exits 0.

Functional tests build Services in-process (several cells in one process:
pass each its ``transport_url`` and ``db_connection``); real processes run
one through oslo.service's launcher (:func:`serve`).
"""

import random
import threading
import time

import oslo_messaging as messaging
from oslo_log import log as logging
from oslo_service import service as os_service

from nova_lite import baserpc
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite import objects
from nova_lite import rpc

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

COMPUTE_BINARY = 'nova-lite-compute'
# Seconds stop() waits for a heartbeat in flight (a compute's may hang on
# an unreachable conductor until rpc_response_timeout).
HEARTBEAT_JOIN_TIMEOUT = 5
# Upper bound of the sleep between two runs of the periodic tasks.
PERIODIC_INTERVAL_MAX = 60
# Seconds of graceful_shutdown_timeout kept for the last steps of a stop
# (cleanup_host, the log lines): oslo.service's launcher ends the process
# when the timeout is over, wherever it is.
SHUTDOWN_RESERVE = 2


class _Deadline:
    """Seconds left until a point in time; None: no limit."""

    def __init__(self, seconds):
        self._end = None if seconds is None else time.monotonic() + seconds

    def left(self):
        if self._end is None:
            return None
        return max(0.0, self._end - time.monotonic())


def shutdown_budget(timeout):
    """Seconds a stop may wait for in-flight work, from
    ``graceful_shutdown_timeout`` (0: no limit, None returned)."""
    if not timeout:
        return None
    return max(timeout - SHUTDOWN_RESERVE, timeout / 2.0)


class _DirectRecorder:
    """Keeps the service record in the cell database this process owns."""

    def __init__(self, service):
        self._service = service

    def _context(self):
        return self._service.manager.cell_context(
            nl_context.get_admin_context())

    def get_or_create(self):
        svc = self._service
        return objects.Service.get_or_create(
            self._context(), svc.host, svc.binary, svc.topic)

    def heartbeat(self, record):
        record._context = self._context()
        record.report_count += 1
        record.save()
        return record


class _ConductorRecorder:
    """Keeps the service record through the cell conductor (computes)."""

    def __init__(self, service):
        self._service = service
        self._api = None

    def _conductor(self):
        if self._api is None:
            self._api = conductor_rpcapi.ConductorAPI(
                transport=self._service.transport)
        return self._api

    def get_or_create(self):
        # NOTE(nova_lite): a heartbeat slower than the heartbeat interval is
        # useless, and a compute started before its conductor should retry
        # at the next heartbeat, not wait rpc_response_timeout.
        svc = self._service
        return self._conductor().service_get_or_create(
            nl_context.get_admin_context(), svc.host, svc.binary, svc.topic,
            timeout=svc.report_interval)

    def heartbeat(self, record):
        return self._conductor().service_update(
            nl_context.get_admin_context(), record.id,
            {'report_count': record.report_count + 1},
            timeout=self._service.report_interval)


class _NoRecorder:
    """For processes with neither a cell database nor a cell conductor."""

    def get_or_create(self):
        return None

    def heartbeat(self, record):
        return record


class Service(os_service.ServiceBase):
    """An RPC service: record, consume, heartbeat, periodic tasks, stop."""

    def __init__(self, host, binary, topic, manager, transport_url=None,
                 db_connection=None, report_interval=None,
                 periodic_enable=None, periodic_fuzzy_delay=None):
        self.host = host
        self.binary = binary
        self.topic = topic
        self.manager = manager
        self.transport_url = transport_url
        self.db_connection = db_connection
        self.report_interval = report_interval or CONF.report_interval
        self.periodic_enable = (CONF.periodic_enable if periodic_enable is None
                                else periodic_enable)
        self.periodic_fuzzy_delay = (
            CONF.periodic_fuzzy_delay if periodic_fuzzy_delay is None
            else periodic_fuzzy_delay)
        self.transport = None
        self.rpcserver = None
        self.record = None
        self._recorder = self._choose_recorder()
        self._record_lock = threading.Lock()
        self._record_ok = True
        self._heartbeats_stopped = False
        self._stopping = threading.Event()
        self._stopped = threading.Event()
        # Set while no start() runs; start() and stop() agree under the
        # lock on whether the RPC server is made.
        self._idle = threading.Event()
        self._idle.set()
        self._server_lock = threading.Lock()
        self._threads = []
        self._heartbeat_thread = None
        manager.host = host
        manager.service = self

    @classmethod
    def create(cls, binary, topic, manager_cls, host=None, **kwargs):
        """A Service for ``binary`` with a fresh ``manager_cls`` manager."""
        host = host or CONF.host
        return cls(host, binary, topic, manager_cls(host=host), **kwargs)

    def _choose_recorder(self):
        if self.binary == COMPUTE_BINARY:
            return _ConductorRecorder(self)
        if self.db_connection or CONF.database.connection:
            return _DirectRecorder(self)
        LOG.info('%s on %s keeps no service record: no [database] '
                 'connection', self.binary, self.host)
        return _NoRecorder()

    def __repr__(self):
        return '<Service %s on %s, topic %s>' % (self.binary, self.host,
                                                  self.topic)

    # -- lifecycle ---------------------------------------------------------

    def start(self):
        """Record the service, recover, then consume RPC and start the
        threads (nothing more once :meth:`stop` was called)."""
        # NOTE(nova_lite): busy first, then the check: a stop either sees
        # this start running (and waits for it, as what it does must not
        # be cut short by the process's exit) or is seen by it.
        self._idle.clear()
        try:
            if not self._stopping.is_set():
                self._start()
        finally:
            self._idle.set()

    def _start(self):
        objects.register_all()
        self.transport = rpc.get_cell_transport(self.transport_url)
        self.manager.init_host()
        self._refresh_record()
        if self._stopping.is_set():
            # NOTE(nova_lite): SIGTERM arrived while we waited for the
            # record (a compute whose conductor is not up yet).
            return
        # NOTE(nova_lite): recovery before consuming, as Nova's compute
        # runs init_host before its RPC server starts.
        self.manager.pre_start_hook()
        target = messaging.Target(topic=self.topic, server=self.host)
        endpoints = [self.manager, baserpc.BaseRPC(self)]
        endpoints.extend(self.manager.additional_endpoints)
        with self._server_lock:
            # NOTE(nova_lite): a stop that began meanwhile has already
            # looked for the server: one started now would take messages
            # from a process on its way out.
            if self._stopping.is_set():
                return
            self.rpcserver = rpc.get_server(target, endpoints,
                                            transport=self.transport)
            self.rpcserver.start()
        # The reply queue exists before the first call (see
        # rpc.open_reply_queue: a broker crash just after a lazily made
        # quorum reply queue left the process's calls timing out).
        reply_queue = rpc.open_reply_queue(self.transport)
        LOG.info('%s started on %s, consuming topic %s (exchange %s, '
                 'replies on %s)', self.binary, self.host, self.topic,
                 rpc.exchange_for(self.transport), reply_queue)
        self.manager.post_start_hook()
        self._heartbeat_thread = self._spawn(self._heartbeat_loop,
                                             'heartbeat')
        if self.periodic_enable:
            self._spawn(self._periodic_loop, 'periodic')

    def _spawn(self, func, name):
        thread = threading.Thread(target=func, daemon=True,
                                  name='%s-%s' % (self.binary, name))
        thread.start()
        self._threads.append(thread)
        return thread

    def stop(self, graceful=True):
        """Stop consuming for good, finish the work in flight within
        ``[DEFAULT] graceful_shutdown_timeout``, stop the threads."""
        if self._stopping.is_set():
            self._stopped.wait()
            return
        self._stopping.set()
        budget = shutdown_budget(CONF.graceful_shutdown_timeout)
        deadline = _Deadline(budget)
        LOG.info('Stopping %s on %s: consuming no more, finishing in-flight '
                 'work (%s)', self.binary, self.host,
                 'up to %.0f s' % budget if budget else 'no time limit')
        with self._server_lock:
            server = self.rpcserver
        if server is not None:
            rpc.stop_consuming(server)
        if not self._idle.wait(deadline.left()):
            LOG.warning('%s on %s: its start did not finish in time',
                        self.binary, self.host)
        # A start that was still running made no server (see _start).
        if server is not None and not _in_thread(server.wait,
                                                 deadline.left()):
            LOG.warning('%s on %s: RPC handlers still running at the end of '
                        'the graceful shutdown timeout', self.binary,
                        self.host)
        self.manager.drain(deadline.left())
        for thread in self._threads:
            if thread is threading.current_thread():
                continue
            if thread is self._heartbeat_thread:
                thread.join(HEARTBEAT_JOIN_TIMEOUT)
            else:
                thread.join()
        self.manager.cleanup_host()
        LOG.info('%s on %s stopped', self.binary, self.host)
        self._stopped.set()

    def wait(self):
        """Block until :meth:`stop` finished."""
        self._stopped.wait()

    def reset(self):
        """SIGHUP: nothing to reload beyond mutable options."""

    # -- service record and heartbeat -------------------------------------

    def _refresh_record(self):
        """Get or create the record; False (logged) when unreachable."""
        try:
            self.record = self._recorder.get_or_create()
        except Exception as exc:  # noqa: BLE001 - retried by the heartbeat
            self._note_record_failure(exc)
            return False
        self._note_record_success()
        return True

    def report_state(self):
        """Heartbeat now: ``report_count`` + 1 in the services table."""
        with self._record_lock:
            if self._heartbeats_stopped:
                return
            if self.record is None:
                self._refresh_record()
                return
            try:
                self.record = self._recorder.heartbeat(self.record)
            except Exception as exc:  # noqa: BLE001 - next beat retries
                self._note_record_failure(exc)
                return
            self._note_record_success()

    def stop_heartbeats(self):
        """Heartbeat no more, as a hung process (tests); returns once a
        heartbeat in flight has landed, so none lands afterwards."""
        with self._record_lock:
            self._heartbeats_stopped = True

    def resume_heartbeats(self):
        """Heartbeat again after :meth:`stop_heartbeats` (a lab fault
        cleared), at once."""
        with self._record_lock:
            self._heartbeats_stopped = False
        self.report_state()

    def _note_record_failure(self, exc):
        if self._record_ok:
            LOG.warning('%s on %s cannot update its service record: %s',
                        self.binary, self.host, exc)
        self._record_ok = False

    def _note_record_success(self):
        if not self._record_ok:
            LOG.info('%s on %s updates its service record again',
                     self.binary, self.host)
        self._record_ok = True

    def _heartbeat_loop(self):
        while not self._stopping.wait(self.report_interval):
            self.report_state()

    # -- periodic tasks ----------------------------------------------------

    def _periodic_loop(self):
        delay = (random.uniform(0, self.periodic_fuzzy_delay)
                 if self.periodic_fuzzy_delay else 0)
        context = nl_context.get_admin_context()
        while not self._stopping.wait(delay):
            try:
                idle = self.manager.periodic_tasks(context)
            except Exception:  # a failing task must not end the loop
                LOG.exception('Periodic tasks of %s failed', self.binary)
                idle = None
            delay = min(idle or PERIODIC_INTERVAL_MAX, PERIODIC_INTERVAL_MAX)


def _in_thread(func, timeout):
    """Run ``func()`` in a thread; False if it had not returned after
    ``timeout`` seconds (None: wait)."""
    thread = threading.Thread(target=func, daemon=True)
    thread.start()
    thread.join(timeout)
    return not thread.is_alive()


def serve(service):
    """Run ``service`` until SIGTERM through oslo.service's launcher.

    With the threading backend the launcher runs the service in one forked
    worker; SIGTERM there calls :meth:`Service.stop` and the process exits
    0. Returns the launcher's exit status.
    """
    launcher = os_service.launch(CONF, service, workers=1,
                                 restart_method='mutate')
    status = launcher.wait()
    return status or 0
