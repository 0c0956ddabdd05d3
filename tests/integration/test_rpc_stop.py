"""A service stopped while casts keep coming loses none of them (RabbitMQ).

oslo.messaging acknowledges an RPC message when its listener receives it.
Casts are sent to a service whose handlers take a while; it is stopped
while they run and the casts go on, then a second service takes over the
same queue: every cast must be handled once, by one or the other. With
the listener's connection left open until the handlers finish (what
``server.stop(); server.wait()`` does), its heartbeat thread acknowledged
the casts the broker kept delivering and nobody handled them.

RabbitMQ as for tests/integration/test_services.py (a throwaway vhost).
"""

import threading
import time

import oslo_messaging as messaging
import testtools

from nova_lite import context as nl_context
from nova_lite import manager
from nova_lite import rpc
from nova_lite import service as nl_service
from nova_lite import testing
from tests.integration import test_services

CASTS = 60
HANDLER_SECONDS = 2
LIMIT = 60


class CountingEndpoint:
    target = messaging.Target(namespace='count', version='1.0')

    def __init__(self, handled, seconds):
        self.handled = handled
        self.seconds = seconds

    def work(self, context, number):
        time.sleep(self.seconds)
        self.handled.append(number)


class StopUnderLoadTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        test_services.require_rabbit(self)
        vhost = self.useFixture(test_services.RabbitVhostFixture())
        self.conf = self.useFixture(testing.ConfFixture())
        self.useFixture(testing.DatabaseFixture(with_cell0=False, api=False))
        self.conf.flags(transport_url=vhost.url)
        # A heartbeat tick (threshold / rate / 2) well inside a handler.
        self.conf.flags(heartbeat_timeout_threshold=2,
                        group='oslo_messaging_rabbit')
        self.addCleanup(rpc.cleanup)
        self.handled = []

    def _service(self, seconds):
        mgr = manager.Manager(host='host-a')
        mgr.additional_endpoints.append(
            CountingEndpoint(self.handled, seconds))
        svc = nl_service.Service('host-a', 'nova-lite-scheduler', 'count',
                                 mgr)
        svc.start()
        self.addCleanup(svc.stop)
        return svc

    def test_casts_during_a_stop_go_to_the_next_process(self):
        first = self._service(HANDLER_SECONDS)
        client = rpc.get_client(messaging.Target(
            topic='count', server='host-a', namespace='count'))
        context = nl_context.get_admin_context()

        def send():
            for number in range(CASTS):
                client.cast(context, 'work', number=number)
                time.sleep(HANDLER_SECONDS * 2.0 / CASTS)
        sender = threading.Thread(target=send)
        sender.start()
        test_services.wait_for(lambda: self.handled, timeout=LIMIT,
                               what='a first cast handled')
        first.stop()
        taken_by_first = len(self.handled)
        sender.join(LIMIT)
        self._service(0)
        deadline = time.monotonic() + LIMIT
        while len(self.handled) < CASTS and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(list(range(CASTS)), sorted(self.handled))
        self.assertLess(taken_by_first, CASTS)
