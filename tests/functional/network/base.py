"""What the network service's functional tests share: the compute API
in-process (APIFixture, one cell) and a call that checks the status."""

import testtools

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
