"""Admin APIs over several cells: services, hypervisors, hosts, zones,
aggregates (mirrored into placement), migrations, instance actions."""

import time
from unittest import mock

import fixtures
from oslo_utils import uuidutils
import testtools

from nova_lite.clients import placement as placement_client
from nova_lite.db.api import api as api_db
from nova_lite.db.cell import api as cell_db
from nova_lite.db.cell import instance_api
from nova_lite.db.cell import migration_api
from nova_lite import exception
from tests.functional.api import fixtures as api_fixtures

V = '/v2.1'
MEMBER = api_fixtures.MEMBER


class AdminTestCase(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.api = self.useFixture(api_fixtures.APIFixture())
        self.host_enabled_calls = []
        self.useFixture(fixtures.MockPatch(
            'nova_lite.compute.rpcapi.ComputeAPI.set_host_enabled',
            side_effect=lambda ctxt, host, enabled:
            self.host_enabled_calls.append((ctxt.cell_uuid, host, enabled))))
        self.svc1, self.nodes1 = self.api.add_compute('host1', 'cell1',
                                                      nodes=2)
        self.svc2, self.nodes2 = self.api.add_compute('host2', 'cell2')
        ctxt = self.api.cell_context('cell1')
        self.conductor = cell_db.service_create(ctxt, {
            'host': 'cond1', 'binary': 'nova-lite-conductor',
            'topic': 'conductor'})


class TestServices(AdminTestCase):
    def test_list_across_cells(self):
        services = self.api.get(V + '/os-services').body['services']
        self.assertEqual({('host1', 'nova-compute'),
                          ('host2', 'nova-compute'),
                          ('cond1', 'nova-conductor')},
                         {(s['host'], s['binary']) for s in services})
        compute = [s for s in services if s['host'] == 'host1'][0]
        self.assertEqual(('nova', 'enabled', 'up', self.svc1.id),
                         (compute['zone'], compute['status'],
                          compute['state'], compute['id']))
        conductor = [s for s in services if s['host'] == 'cond1'][0]
        self.assertEqual('internal', conductor['zone'])
        self.assertEqual('up', conductor['state'])  # created just now
        only = self.api.get(V + '/os-services?binary=nova-compute&host=host2',
                            version='2.53').body['services']
        self.assertEqual([self.svc2.uuid], [s['id'] for s in only])
        self.assertFalse(only[0]['forced_down'])

    def test_disable_enable_2_53_tells_the_compute(self):
        calls = self.host_enabled_calls
        url = V + '/os-services/%s' % self.svc2.uuid
        resp = self.api.put(url, {'status': 'disabled',
                                  'disabled_reason': 'maintenance'},
                            version='2.53')
        self.assertEqual(200, resp.status, resp)
        self.assertEqual(('disabled', 'maintenance'),
                         (resp.body['service']['status'],
                          resp.body['service']['disabled_reason']))
        resp = self.api.put(url, {'status': 'enabled'}, version='2.53')
        self.assertIsNone(resp.body['service']['disabled_reason'])
        cell2 = self.api.dbs.cells['cell2'].uuid
        for _wait in range(100):
            if len(calls) == 2:
                break
            time.sleep(0.05)
        self.assertEqual([(cell2, 'host2', False), (cell2, 'host2', True)],
                         sorted(calls, key=lambda c: c[2]))
        resp = self.api.put(url, {'forced_down': True}, version='2.53')
        self.assertEqual(('down', True), (resp.body['service']['state'],
                                          resp.body['service']['forced_down']))

    def test_update_2_53_errors(self):
        url = V + '/os-services/%s' % self.svc2.uuid
        for body, word in (({}, 'body'), ({'status': 'off'}, 'status'),
                           ({'status': 'enabled', 'disabled_reason': 'x'},
                            'disabled_reason'),
                           ({'forced_down': 'yes'}, 'forced_down'),
                           ({'bogus': 1}, 'bogus')):
            resp = self.api.put(url, body, version='2.53')
            self.assertEqual(400, resp.status, (body, resp))
            self.assertIn(word, resp.text)
        resp = self.api.put(V + '/os-services/%s' % self.conductor.uuid,
                            {'status': 'disabled'}, version='2.53')
        self.assertEqual(400, resp.status)
        resp = self.api.put(V + '/os-services/%s' % uuidutils.generate_uuid(),
                            {'status': 'disabled'}, version='2.53')
        self.assertEqual(404, resp.status)
        resp = self.api.put(V + '/os-services/12', {'status': 'disabled'},
                            version='2.53')
        self.assertEqual(400, resp.status)

    def test_legacy_actions(self):
        body = {'host': 'host1', 'binary': 'nova-compute'}
        resp = self.api.put(V + '/os-services/disable', body)
        self.assertEqual({'service': dict(body, status='disabled')},
                         resp.body)
        resp = self.api.put(V + '/os-services/disable-log-reason',
                            dict(body, disabled_reason='broken'))
        self.assertEqual('broken', resp.body['service']['disabled_reason'])
        resp = self.api.put(V + '/os-services/enable', body)
        self.assertEqual('enabled', resp.body['service']['status'])
        self.assertEqual(404, self.api.put(V + '/os-services/force-down',
                                           dict(body, forced_down=True)
                                           ).status)
        resp = self.api.put(V + '/os-services/force-down',
                            dict(body, forced_down=True), version='2.11')
        self.assertTrue(resp.body['service']['forced_down'])
        self.assertEqual(404, self.api.put(V + '/os-services/enable', {
            'host': 'nohost', 'binary': 'nova-compute'}).status)
        self.assertEqual(400, self.api.put(V + '/os-services/enable',
                                           {'host': 'host1'}).status)

    def test_delete(self):
        ctxt = self.api.cell_context('cell2')
        instance_api.instance_create(ctxt, {'host': 'host2',
                                            'project_id': 'p'})
        url = V + '/os-services/%s' % self.svc2.uuid
        self.assertEqual(409, self.api.delete(url, version='2.53').status)
        self.assertEqual(204, self.api.delete(
            V + '/os-services/%s' % self.svc1.uuid, version='2.53').status)
        self.assertRaises(exception.HostMappingNotFound,
                          api_db.host_mapping_get_by_host,
                          self.api.admin_context, 'host1')
        self.assertEqual([], cell_db.compute_node_get_all(
            self.api.cell_context('cell1')))
        self.assertRaises(placement_client.PlacementNotFound,
                          self.api.placement.client.get_provider,
                          self.nodes1[0].uuid)
        self.assertEqual(404, self.api.delete(
            V + '/os-services/%s' % self.svc1.uuid, version='2.53').status)

    def test_admin_only(self):
        self.assertEqual(403, self.api.get(V + '/os-services',
                                           token=MEMBER).status)
        self.assertEqual(403, self.api.put(
            V + '/os-services/%s' % self.svc1.uuid,
            {'status': 'disabled'}, token=MEMBER, version='2.53').status)


class TestHypervisors(AdminTestCase):
    def test_list_and_detail(self):
        hypervisors = self.api.get(V + '/os-hypervisors').body['hypervisors']
        self.assertEqual(['host1-node-0', 'host1-node-1', 'host2-node-0'],
                         sorted(h['hypervisor_hostname']
                                for h in hypervisors))
        detail = self.api.get(V + '/os-hypervisors/detail',
                              version='2.88').body['hypervisors']
        self.assertEqual({n.uuid for n in self.nodes1 + self.nodes2},
                         {h['id'] for h in detail})
        self.assertIn('uptime', detail[0])
        self.assertNotIn('vcpus', detail[0])
        old = self.api.get(V + '/os-hypervisors/detail').body['hypervisors']
        self.assertEqual(8, old[0]['vcpus'])
        self.assertEqual('up', old[0]['state'])

    def test_show_and_servers(self):
        node = self.nodes2[0]
        ctxt = self.api.cell_context('cell2')
        instance_api.instance_create(ctxt, {
            'host': 'host2', 'node': node.hypervisor_hostname,
            'display_name': 'vm', 'project_id': 'p'})
        resp = self.api.get(V + '/os-hypervisors/%s?with_servers=true'
                            % node.uuid, version='2.53')
        self.assertEqual(['vm'], [s['name'] for s in
                                  resp.body['hypervisor']['servers']])
        self.assertEqual(400, self.api.get(V + '/os-hypervisors/1',
                                           version='2.53').status)
        self.assertEqual(404, self.api.get(
            V + '/os-hypervisors/%s' % uuidutils.generate_uuid(),
            version='2.53').status)
        resp = self.api.get(V + '/os-hypervisors/%d' % self.nodes1[0].id)
        self.assertEqual(200, resp.status)
        self.assertEqual(400, self.api.get(
            V + '/os-hypervisors?with_servers=maybe',
            version='2.53').status)
        resp = self.api.get(V + '/os-hypervisors?hypervisor_hostname_pattern'
                            '=host2', version='2.53')
        self.assertEqual(1, len(resp.body['hypervisors']))

    def test_legacy_search_servers_uptime(self):
        found = self.api.get(V + '/os-hypervisors/host1/search').body
        self.assertEqual(2, len(found['hypervisors']))
        self.assertEqual(404, self.api.get(V + '/os-hypervisors/zzz/search')
                         .status)
        servers = self.api.get(V + '/os-hypervisors/host2/servers').body
        # Nova's view: no ``servers`` key for a hypervisor without any
        # (below 2.75, and this route ends at 2.52).
        self.assertNotIn('servers', servers['hypervisors'][0])
        instance_api.instance_create(self.api.cell_context('cell2'), {
            'host': 'host2', 'node': self.nodes2[0].hypervisor_hostname,
            'display_name': 'vm', 'project_id': 'p'})
        servers = self.api.get(V + '/os-hypervisors/host2/servers').body
        self.assertEqual(['vm'], [s['name'] for s in
                                  servers['hypervisors'][0]['servers']])
        self.assertEqual(404, self.api.get(V + '/os-hypervisors/host1/search',
                                           version='2.53').status)
        uptime = self.api.get(V + '/os-hypervisors/%d/uptime'
                              % self.nodes1[0].id).body
        self.assertIn(' up 0 days, ', uptime['hypervisor']['uptime'])
        self.assertEqual(404, self.api.get(
            V + '/os-hypervisors/%s/uptime' % self.nodes1[0].uuid,
            version='2.88').status)

    def test_statistics_until_2_87(self):
        stats = self.api.get(V + '/os-hypervisors/statistics').body
        self.assertEqual((3, 24), (stats['hypervisor_statistics']['count'],
                                   stats['hypervisor_statistics']['vcpus']))
        self.assertEqual(404, self.api.get(V + '/os-hypervisors/statistics',
                                           version='2.88').status)

    def test_admin_only(self):
        self.assertEqual(403, self.api.get(V + '/os-hypervisors',
                                           token=MEMBER).status)


class TestHostsAndZones(AdminTestCase):
    def test_os_hosts(self):
        hosts = self.api.get(V + '/os-hosts').body['hosts']
        self.assertIn({'host_name': 'host1', 'service': 'compute',
                       'zone': 'nova'}, hosts)
        ctxt = self.api.cell_context('cell1')
        instance_api.instance_create(ctxt, {
            'host': 'host1', 'project_id': 'proj-a', 'vcpus': 2,
            'memory_mb': 1024, 'root_gb': 10})
        rows = [r['resource'] for r in self.api.get(
            V + '/os-hosts/host1').body['host']]
        by_project = {r['project']: r for r in rows}
        self.assertEqual(16, by_project['(total)']['cpu'])
        self.assertEqual(2, by_project['(used_max)']['cpu'])
        self.assertEqual(1024, by_project['proj-a']['memory_mb'])
        self.assertEqual(404, self.api.get(V + '/os-hosts/nohost').status)
        self.assertEqual(404, self.api.get(V + '/os-hosts',
                                           version='2.43').status)
        self.assertEqual(403, self.api.get(V + '/os-hosts',
                                           token=MEMBER).status)

    def test_availability_zones(self):
        agg = self.api.post(V + '/os-aggregates', {'aggregate': {
            'name': 'a1', 'availability_zone': 'az1'}}).body['aggregate']
        self.api.post(V + '/os-aggregates/%d/action' % agg['id'],
                      {'add_host': {'host': 'host2'}})
        zones = self.api.get(V + '/os-availability-zone',
                             token=MEMBER).body['availabilityZoneInfo']
        self.assertEqual([('az1', True, None), ('nova', True, None)],
                         [(z['zoneName'], z['zoneState']['available'],
                           z['hosts']) for z in zones])
        detail = self.api.get(V + '/os-availability-zone/detail').body
        by_zone = {z['zoneName']: z for z in detail['availabilityZoneInfo']}
        self.assertEqual({'internal', 'az1', 'nova'}, set(by_zone))
        self.assertTrue(by_zone['az1']['hosts']['host2'][
            'nova-compute']['available'])
        self.assertEqual(403, self.api.get(V + '/os-availability-zone/detail',
                                           token=MEMBER).status)


class TestAggregates(AdminTestCase):
    def _create(self, name='a1', zone=None):
        body = {'name': name}
        if zone:
            body['availability_zone'] = zone
        resp = self.api.post(V + '/os-aggregates', {'aggregate': body},
                             version='2.41')
        self.assertEqual(200, resp.status, resp)
        return resp.body['aggregate']

    def _action(self, agg, body, **kw):
        return self.api.post(V + '/os-aggregates/%d/action' % agg['id'], body,
                             **kw)

    def _placement_aggregates(self, node):
        return self.api.placement.client.get_aggregates(
            node.uuid)['aggregates']

    def test_crud(self):
        agg = self._create(zone='az1')
        self.assertEqual('az1', agg['availability_zone'])
        self.assertTrue(uuidutils.is_uuid_like(agg['uuid']))
        self.assertEqual(409, self.api.post(V + '/os-aggregates', {
            'aggregate': {'name': 'a1'}}).status)
        listed = self.api.get(V + '/os-aggregates').body['aggregates']
        self.assertEqual(['a1'], [a['name'] for a in listed])
        resp = self.api.put(V + '/os-aggregates/%d' % agg['id'],
                            {'aggregate': {'name': 'a2'}})
        self.assertEqual('a2', resp.body['aggregate']['name'])
        self.assertEqual(200, self.api.delete(
            V + '/os-aggregates/%d' % agg['id']).status)
        self.assertEqual(404, self.api.get(
            V + '/os-aggregates/%d' % agg['id']).status)
        self.assertEqual(400, self.api.get(V + '/os-aggregates/abc').status)

    def test_hosts_are_mirrored_into_placement(self):
        agg = self._create()
        resp = self._action(agg, {'add_host': {'host': 'host1'}})
        self.assertEqual(['host1'], resp.body['aggregate']['hosts'])
        for node in self.nodes1:
            self.assertEqual([agg['uuid']], self._placement_aggregates(node))
        self.assertEqual([], self._placement_aggregates(self.nodes2[0]))
        self.assertEqual(409, self._action(
            agg, {'add_host': {'host': 'host1'}}).status)
        self.assertEqual(404, self._action(
            agg, {'add_host': {'host': 'nohost'}}).status)
        self.assertEqual(400, self.api.delete(
            V + '/os-aggregates/%d' % agg['id']).status)
        self._action(agg, {'remove_host': {'host': 'host1'}})
        for node in self.nodes1:
            self.assertEqual([], self._placement_aggregates(node))
        self.assertEqual(404, self._action(
            agg, {'remove_host': {'host': 'host1'}}).status)

    def test_metadata_and_zones(self):
        agg = self._create()
        resp = self._action(agg, {'set_metadata': {'metadata': {
            'availability_zone': 'az1', 'ssd': 'true'}}})
        self.assertEqual({'availability_zone': 'az1', 'ssd': 'true'},
                         resp.body['aggregate']['metadata'])
        self.assertEqual('az1', resp.body['aggregate']['availability_zone'])
        resp = self._action(agg, {'set_metadata': {'metadata': {
            'ssd': None}}})
        self.assertEqual({'availability_zone': 'az1'},
                         resp.body['aggregate']['metadata'])
        self._action(agg, {'add_host': {'host': 'host1'}})
        other = self._create('a2', zone='az2')
        resp = self._action(other, {'add_host': {'host': 'host1'}})
        self.assertEqual(409, resp.status)
        plain = self._create('a3')
        self._action(plain, {'add_host': {'host': 'host1'}})
        resp = self._action(plain, {'set_metadata': {'metadata': {
            'availability_zone': 'az9'}}})
        self.assertEqual(400, resp.status)

    def test_bad_bodies(self):
        agg = self._create()
        for body in ({}, {'add_host': {}}, {'add_host': {'host': 'a b'}},
                     {'add_host': {'host': 'h'}, 'remove_host': {'host': 'h'}},
                     {'set_metadata': {'metadata': {'k': 1}}},
                     {'explode': {}}):
            self.assertEqual(400, self._action(agg, body).status, body)
        for body in ({'aggregate': {}}, {'aggregate': {'name': ''}},
                     {'aggregate': {'name': 'x', 'availability_zone': 'a:b'}},
                     {'aggregate': {'name': 'x', 'zone': 'z'}}):
            self.assertEqual(400, self.api.post(V + '/os-aggregates',
                                                body).status, body)
        self.assertEqual(400, self.api.put(V + '/os-aggregates/%d'
                                           % agg['id'],
                                           {'aggregate': {}}).status)

    def test_admin_only(self):
        self.assertEqual(403, self.api.get(V + '/os-aggregates',
                                           token=MEMBER).status)
        agg = self._create()
        self.assertEqual(403, self._action(
            agg, {'add_host': {'host': 'host1'}}, token=MEMBER).status)


class TestMigrationsAndActions(AdminTestCase):
    def test_migrations_across_cells(self):
        self.assertEqual([], self.api.get(V + '/os-migrations').body[
            'migrations'])
        for cell, host in (('cell1', 'host1'), ('cell2', 'host2')):
            migration_api.migration_create(self.api.cell_context(cell), {
                'source_compute': host, 'dest_compute': 'hostx',
                'status': 'migrating', 'migration_type': 'migration',
                'instance_uuid': uuidutils.generate_uuid()})
        migrations = self.api.get(V + '/os-migrations',
                                  version='2.80').body['migrations']
        self.assertEqual(2, len(migrations))
        self.assertIn('uuid', migrations[0])
        self.assertEqual(1, len(self.api.get(
            V + '/os-migrations?host=host2').body['migrations']))
        self.assertEqual(0, len(self.api.get(
            V + '/os-migrations?status=done').body['migrations']))
        self.assertEqual(403, self.api.get(V + '/os-migrations',
                                           token=MEMBER).status)

    def _instance_with_action(self):
        ctxt = self.api.cell_context('cell1')
        instance = instance_api.instance_create(ctxt, {
            'host': 'host1', 'project_id': 'proj-a', 'user_id': 'alice'})
        api_db.instance_mapping_create(self.api.admin_context, {
            'instance_uuid': instance.uuid, 'project_id': 'proj-a',
            'user_id': 'alice',
            'cell_id': self.api.dbs.cell_ids['cell1']})
        ctxt.request_id = 'req-1'
        instance_api.action_start(ctxt, {'action': 'create',
                                         'instance_uuid': instance.uuid})
        instance_api.action_event_start(ctxt, instance.uuid,
                                        'compute_build', host='host1')
        instance_api.action_event_finish(ctxt, instance.uuid,
                                         'compute_build')
        return instance

    def test_instance_actions(self):
        instance = self._instance_with_action()
        url = V + '/servers/%s/os-instance-actions' % instance.uuid
        actions = self.api.get(url, token=MEMBER).body['instanceActions']
        self.assertEqual([('create', 'req-1')],
                         [(a['action'], a['request_id']) for a in actions])
        shown = self.api.get(url + '/req-1', version='2.62').body
        events = shown['instanceAction']['events']
        self.assertEqual(('compute_build', 'Success', 'host1'),
                         (events[0]['event'], events[0]['result'],
                          events[0]['host']))
        member_view = self.api.get(url + '/req-1', token=MEMBER).body
        self.assertNotIn('events', member_view['instanceAction'])
        self.assertEqual(403, self.api.get(url, token='bob:proj-b').status)
        self.assertEqual(404, self.api.get(url + '/req-2').status)
        self.assertEqual(404, self.api.get(
            V + '/servers/%s/os-instance-actions'
            % uuidutils.generate_uuid()).status)


class TestDownCells(AdminTestCase):
    def test_down_cell_is_left_out_or_unknown(self):
        from nova_lite import cells

        real = cells.scatter_gather

        def one_cell_down(context, cell_mappings, fn, *args, **kwargs):
            results = real(context, cell_mappings, fn, *args, **kwargs)
            cell2 = self.api.dbs.cells['cell2'].uuid
            if cell2 in results:
                results[cell2] = cells.DID_NOT_RESPOND
            return results

        with mock.patch.object(cells, 'scatter_gather', one_cell_down):
            services = self.api.get(V + '/os-services').body['services']
            self.assertNotIn('host2', [s['host'] for s in services])
            services = self.api.get(V + '/os-services',
                                    version='2.69').body['services']
        self.assertIn({'binary': 'nova-compute', 'host': 'host2',
                       'status': 'UNKNOWN'}, services)
