"""Fields of a server's view that depend on its state, as Nova shows
them (all services in one process)."""

from tests.functional.api_extras import test_server_subresources as base


class ProgressTest(base.ServerSubresourceBase):

    def test_shown_while_active_hidden_when_stopped(self):
        # Nova shows ``progress`` (0 unless a move reports some) only for
        # ACTIVE, BUILD, REBUILD, RESIZE, VERIFY_RESIZE and MIGRATING.
        server = self.api.get('/servers/%s' % self.sid).body['server']
        self.assertEqual(0, server['progress'])
        self.api.post('/servers/%s/action' % self.sid, {'os-stop': None})
        self.cloud.wait_for_server(self.sid, 'SHUTOFF')
        server = self.api.get('/servers/%s' % self.sid).body['server']
        self.assertNotIn('progress', server)
        listed = self.api.get('/servers/detail').body['servers']
        self.assertNotIn('progress', listed[0])


class DescriptionTest(base.ServerSubresourceBase):

    def test_created_below_2_19_the_name_is_the_description(self):
        r = self.api.post('/servers', {'server': {
            'name': 'old-client', 'flavorRef': '1',
            'imageRef': self.server['image']['id']}}, version='2.18')
        self.assertEqual(202, r.status, r)
        server = self.api.get('/servers/%s' % r.body['server']['id'],
                              version='2.19').body['server']
        self.assertEqual('old-client', server['description'])
        mine = self.api.get('/servers/%s' % self.sid,
                            version='2.19').body['server']
        self.assertIsNone(mine['description'])
