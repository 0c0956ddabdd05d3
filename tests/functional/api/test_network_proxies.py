"""os-networks and os-tenant-networks: Nova's proxies of the network
service, answered by a cloud without one (no networks)."""

import testtools

from tests.functional.api import fixtures as api_fixtures

V = '/v2.1'
OLD = {'X-OpenStack-Nova-API-Version': '2.35'}
NEW = {'X-OpenStack-Nova-API-Version': '2.36'}


class TestNetworkProxies(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.api = self.useFixture(api_fixtures.APIFixture(cells=('cell1',)))

    def test_lists_are_empty_and_ids_unknown_until_2_35(self):
        for collection in ('os-networks', 'os-tenant-networks'):
            path = '%s/%s' % (V, collection)
            r = self.api.get(path, headers=OLD)
            self.assertEqual((200, {'networks': []}), (r.status, r.body))
            r = self.api.get(path + '/net-1', headers=OLD)
            self.assertEqual(404, r.status)
            self.assertIn('Network not found', r.text)
            self.assertEqual(404, self.api.get(path, headers=NEW).status)

    def test_nova_network_writes_are_gone(self):
        for method, path, body in (
                ('POST', '/os-networks', {'network': {'label': 'n'}}),
                ('POST', '/os-networks/add', {'id': 'n'}),
                ('DELETE', '/os-networks/n', None),
                ('POST', '/os-networks/n/action', {'disassociate': None}),
                ('POST', '/os-tenant-networks', {'network': {'label': 'n'}}),
                ('DELETE', '/os-tenant-networks/n', None)):
            r = self.api.request(method, V + path, body=body, headers=OLD)
            self.assertEqual(410, r.status, (method, path, r))
