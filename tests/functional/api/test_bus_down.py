"""POST /servers while the message bus is down (issue 16, item 6).

The create's cast is retried a bounded number of times
(``[api] build_cast_retries``); past them oslo.messaging raises
``MessageDeliveryFailure`` (or kombu's ``OperationalError``: measured
against a closed port, ``retry=2`` gives up after 4.0 s) and the API
answers 503 in Nova's fault format,
with nothing left behind, while GETs keep answering.
"""

import fixtures
import oslo_messaging as messaging
from oslo_messaging.rpc import client as rpc_client
import testtools

from nova_lite.testing import integrated


class BusDownTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(integrated.IntegratedFixture())
        self.cloud.start_compute('host1')
        self.retries = []
        self.bus_up = True
        real_cast = rpc_client._BaseCallContext.cast
        test = self

        def cast(cctxt, ctxt, method, **kwargs):
            if cctxt.target.namespace == 'compute_task':
                test.retries.append(cctxt.retry)
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

    def test_create_with_the_bus_up_casts_with_bounded_retries(self):
        server = self.cloud.create_server()
        self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual([2], self.retries)
