"""Listing servers in ERROR shows them with their fault.

Found in a two-cell lab: listing a cell holding an errored (or deleted)
server failed inside the cell read, so the whole cell was reported as not
answering and its servers came back as minimal UNKNOWN records; a name
lookup (``openstack server delete NAME``) then found nothing.
"""

from tests.functional import test_servers


class TestListErroredServers(test_servers.ServersTestBase):

    COMPUTES = ()

    def test_errored_server_listed_with_fault(self):
        server = self.boot('ERROR')
        response = self.api.get('/servers/detail')
        self.assertEqual(200, response.status, response)
        (listed,) = [s for s in response.body['servers']
                     if s['id'] == server['id']]
        self.assertEqual('ERROR', listed['status'])
        self.assertEqual('server', listed['name'])
        self.assertIn('No valid host', listed['fault']['message'])
        response = self.api.get('/servers?name=%s' % listed['name'])
        self.assertEqual([server['id']],
                         [s['id'] for s in response.body['servers']])
