"""``sim import`` with a compute API: flavors with their extra specs,
aggregates with their zone, hypervisors naming each provider's host.

A whole cloud runs in this process (two computes); the importer reaches
its compute API and placement through their WSGI apps, as it would over
HTTP.
"""

import requests

from nova_lite.clients import placement as placement_client
from nova_lite.sim import importer
from nova_lite.sim import snapshot
from tests.functional import test_servers


class ImportWithComputeTest(test_servers.ServersTestBase):

    def _session(self):
        """Requests to http://compute.invalid reach the compute API,
        those to http://placement.invalid placement."""
        session = requests.Session()
        session.mount('http://compute.invalid',
                      placement_client.WSGIAdapter(self.cloud.app))
        session.mount('http://placement.invalid',
                      self.cloud.placement.client.session.get_adapter(
                          'http://placement.invalid'))
        return session

    def test_flavors_aggregates_and_hosts(self):
        flavor = self.admin_api.post('/flavors', {'flavor': {
            'name': 'sim.vf', 'vcpus': 2, 'ram': 1024, 'disk': 10,
            'OS-FLV-EXT-DATA:ephemeral': 5}})
        self.assertEqual(200, flavor.status, flavor)
        flavor_id = flavor.body['flavor']['id']
        self.assertEqual(200, self.admin_api.post(
            '/flavors/%s/os-extra_specs' % flavor_id,
            {'extra_specs': {'hw:cpu_policy': 'shared'}}).status)
        agg = self.admin_api.post('/os-aggregates', {'aggregate': {
            'name': 'rack1', 'availability_zone': 'az1'}})
        self.assertEqual(200, agg.status, agg)
        self.assertEqual(200, self.admin_api.post(
            '/os-aggregates/%s/action' % agg.body['aggregate']['id'],
            {'add_host': {'host': 'host1'}}).status)

        doc = importer.import_cloud(
            'http://placement.invalid', 'admin',
            compute_url='http://compute.invalid/v2.1',
            session=self._session())

        flavors = {f['name']: f for f in doc['flavors']}
        self.assertEqual({'name': 'sim.vf', 'vcpus': 2, 'ram': 1024,
                          'disk': 10, 'ephemeral': 5, 'swap': 0,
                          'extra_specs': {'hw:cpu_policy': 'shared'}},
                         flavors['sim.vf'])
        rack = [a for a in doc['aggregates'] if a['name'] == 'rack1'][0]
        self.assertEqual(['host1'], rack['hosts'])
        self.assertEqual('az1', rack['metadata']['availability_zone'])
        hosts = {prov['name']: host for prov, host in snapshot.hosts(doc)}
        self.assertEqual(2, len(hosts))
        for node, host in hosts.items():
            self.assertEqual(self.cloud.provider_uuid(node),
                             [p['uuid'] for p in doc['providers']
                              if p['name'] == node][0])
            self.assertIn(host, ('host1', 'host2'))
        self.assertEqual({'host1', 'host2'}, set(hosts.values()))
        # At 2.53 a hypervisor's id is its provider's uuid: the match.
        self.assertEqual(
            {p['uuid'] for p in doc['providers']
             if p['parent_provider_uuid'] is None},
            {h['id'] for h in doc['hypervisors']})
