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
