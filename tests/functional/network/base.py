"""What the network service's functional tests share: the compute API
in-process (APIFixture, one cell) and a call that checks the status; for
servers on networks, the whole cloud in-process with one compute."""

import testtools

from nova_lite.testing import integrated
from tests.functional.api import fixtures as api_fixtures

MEMBER = api_fixtures.MEMBER
N = '/network/v2.0'


class NetworkTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.api = self.useFixture(api_fixtures.APIFixture(
            cells=('cell1',)))

    def call(self, method, path, body=None, token=MEMBER, status=200):
        response = self.api.request(method, N + path, body=body,
                                    token=token)
        self.assertEqual(status, response.status, response)
        return response.body


class ServersOnNetworksTestCase(testtools.TestCase):
    """The whole cloud in-process (IntegratedFixture, compute host1), for
    servers whose ports the network service makes."""

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(integrated.IntegratedFixture())
        self.cloud.start_compute('host1')
        self.api = self.cloud.api
        self.admin_api = self.cloud.admin_api

    def ok(self, response, status=200):
        self.assertEqual(status, response.status, response)
        return response.body

    def network(self, name='private', cidr='10.1.0.0/24', api=None):
        api = api or self.api
        net = self.ok(api.post(N + '/networks', {'network': {
            'name': name}}), 201)['network']
        self.ok(api.post(N + '/subnets', {'subnet': {
            'network_id': net['id'], 'cidr': cidr, 'ip_version': 4}}), 201)
        return net

    def boot(self, networks='none', **extra):
        server = self.cloud.create_server(networks=networks, **extra)
        self.cloud.wait_for_builds()
        return self.cloud.wait_for_server(server['id'], 'ACTIVE',
                                          api=self.api)
