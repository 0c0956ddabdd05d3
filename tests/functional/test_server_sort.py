"""``GET /servers?sort_key=...&sort_dir=...`` across two cells."""

from tests.functional import test_servers


class ServerListSortTest(test_servers.ServersTestBase):

    CELLS = ('cell1', 'cell2')
    COMPUTES = ()

    def setUp(self):
        super().setUp()
        self.cloud.start_compute('host1', cell='cell1')
        self.cloud.start_compute('host2', cell='cell2')
        for name in ('bravo', 'alpha', 'delta', 'charlie'):
            self.boot('ACTIVE', name=name)

    def names(self, query, api=None):
        response = (api or self.api).get('/servers?' + query)
        self.assertEqual(200, response.status, response)
        return [s['name'] for s in response.body['servers']]

    def test_default_is_newest_first(self):
        self.assertEqual(['charlie', 'delta', 'alpha', 'bravo'],
                         self.names(''))

    def test_by_name_both_directions_across_cells(self):
        hosts = {self.cloud.get_server(s['id'])['OS-EXT-SRV-ATTR:host']
                 for s in self.api.get('/servers').body['servers']}
        self.assertEqual({'host1', 'host2'}, hosts)
        self.assertEqual(['alpha', 'bravo', 'charlie', 'delta'],
                         self.names('sort_key=display_name&sort_dir=asc'))
        self.assertEqual(['delta', 'charlie', 'bravo', 'alpha'],
                         self.names('sort_key=display_name'))

    def test_several_keys_and_paging(self):
        query = ('all_tenants=1&sort_key=host&sort_dir=asc'
                 '&sort_key=display_name&sort_dir=asc')
        by_host = self.names(query, api=self.admin_api)
        hosts = [self.cloud.get_server(s['id'])['OS-EXT-SRV-ATTR:host']
                 for s in self.admin_api.get(
                     '/servers?' + query).body['servers']]
        self.assertEqual(sorted(hosts), hosts)
        first = self.admin_api.get('/servers?%s&limit=2' % query).body
        self.assertEqual(by_host[:2], [s['name'] for s in first['servers']])
        marker = first['servers'][-1]['id']
        self.assertEqual(by_host[2:], self.names(
            '%s&marker=%s' % (query, marker), api=self.admin_api))

    def test_members_cannot_sort_by_host_it_is_ignored(self):
        self.assertEqual(self.names(''), self.names('sort_key=host'))

    def test_bad_key_or_direction_is_400(self):
        for query in ('sort_key=flavor_color', 'sort_key=uuid&sort_dir=up',
                      'sort_dir=asc'):
            response = self.api.get('/servers?' + query)
            self.assertEqual(400, response.status, query)
            self.assertIn('badRequest', response.body)
