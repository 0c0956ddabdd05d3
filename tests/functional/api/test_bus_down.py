"""POST /servers while the message bus is down.

The create's cast is retried a bounded number of times
(``[api] build_cast_retries``); past them oslo.messaging raises
``MessageDeliveryFailure`` (or kombu's ``OperationalError``: measured
against a closed port, ``retry=2`` gives up after 4.0 s) and the API
answers 503 in Nova's fault format,
with nothing left behind, while GETs keep answering.
"""

import time

import fixtures
import oslo_messaging as messaging
from oslo_messaging.rpc import client as rpc_client
import testtools

from nova_lite.api.compute import create as create_mod
from nova_lite.testing import integrated


class BusDownTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(integrated.IntegratedFixture())
        self.cloud.start_compute('host1')
        self.retries = []
        self.bus_up = True
        # each test its own breaker (a tripped one answers 503 for 5 s)
        self.useFixture(fixtures.MockPatchObject(
            create_mod, '_bus_breaker', create_mod._BusBreaker()))
        self.hang = 0
        self.cast_uuids = []
        real_cast = rpc_client._BaseCallContext.cast
        test = self

        def cast(cctxt, ctxt, method, **kwargs):
            if cctxt.target.namespace == 'compute_task':
                test.retries.append(cctxt.retry)
                test.cast_uuids.extend(br.instance_uuid for br in
                                       kwargs.get('build_requests', ()))
                time.sleep(test.hang)
            if not test.bus_up:
                raise messaging.MessageDeliveryFailure(
                    'Unable to connect to AMQP server after %s tries'
                    % cctxt.retry)
            return real_cast(cctxt, ctxt, method, **kwargs)
        self.useFixture(fixtures.MockPatchObject(
            rpc_client._BaseCallContext, 'cast', cast))

    def test_create_answers_503_and_leaves_nothing(self):
        self.bus_up = False
        body = {'server': {'name': 'vm', 'flavorRef': '1',
                           'imageRef': integrated.CONF.image_catalog
                           .default_image_uuid,
                           'networks': 'none'}}
        response = self.cloud.api.post('/servers', body)
        self.assertEqual(503, response.status, response)
        self.assertEqual(503,
                         response.body['serviceUnavailable']['code'])
        self.assertEqual([2], self.retries)
        listed = self.cloud.api.get('/servers')
        self.assertEqual((200, []), (listed.status,
                                     listed.body['servers']))
        limits = self.cloud.api.get('/limits').body['limits']['absolute']
        self.assertEqual(0, limits['totalInstancesUsed'])

    def test_create_whose_cast_hangs_answers_503_in_time(self):
        # A cast stuck (a connect to a broker that does not answer, the
        # connection pool) is bounded by [api] build_cast_timeout; when it
        # gets through afterwards, the conductor finds no build request and
        # builds nothing.
        self.cloud.conf.flags(build_cast_timeout=0.3, group='api')
        self.hang = 1.5
        body = {'server': {'name': 'vm', 'flavorRef': '1',
                           'imageRef': integrated.CONF.image_catalog
                           .default_image_uuid,
                           'networks': 'none'}}
        started = time.monotonic()
        response = self.cloud.api.post('/servers', body)
        self.assertEqual(503, response.status, response)
        self.assertLess(time.monotonic() - started, 1.5)
        time.sleep(self.hang + 1.5)
        listed = self.cloud.api.get('/servers')
        self.assertEqual((200, []), (listed.status,
                                     listed.body['servers']))
        limits = self.cloud.api.get('/limits').body['limits']['absolute']
        self.assertEqual(0, limits['totalInstancesUsed'])
        [uuid] = self.cast_uuids
        self.assertEqual({}, self.cloud.allocations(uuid))

    def test_creates_after_a_failed_cast_answer_503_at_once(self):
        self.bus_up = False
        body = {'server': {'name': 'vm', 'flavorRef': '1',
                           'imageRef': integrated.CONF.image_catalog
                           .default_image_uuid,
                           'networks': 'none'}}
        self.assertEqual(503, self.cloud.api.post('/servers', body).status)
        self.assertEqual(1, len(self.retries))
        # the next create does not try the bus (nor store anything)
        response = self.cloud.api.post('/servers', body)
        self.assertEqual(503, response.status)
        self.assertEqual(1, len(self.retries))
        # after the breaker's seconds, creates try again
        self.bus_up = True
        self.useFixture(fixtures.MockPatchObject(
            create_mod, 'BREAKER_SECONDS', 0))
        create_mod._bus_breaker.trip()
        server = self.cloud.create_server()
        self.cloud.wait_for_server(server['id'], 'ACTIVE')

    def test_create_with_the_bus_up_casts_with_bounded_retries(self):
        server = self.cloud.create_server()
        self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual([2], self.retries)
