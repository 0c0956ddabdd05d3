"""API DB API: build requests, request specs, aggregates, groups, keys."""

from nova_lite.db.api import aggregate_api
from nova_lite.db.api import api
from nova_lite.db.api import build_api
from nova_lite.db.api import group_api
from nova_lite.db.api import network_api
from nova_lite import exception
from tests.unit.db import test_api_api


class TestBuildRequestsAndSpecs(test_api_api.APIDBTestCase):

    def test_request_spec_round_trip(self):
        build_api.request_spec_create(self.ctx, 'i1', {'num_instances': 1})
        self.assertEqual({'num_instances': 1},
                         build_api.request_spec_get_by_instance_uuid(
                             self.ctx, 'i1').spec)
        build_api.request_spec_update(self.ctx, 'i1', {'num_instances': 2})
        self.assertEqual(2, build_api.request_spec_get_by_instance_uuid(
            self.ctx, 'i1').spec['num_instances'])
        build_api.request_spec_destroy(self.ctx, 'i1')
        self.assertRaises(exception.RequestSpecNotFound,
                          build_api.request_spec_get_by_instance_uuid,
                          self.ctx, 'i1')

    def test_build_request_delete_race_has_one_winner(self):
        build_api.build_request_create(self.ctx, {
            'instance_uuid': 'i1', 'project_id': 'p1',
            'instance': {'display_name': 'vm'}, 'tags': ['a']})
        self.assertRaises(exception.BuildRequestExists,
                          build_api.build_request_create, self.ctx,
                          {'instance_uuid': 'i1', 'project_id': 'p1'})
        self.assertEqual(['i1'], [b.instance_uuid for b in
                                  build_api.build_request_get_all(
                                      self.ctx, project_id='p1')])
        build_api.build_request_destroy(self.ctx, 'i1')
        self.assertRaises(exception.BuildRequestNotFound,
                          build_api.build_request_destroy, self.ctx, 'i1')

    def test_hand_over_maps_and_deletes_in_one(self):
        cell1 = self._cell()
        for uuid in ('i1', 'i2'):
            api.instance_mapping_create(self.ctx, {'instance_uuid': uuid,
                                                   'project_id': 'p1'})
            build_api.build_request_create(self.ctx, {
                'instance_uuid': uuid, 'project_id': 'p1'})
        self.assertEqual((None, True), build_api.build_request_hand_over(
            self.ctx, 'i1', cell1.id))
        self.assertEqual(cell1.id, api.instance_mapping_get_by_instance_uuid(
            self.ctx, 'i1').cell_id)
        self.assertRaises(exception.BuildRequestNotFound,
                          build_api.build_request_get_by_instance_uuid,
                          self.ctx, 'i1')
        # the user's delete took the build request first: mapped, False
        build_api.build_request_destroy(self.ctx, 'i2')
        self.assertEqual((None, False), build_api.build_request_hand_over(
            self.ctx, 'i2', cell1.id))
        # again (mapped already): the previous cell is told
        self.assertEqual((cell1.id, False),
                         build_api.build_request_hand_over(
                             self.ctx, 'i2', cell1.id))
        # the mapping is gone: nothing written
        api.instance_mapping_delete(self.ctx, 'i2')
        self.assertRaises(exception.InstanceMappingNotFound,
                          build_api.build_request_hand_over, self.ctx,
                          'i2', cell1.id)


class TestAggregates(test_api_api.APIDBTestCase):

    def test_hosts_metadata_and_zones(self):
        agg = aggregate_api.aggregate_create(
            self.ctx, 'agg1', metadata={'availability_zone': 'az1'})
        self.assertRaises(exception.AggregateNameExists,
                          aggregate_api.aggregate_create, self.ctx, 'agg1')
        aggregate_api.aggregate_host_add(self.ctx, agg.id, 'h1')
        aggregate_api.aggregate_host_add(self.ctx, agg.uuid, 'h2')
        self.assertRaises(exception.AggregateHostExists,
                          aggregate_api.aggregate_host_add, self.ctx,
                          agg.id, 'h1')
        got = aggregate_api.aggregate_metadata_update(
            self.ctx, agg.id, {'ssd': 'true', 'availability_zone': 'az2'})
        self.assertEqual({'ssd': 'true', 'availability_zone': 'az2'},
                         got.metadetails)
        self.assertEqual({'h1': 'az2', 'h2': 'az2'},
                         aggregate_api.availability_zones_by_host(self.ctx))
        self.assertEqual([agg.id], [a.id for a in
                                    aggregate_api.aggregate_get_by_host(
                                        self.ctx, 'h1', key='ssd')])
        aggregate_api.aggregate_metadata_update(self.ctx, agg.id,
                                                {'ssd': None})
        aggregate_api.aggregate_host_delete(self.ctx, agg.id, 'h1')
        got = aggregate_api.aggregate_get(self.ctx, agg.uuid)
        self.assertEqual((['h2'], {'availability_zone': 'az2'}),
                         (got.hosts, got.metadetails))
        aggregate_api.aggregate_delete(self.ctx, agg.id)
        self.assertEqual([], aggregate_api.aggregate_get_all(self.ctx))
        self.assertEqual({}, aggregate_api.availability_zones_by_host(
            self.ctx))


class TestGroupsKeysQuotas(test_api_api.APIDBTestCase):

    def test_server_group(self):
        group = group_api.instance_group_create(
            self.ctx, {'name': 'g', 'project_id': 'p1'},
            policy='anti-affinity', rules={'max_server_per_host': 2},
            members=['i1'])
        self.assertEqual(['i1', 'i2'], group_api.instance_group_members_add(
            self.ctx, group.uuid, ['i1', 'i2']))
        got = group_api.instance_group_get_by_instance(self.ctx, 'i2')
        self.assertEqual(('anti-affinity', {'max_server_per_host': 2}),
                         group_api.instance_group_policy(got))
        group_api.instance_group_member_delete(self.ctx, 'i1')
        self.assertEqual(['i2'], group_api.instance_group_get(
            self.ctx, group.uuid).members)
        group_api.instance_group_delete(self.ctx, group.uuid)
        self.assertRaises(exception.InstanceGroupNotFound,
                          group_api.instance_group_get, self.ctx, group.uuid)

    def test_key_pairs_and_quotas(self):
        group_api.key_pair_create(self.ctx, {'name': 'k', 'user_id': 'u',
                                             'public_key': 'ssh-rsa AAA'})
        self.assertRaises(exception.KeyPairExists, group_api.key_pair_create,
                          self.ctx, {'name': 'k', 'user_id': 'u'})
        self.assertEqual('ssh', group_api.key_pair_get(
            self.ctx, 'u', 'k').type)
        group_api.key_pair_destroy(self.ctx, 'u', 'k')
        self.assertRaises(exception.KeypairNotFound,
                          group_api.key_pair_destroy, self.ctx, 'u', 'k')
        group_api.quota_set(self.ctx, 'p', 'cores', 10)
        group_api.quota_set(self.ctx, 'p', 'cores', 20)
        group_api.quota_set(self.ctx, 'p', 'cores', 5, user_id='u')
        self.assertEqual({'cores': 20}, group_api.quota_get_all_by_project(
            self.ctx, 'p'))
        self.assertEqual({'cores': 5},
                         group_api.quota_get_all_by_project_and_user(
                             self.ctx, 'p', 'u'))
        group_api.quota_destroy_all_by_project(self.ctx, 'p')
        self.assertEqual({}, group_api.quota_get_all_by_project(
            self.ctx, 'p'))


class TestPortsByDevice(test_api_api.APIDBTestCase):
    """A port's ``device_id`` is kept in its indexed column on create and
    update, so a server's ports are read by device."""

    def _port(self, uuid, device):
        return {'id': uuid, 'device_id': device}

    def test_ports_follow_their_device(self):
        network_api.resource_create(self.ctx, 'port', 'p1', 'proj',
                                    self._port('p1', 'server-a'))
        network_api.resource_create(self.ctx, 'port', 'p2', 'proj',
                                    self._port('p2', 'server-b'))
        network_api.resource_create(self.ctx, 'network', 'n1', 'proj',
                                    {'id': 'n1', 'device_id': 'server-a'})

        def ports_of(*devices):
            return [r.uuid for r in network_api.resource_get_by_devices(
                self.ctx, 'port', devices)]
        self.assertEqual(['p1'], ports_of('server-a'))
        self.assertEqual(['p1', 'p2'], ports_of('server-a', 'server-b'))
        self.assertEqual([], ports_of())
        network_api.resource_update(self.ctx, 'port', 'p1',
                                    self._port('p1', ''))
        self.assertEqual([], ports_of('server-a'))
        self.assertIsNone(network_api.resource_get(
            self.ctx, 'port', 'p1').device_id)
        network_api.resource_update(self.ctx, 'port', 'p2',
                                    self._port('p2', 'server-a'))
        self.assertEqual(['p2'], ports_of('server-a'))
