"""Bug 1852458: a server buried in cell0 has its ``create`` action.

With no compute, scheduling fails (NoValidHost) and the server is buried
in cell0 in ERROR. Its fault must explain, its hostId be empty, and it
must have one ``create`` action (message Error) whose conductor event
failed, so ``openstack server event list`` shows why
(NOVA_FACTS §8.3 scenario 11).
"""

from tests.functional import test_servers


class TestInstanceActionBuryInCell0(test_servers.ServersTestBase):
    """11: no computes: NoValidHost buries the server in cell0."""

    COMPUTES = ()

    def test_bury_in_cell0_instance_create_action(self):
        server = self.boot('ERROR')
        self.assertIn('No valid host', server['fault']['message'])
        self.assertEqual('', server['hostId'])
        response = self.admin_api.get('/servers/%s/os-instance-actions'
                                      % server['id'])
        self.assertEqual(200, response.status, response)
        (action,) = response.body['instanceActions']
        self.assertEqual(('create', 'Error'),
                         (action['action'], action['message']))
        response = self.admin_api.get('/servers/%s/os-instance-actions/%s'
                                      % (server['id'], action['request_id']))
        self.assertEqual(200, response.status, response)
        (event,) = response.body['instanceAction']['events']
        self.assertEqual(('conductor_schedule_and_build_instances',
                          'Error'), (event['event'], event['result']))
        self.delete_and_check_no_allocations(server['id'])
