"""Regression: a member's NoValidHost fault showed the placement query.

The fault message of a member's own failed build once quoted the
internal ``GET /allocation_candidates?...`` request. Members see which
filter removed how many hosts; the query goes to the fault's details,
which only admins see.
"""

import testtools

from nova_lite.testing import integrated


class FaultHidesQueryTestCase(testtools.TestCase):

    def test_member_sees_counts_admin_sees_query(self):
        cloud = self.useFixture(integrated.IntegratedFixture())
        cloud.start_compute('host1')
        response = cloud.admin_api.post('/flavors', {'flavor': {
            'name': 'huge', 'id': 'huge', 'ram': 512, 'vcpus': 1,
            'disk': 1}})
        self.assertEqual(200, response.status, response)
        response = cloud.admin_api.post(
            '/flavors/huge/os-extra_specs',
            {'extra_specs': {'trait:HW_CPU_X86_AVX512VNNI': 'required'}})
        self.assertEqual(200, response.status, response)
        server = cloud.create_server(flavor_id='huge')
        seen = cloud.wait_for_server(server['id'], 'ERROR', api=cloud.api)
        fault = seen['fault']
        self.assertIn('No valid host was found', fault['message'])
        self.assertNotIn('allocation_candidates', fault['message'])
        self.assertNotIn('details', fault)
        admin = cloud.get_server(server['id'])['fault']
        self.assertIn('Placement query: GET /allocation_candidates',
                      admin['details'])
