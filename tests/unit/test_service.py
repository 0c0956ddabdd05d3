"""Unit tests of service liveness and of the Service lifecycle in-process."""

import datetime
import threading
import time
from unittest import mock

import fixtures
import oslo_messaging as messaging
from oslo_messaging._drivers import amqpdriver
from oslo_messaging._drivers import impl_rabbit
from oslo_service import periodic_task
import testtools

from nova_lite import baserpc
from nova_lite import context as nl_context
from nova_lite import manager
from nova_lite import rpc
from nova_lite import service as nl_service
from nova_lite import servicegroup
from nova_lite import testing

NOW = datetime.datetime(2026, 1, 1, 12, 0, 0)


def _seconds_ago(seconds):
    return NOW - datetime.timedelta(seconds=seconds)


class IsUpTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture(service_down_time=60))

    def test_recent_heartbeat_is_up(self):
        row = {'last_seen_up': _seconds_ago(59), 'created_at': None}
        self.assertTrue(servicegroup.is_up(row, now=NOW))

    def test_old_heartbeat_is_down(self):
        row = {'last_seen_up': _seconds_ago(61),
               'created_at': _seconds_ago(1)}
        self.assertFalse(servicegroup.is_up(row, now=NOW))

    def test_created_at_counts_before_first_heartbeat(self):
        self.assertTrue(servicegroup.is_up(
            {'last_seen_up': None, 'created_at': _seconds_ago(5)}, now=NOW))
        self.assertFalse(servicegroup.is_up(
            {'last_seen_up': None, 'created_at': _seconds_ago(500)},
            now=NOW))

    def test_forced_down_is_down(self):
        row = {'last_seen_up': NOW, 'forced_down': True}
        self.assertFalse(servicegroup.is_up(row, now=NOW))

    def test_aware_and_naive_times_compare(self):
        aware = NOW.replace(tzinfo=datetime.UTC)
        self.assertTrue(servicegroup.is_up({'last_seen_up': aware}, now=NOW))

    def test_explicit_down_time(self):
        row = {'last_seen_up': _seconds_ago(5)}
        self.assertFalse(servicegroup.is_up(row, now=NOW, down_time=3))


class SlowEndpoint:
    target = messaging.Target(namespace='slow', version='1.0')

    def __init__(self):
        self.started = threading.Event()
        self.finished = threading.Event()

    def work(self, context, seconds):
        self.started.set()
        time.sleep(seconds)
        self.finished.set()


class TickingManager(manager.Manager):
    def __init__(self, host=None):
        super().__init__(host=host)
        self.ticks = 0
        self.ticked = threading.Event()

    @periodic_task.periodic_task(spacing=0.1, run_immediately=True)
    def _tick(self, context):
        self.ticks += 1
        self.ticked.set()


class FailingRecorder:
    def __init__(self):
        self.calls = 0

    def get_or_create(self):
        self.calls += 1
        raise RuntimeError('database away')

    def heartbeat(self, record):
        raise RuntimeError('database away')


class ServiceLifecycleTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.conf = self.useFixture(testing.ConfFixture())
        self.useFixture(testing.DatabaseFixture(with_cell0=False, api=False))

    def _service(self, manager_obj, **kwargs):
        svc = nl_service.Service('host-a', 'nova-lite-scheduler', 'sched',
                                 manager_obj, **kwargs)
        self.addCleanup(svc.stop)
        return svc

    def test_stop_finishes_in_flight_work(self):
        endpoint = SlowEndpoint()
        mgr = manager.Manager()
        mgr.additional_endpoints.append(endpoint)
        svc = self._service(mgr)
        svc.start()
        client = rpc.get_client(messaging.Target(topic='sched',
                                                 namespace='slow'))
        client.cast(nl_context.get_admin_context(), 'work', seconds=0.5)
        self.assertTrue(endpoint.started.wait(10))
        svc.stop()
        self.assertTrue(endpoint.finished.is_set())
        svc.wait()

    def test_reply_queue_declared_at_start(self):
        # Seen in the rabbit_kill9 fault: a quorum reply queue declared by
        # the first call, just before the broker died, came back without
        # its Raft member and every later call timed out. The service
        # declares it when it starts; its calls reuse it.
        self.conf.flags(transport_url='kombu+memory:////')
        self.addCleanup(rpc.cleanup)
        svc = self._service(manager.Manager())
        svc.start()
        driver = svc.transport._driver
        reply_queue = driver._reply_q
        self.assertIsNotNone(reply_queue)
        self.assertTrue(reply_queue.startswith('reply_'))
        pong = baserpc.BaseAPI('sched', transport=svc.transport).ping(
            nl_context.get_admin_context(), 'x', server='host-a',
            timeout=10)
        self.assertEqual('host-a', pong['host'])
        self.assertEqual(reply_queue, driver._reply_q)

    def test_no_reply_queue_on_fake_driver(self):
        self.assertIsNone(rpc.open_reply_queue(rpc.get_transport()))

    def test_records_itself_directly_with_cell_db(self):
        svc = self._service(manager.Manager())
        svc.start()
        self.assertEqual(('host-a', 'nova-lite-scheduler', 'sched'),
                         (svc.record.host, svc.record.binary,
                          svc.record.topic))
        count = svc.record.report_count
        svc.report_state()
        self.assertEqual(count + 1, svc.record.report_count)
        self.assertTrue(servicegroup.is_up(svc.record))

    def test_no_record_without_cell_db(self):
        self.conf.flags(connection=None, group='database')
        svc = self._service(manager.Manager())
        svc.start()
        self.assertIsNone(svc.record)
        svc.report_state()
        self.assertIsNone(svc.record)

    def test_periodic_tasks_run_when_enabled(self):
        mgr = TickingManager()
        svc = self._service(mgr, periodic_enable=True)
        svc.start()
        self.assertTrue(mgr.ticked.wait(10))

    def test_periodic_tasks_off_by_default_in_tests(self):
        mgr = TickingManager()
        svc = self._service(mgr)
        svc.start()
        self.assertFalse(mgr.ticked.wait(0.3))

    def test_record_failures_logged_once_and_retried(self):
        logger = self.useFixture(fixtures.FakeLogger(name='nova_lite'))
        svc = self._service(manager.Manager())
        recorder = FailingRecorder()
        svc._recorder = recorder
        svc.start()
        svc.report_state()
        svc.report_state()
        self.assertEqual(3, recorder.calls)
        self.assertEqual(1, logger.output.count('cannot update its service'))


class RecordingServer:
    """Stands for an oslo.messaging RPC server: records what is asked."""

    def __init__(self, calls):
        self.calls = calls
        self.listener = self

    def stop(self):
        self.calls.append('stop consuming')

    def cleanup(self):
        self.calls.append('close consumer connection')

    def wait(self):
        self.calls.append('wait for handlers')


class StepManager(manager.Manager):
    """Records the hooks; ``pre_start_hook`` can be held."""

    def __init__(self, calls, hold=None):
        super().__init__(host='host-a')
        self.calls = calls
        self.hold = hold
        self.in_pre_start = threading.Event()

    def pre_start_hook(self):
        self.in_pre_start.set()
        if self.hold is not None:
            self.hold.wait(30)
        self.calls.append('pre_start_hook done')

    def drain(self, timeout):
        self.calls.append(('drain', timeout))

    def cleanup_host(self):
        self.calls.append('cleanup_host')


class GracefulStopTestCase(testtools.TestCase):
    """The order of a stop, and a stop that comes while the service
    starts."""

    def setUp(self):
        super().setUp()
        self.conf = self.useFixture(testing.ConfFixture())
        self.useFixture(testing.DatabaseFixture(with_cell0=False, api=False))
        self.calls = []

    def _service(self, mgr):
        return nl_service.Service('host-a', 'nova-lite-scheduler', 'sched',
                                  mgr)

    def test_stop_consuming_closes_the_consumer_before_the_wait(self):
        """The broker gets back what it delivered and nobody took, while
        the handlers in flight still run."""
        rpc.stop_consuming(RecordingServer(self.calls))
        self.assertEqual(['stop consuming', 'close consumer connection'],
                         self.calls)

    def test_a_stopping_listener_puts_back_what_is_delivered(self):
        """A delivery between the end of the polling and the close of
        the connection goes back to the broker, unacknowledged, for the
        next consumer."""
        listener = amqpdriver.RpcAMQPListener.__new__(
            amqpdriver.RpcAMQPListener)
        listener.incoming = []
        listener.cleanup = mock.Mock()
        server = mock.Mock(listener=listener)
        rpc.stop_consuming(server)
        message = mock.Mock()
        listener(message)
        message.requeue.assert_called_once_with()
        message.acknowledge.assert_not_called()
        self.assertEqual([], listener.incoming)
        server.stop.assert_called_once_with()
        listener.cleanup.assert_called_once_with()
        self.assertIsInstance(listener, amqpdriver.RpcAMQPListener)

    def test_a_delivery_read_while_the_stop_begins_is_handled(self):
        """A delivery the connection's heartbeat thread is reading when
        the stop begins lands among the messages the polling still
        takes; the stop refuses deliveries only once that read is over."""
        listener = amqpdriver.RpcAMQPListener.__new__(
            amqpdriver.RpcAMQPListener)
        listener.incoming = []
        lock = impl_rabbit.ConnectionLock()
        listener.conn = mock.Mock()
        listener.conn.connection._connection_lock = lock
        reading, read = threading.Event(), threading.Event()

        def heartbeat_reads_a_delivery():
            with lock.for_heartbeat():
                reading.set()
                read.wait(30)
                listener.incoming.append('delivered while stopping')
        heartbeat = threading.Thread(target=heartbeat_reads_a_delivery)
        heartbeat.start()
        self.addCleanup(heartbeat.join, 30)
        reading.wait(30)
        refused = threading.Thread(target=rpc._refuse_deliveries,
                                   args=(listener,))
        refused.start()
        refused.join(0.3)
        self.assertTrue(refused.is_alive())
        self.assertNotIsInstance(listener, rpc._RefusingListener)
        read.set()
        refused.join(30)
        self.assertIsInstance(listener, rpc._RefusingListener)
        self.assertEqual(['delivered while stopping'], listener.incoming)

    def test_stop_order(self):
        self.conf.flags(graceful_shutdown_timeout=0)
        svc = self._service(StepManager(self.calls))
        svc.rpcserver = RecordingServer(self.calls)
        svc.stop()
        self.assertEqual(['stop consuming', 'close consumer connection',
                          'wait for handlers', ('drain', None),
                          'cleanup_host'], self.calls)

    def test_drain_gets_what_is_left_of_the_timeout(self):
        self.conf.flags(graceful_shutdown_timeout=30)
        svc = self._service(StepManager(self.calls))
        svc.stop()
        (timeout,) = [c[1] for c in self.calls if c[0] == 'drain']
        self.assertGreater(timeout, 0)
        self.assertLessEqual(timeout, 30 - nl_service.SHUTDOWN_RESERVE)

    def test_shutdown_budget(self):
        self.assertIsNone(nl_service.shutdown_budget(0))
        self.assertEqual(58, nl_service.shutdown_budget(60))
        self.assertEqual(0.5, nl_service.shutdown_budget(1))

    def test_stop_during_start_waits_for_it_and_never_consumes(self):
        """SIGTERM while the start-up recovery runs: the stop lets it
        finish (the process exits when stop returns), and no RPC server
        is started after it."""
        hold = threading.Event()
        mgr = StepManager(self.calls, hold=hold)
        svc = self._service(mgr)
        starting = threading.Thread(target=svc.start)
        starting.start()
        self.assertTrue(mgr.in_pre_start.wait(30))
        stopping = threading.Thread(target=svc.stop)
        stopping.start()
        self.assertTrue(_wait_for(svc._stopping.is_set))
        hold.set()
        starting.join(30)
        stopping.join(30)
        self.assertIsNone(svc.rpcserver)
        self.assertEqual(['pre_start_hook done', 'drain', 'cleanup_host'],
                         [c if isinstance(c, str) else c[0]
                          for c in self.calls])

    def test_start_after_stop_does_nothing(self):
        mgr = StepManager(self.calls)
        svc = self._service(mgr)
        svc.stop()
        svc.start()
        self.assertIsNone(svc.rpcserver)
        self.assertNotIn('pre_start_hook done', self.calls)


def _wait_for(predicate, limit=30):
    deadline = time.monotonic() + limit
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.01)
    return predicate()


class ConductorServiceRecordTestCase(testtools.TestCase):
    """What the conductor does for computes' records (no RPC here)."""

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())
        self.useFixture(testing.DatabaseFixture(with_cell0=False, api=False))
        from nova_lite.conductor import manager as conductor_manager
        self.manager = conductor_manager.ConductorManager(host='cond')
        self.ctxt = nl_context.get_admin_context()

    def test_get_or_create_then_heartbeat(self):
        record = self.manager.service_get_or_create(
            self.ctxt, 'h1', 'nova-lite-compute', 'compute')
        again = self.manager.service_get_or_create(
            self.ctxt, 'h1', 'nova-lite-compute', 'compute')
        self.assertEqual(record.id, again.id)
        beat = self.manager.service_update(self.ctxt, record.id,
                                           {'report_count': 1})
        self.assertEqual(1, beat.report_count)
        self.assertIsNotNone(beat.last_seen_up)

    def test_compute_cannot_change_admin_fields(self):
        from nova_lite import exception
        record = self.manager.service_get_or_create(
            self.ctxt, 'h1', 'nova-lite-compute', 'compute')
        # NOTE(nova_lite): expected_exceptions wraps what the caller on the
        # other end of the bus gets as the original exception.
        exc = self.assertRaises(messaging.ExpectedException,
                                self.manager.service_update, self.ctxt,
                                record.id, {'forced_down': False})
        self.assertIs(exception.Invalid, exc.exc_info[0])
