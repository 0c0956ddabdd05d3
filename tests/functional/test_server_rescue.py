"""rescue and unrescue through the whole stack, as Nova with its fake
driver answers them: the states a user sees, the password, the rescue
image, the policy and the 409s."""

import testtools

from nova_lite.testing import integrated

OTHER_TOKEN = 'bob:other-project'


class ServerRescueTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(integrated.IntegratedFixture())
        self.cloud.start_compute('host1')
        self.api = self.cloud.api

    def boot(self):
        server = self.cloud.create_server()
        self.cloud.wait_for_builds()
        return self.cloud.wait_for_server(server['id'], 'ACTIVE')

    def action(self, server_id, body, api=None):
        return (api or self.api).post('/servers/%s/action' % server_id, body)

    def wait(self, server_id, status):
        self.cloud.wait_for_builds()
        return self.cloud.wait_for_server(server_id, status)

    def test_rescue_then_unrescue(self):
        server_id = self.boot()['id']
        response = self.action(server_id, {'rescue': {'adminPass': 'S3cret'}})
        self.assertEqual(200, response.status, response)
        self.assertEqual({'adminPass': 'S3cret'}, response.body)
        rescued = self.wait(server_id, 'RESCUE')
        self.assertEqual(('rescued', None), (
            rescued['OS-EXT-STS:vm_state'], rescued['OS-EXT-STS:task_state']))
        # Nova's fake driver: powered off for the rescue, as it stays.
        self.assertEqual(4, rescued['OS-EXT-STS:power_state'])
        response = self.action(server_id, {'unrescue': None})
        self.assertEqual(202, response.status, response)
        active = self.wait(server_id, 'ACTIVE')
        self.assertEqual(1, active['OS-EXT-STS:power_state'])
        actions = self.api.get('/servers/%s/os-instance-actions'
                               % server_id).body['instanceActions']
        self.assertEqual(['unrescue', 'rescue', 'create'],
                         [a['action'] for a in actions])

    def test_generated_password_and_null_body(self):
        server_id = self.boot()['id']
        response = self.action(server_id, {'rescue': None})
        self.assertEqual(200, response.status, response)
        self.assertEqual(12, len(response.body['adminPass']))
        self.wait(server_id, 'RESCUE')

    def test_stopped_server_with_rescue_image(self):
        server_id = self.boot()['id']
        self.assertEqual(202, self.action(server_id, {'os-stop': None}).status)
        self.wait(server_id, 'SHUTOFF')
        # The rescue image is a snapshot of the server with the stable
        # device rescue properties (Tempest's stable rescue does this).
        response = self.action(server_id, {'createImage': {'name': 'r'}})
        self.assertEqual(202, response.status, response)
        self.cloud.wait_for_builds()
        image_id = response.body['image_id']
        response = self.api.request(
            'PATCH', '/image/v2/images/%s' % image_id,
            body=[{'op': 'add', 'path': '/hw_rescue_device',
                   'value': 'disk'},
                  {'op': 'add', 'path': '/hw_rescue_bus',
                   'value': 'virtio'}],
            headers={'Content-Type':
                     'application/openstack-images-v2.1-json-patch'})
        self.assertEqual(200, response.status, response)
        response = self.action(server_id, {'rescue': {
            'rescue_image_ref': image_id}})
        self.assertEqual(200, response.status, response)
        self.wait(server_id, 'RESCUE')

    def test_unknown_rescue_image_is_400(self):
        server_id = self.boot()['id']
        response = self.action(server_id, {'rescue': {
            'rescue_image_ref': '8f1a2b3c-0000-4000-8000-000000000000'}})
        self.assertEqual(400, response.status, response)
        self.assertIn('is not supported',
                      response.body['badRequest']['message'])
        self.assertEqual(400, self.action(server_id, {'rescue': {
            'rescue_image_ref': 'not-a-uuid'}}).status)
        self.assertEqual(400, self.action(server_id, {'rescue': {
            'bogus': 1}}).status)
        shown = self.cloud.get_server(server_id)
        self.assertEqual(('ACTIVE', None), (
            shown['status'], shown['OS-EXT-STS:task_state']))

    def test_wrong_states_are_409(self):
        server_id = self.boot()['id']
        # Not rescued: nothing to unrescue.
        self.assertEqual(409, self.action(server_id, {'unrescue': None})
                         .status)
        self.assertEqual(202, self.action(server_id, {'pause': None}).status)
        self.wait(server_id, 'PAUSED')
        response = self.action(server_id, {'rescue': None})
        self.assertEqual(409, response.status, response)
        self.assertEqual(202, self.action(server_id, {'unpause': None})
                         .status)
        self.wait(server_id, 'ACTIVE')
        self.assertEqual(200, self.action(server_id, {'rescue': None})
                         .status)
        self.wait(server_id, 'RESCUE')
        # Rescued: no second rescue, no reboot or rebuild.
        for body in ({'rescue': None}, {'reboot': {'type': 'HARD'}},
                     {'rebuild': {'imageRef': self.cloud.get_server(
                         server_id)['image']['id']}}):
            self.assertEqual(409, self.action(server_id, body).status, body)
        # A rescued server can be deleted.
        self.assertEqual(204, self.api.delete('/servers/%s'
                                              % server_id).status)
        self.cloud.wait_for_builds()
        self.cloud.wait_until_deleted(server_id)

    def test_locked_and_other_projects(self):
        server_id = self.boot()['id']
        other = integrated.APIClient(self.cloud.app, token=OTHER_TOKEN)
        self.assertEqual(404, self.action(server_id, {'rescue': None},
                                          api=other).status)
        self.assertEqual(404, self.action(
            '8f1a2b3c-0000-4000-8000-000000000000', {'rescue': None}).status)
        # Locked by an admin: the owner may not rescue (409).
        self.assertEqual(202, self.action(server_id, {'lock': None},
                                          api=self.cloud.admin_api).status)
        response = self.action(server_id, {'rescue': None})
        self.assertEqual(409, response.status, response)
        self.assertEqual('ACTIVE', self.cloud.get_server(server_id)['status'])

    def test_extensions_list_rescue(self):
        aliases = [e['alias'] for e in self.api.get(
            '/extensions').body['extensions']]
        self.assertIn('os-rescue', aliases)
        self.assertEqual(200, self.api.get('/extensions/os-rescue').status)
