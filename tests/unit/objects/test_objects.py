"""Fingerprints of nova_lite's versioned objects, and their behaviour.

When a test here fails because a hash changed: you changed an object's
fields or remotable methods. Bump that object's VERSION (and say what
changed in its docstring), then update the hash below.
"""

import datetime

from oslo_versionedobjects import fixture as ovo_fixture
import testtools

from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import base
from nova_lite import rpc
from nova_lite import testing

object_data = {
    'ComputeNode': '1.0-12aa74b244464ad25aa7c7e6c4be2061',
    'ComputeNodeList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'Instance': '1.0-f99c9f3c3a824076811a83e1e8924ffb',
    'InstanceAction': '1.0-eab81c7fee041e97c31caa64f25309c0',
    'InstanceActionEvent': '1.0-0cc21412b0f59e1751d16a3932601ac6',
    'InstanceActionEventList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'InstanceActionList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'InstanceFault': '1.0-4d9f25feac6ba1817568bb918b6f50ee',
    'InstanceFaultList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'InstanceList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'InstanceMappingList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'InstanceMapping': '1.0-ff8bdff38cd31fc7161dc2d75a7b462f',
    'CellMappingList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'CellMapping': '1.0-2314bbc9f0b268f7cfb993c2c0f5f773',
    'BuildRequestList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'BuildRequest': '1.0-fb30781b89897c1fabbf1337ecacd261',
    'Flavor': '1.0-b4fbc1dc1c992d0b13edb8ffe502e5fd',
    'Migration': '1.0-0adfce2c0aa14a2e43c0180e159f17af',
    'MigrationList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'TaskLog': '1.0-a1177980e44c6c57c704ffc1bf9e9c73',
    'TaskLogList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'RequestSpec': '1.0-eabb4b5870999c70ba24caaffc96f51a',
    'RequestSpecDestination': '1.0-749d510e81189db8fdc3501edaab0c3b',
    'RequestSpecGroup': '1.0-79a80139c26568a926c3891697e47196',
    'Selection': '1.0-d4db7fac2ce10d80fb5cdec2bf985f56',
    'SchedulingDecision': '1.0-50f744b4a217228ca719d3526cb740b7',
    'SchedulingDecisionList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'Service': '1.0-07293e3d4245b6b47fdcf372ab86ef8a',
    'ServiceList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
}


def _nova_lite_classes():
    objects.register_all()
    return {name: classes for name, classes in
            base.NovaLiteObjectRegistry.obj_classes().items()
            if classes[0].OBJ_PROJECT_NAMESPACE == base.OBJ_NAMESPACE}


class ObjectVersionTestCase(testtools.TestCase):

    def test_versions(self):
        checker = ovo_fixture.ObjectVersionChecker(_nova_lite_classes())
        expected, actual = checker.test_hashes(object_data)
        self.assertEqual(expected, actual,
                         'Some objects changed; bump their version and '
                         'update object_data')

    def test_objects_exposed_on_package(self):
        for name in _nova_lite_classes():
            self.assertTrue(hasattr(objects, name), name)


class SerializationTestCase(testtools.TestCase):

    def test_selection_round_trip_through_rpc_serializer(self):
        objects.register_all()
        serializer = rpc.RequestContextSerializer(
            base.NovaLiteObjectSerializer())
        ctxt = nl_context.RequestContext(user_id='u', project_id='p')
        sel = objects.Selection.from_allocation_request(
            'host1', 'host1-node-0', '3f0ae0a8-6a7a-4d4c-9a1f-9e0f2b7c9b10',
            '8a5f6a4e-2b4d-4a55-8d8d-0c5c2a0b7a11',
            {'allocations': {'rp': {'resources': {'VCPU': 1}}}}, '1.39')
        primitive = serializer.serialize_entity(ctxt, [sel])
        (back,) = serializer.deserialize_entity(ctxt, primitive)
        self.assertIsInstance(back, objects.Selection)
        self.assertEqual('host1-node-0', back.nodename)
        self.assertEqual({'VCPU': 1}, back.allocation_request_dict()[
            'allocations']['rp']['resources'])

    def test_context_round_trip(self):
        serializer = rpc.RequestContextSerializer()
        ctxt = nl_context.RequestContext(user_id='u', project_id='p',
                                         roles=['member'], is_admin=True)
        back = serializer.deserialize_context(
            serializer.serialize_context(ctxt))
        self.assertIsInstance(back, nl_context.RequestContext)
        self.assertEqual((ctxt.request_id, 'u', 'p', ['member'], True),
                         (back.request_id, back.user_id, back.project_id,
                          back.roles, back.is_admin))


class ServiceObjectTestCase(testtools.TestCase):
    """Service against a real (SQLite) cell database."""

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())
        self.useFixture(testing.DatabaseFixture(with_cell0=False, api=False))
        self.ctxt = nl_context.get_admin_context()

    def test_get_or_create_creates_once(self):
        first = objects.Service.get_or_create(self.ctxt, 'h1', 'nova-lite-x',
                                              'x')
        again = objects.Service.get_or_create(self.ctxt, 'h1', 'nova-lite-x',
                                              'x')
        self.assertEqual(first.id, again.id)
        self.assertEqual(first.uuid, again.uuid)
        self.assertEqual(0, again.report_count)
        self.assertIsNone(again.last_seen_up)
        self.assertEqual(1, len(objects.ServiceList.get_all(self.ctxt)))

    def test_heartbeat_sets_last_seen_up(self):
        svc = objects.Service.get_or_create(self.ctxt, 'h1', 'nova-lite-x',
                                            'x')
        svc.report_count += 1
        svc.save()
        fresh = objects.Service.get_by_id(self.ctxt, svc.id)
        self.assertEqual(1, fresh.report_count)
        self.assertIsInstance(fresh.last_seen_up, datetime.datetime)

    def test_get_by_host_and_binary_missing(self):
        self.assertRaises(exception.HostBinaryNotFound,
                          objects.Service.get_by_host_and_binary,
                          self.ctxt, 'nowhere', 'nova-lite-x')

    def test_destroy(self):
        svc = objects.Service.get_or_create(self.ctxt, 'h1', 'nova-lite-x',
                                            'x')
        svc.destroy()
        self.assertEqual(0, len(objects.ServiceList.get_all(self.ctxt)))


class RequestSpecObjectTestCase(testtools.TestCase):
    """RequestSpec and Flavor: RPC round trip (read as the scheduler reads
    it), API DB storage."""

    def _spec(self, ctxt):
        return objects.RequestSpec.from_components(
            ctxt, flavor={'vcpus': 2, 'memory_mb': 1024, 'root_gb': 10,
                          'extra_specs': {'trait:CUSTOM_SSD': 'required'}},
            image={'id': 'img', 'disk_format': 'qcow2',
                   'properties': {'traits_required': ['CUSTOM_A',
                                                      'CUSTOM_B']}},
            num_instances=2, project_id='p', user_id='u',
            availability_zone='az1',
            scheduler_hints={'group': 'g1', 'different_host': ['x', 'y']},
            instance_group={'uuid': 'g1', 'policy': 'anti-affinity',
                            'rules': {'max_server_per_host': 2},
                            'members': ['a', 'b']},
            requested_destination={'cell_uuid': 'c1'},
            ignore_hosts=['h0'])

    def test_round_trip_read_as_the_scheduler_reads_it(self):
        objects.register_all()
        ctxt = nl_context.RequestContext(user_id='u', project_id='p')
        serializer = rpc.RequestContextSerializer(
            base.NovaLiteObjectSerializer())
        back = serializer.deserialize_entity(
            ctxt, serializer.serialize_entity(ctxt, self._spec(ctxt)))
        # NOTE(nova_lite): the scheduler's filters read the object itself.
        plain = back
        self.assertEqual(2, plain.flavor.vcpus)
        self.assertEqual({'trait:CUSTOM_SSD': 'required'},
                         plain.flavor.extra_specs)
        self.assertEqual('CUSTOM_A,CUSTOM_B',
                         plain.image.properties['traits_required'])
        self.assertEqual(['x', 'y'], plain.get_hint_list('different_host'))
        self.assertEqual('g1', plain.get_hint('group'))
        self.assertEqual('anti-affinity', plain.group_policy)
        self.assertEqual({'max_server_per_host': '2'},
                         plain.instance_group.rules)
        self.assertEqual('c1', plain.requested_destination.cell_uuid)
        self.assertEqual(['h0'], plain.ignore_hosts)
        self.assertEqual(2, plain.num_instances)

    def test_stored_in_api_db(self):
        self.useFixture(testing.ConfFixture())
        self.useFixture(testing.DatabaseFixture(cells=(), with_cell0=False))
        ctxt = nl_context.get_admin_context()
        spec = self._spec(ctxt)
        spec.instance_uuid = 'a'
        spec.create()
        again = objects.RequestSpec.get_by_instance_uuid(ctxt, 'a')
        self.assertEqual('az1', again.availability_zone)
        self.assertEqual(['a', 'b'], again.instance_group.members)

    def test_flavor_from_db(self):
        from nova_lite.db.api import api as api_db
        self.useFixture(testing.ConfFixture())
        self.useFixture(testing.DatabaseFixture(cells=(), with_cell0=False))
        ctxt = nl_context.get_admin_context()
        api_db.flavor_create(ctxt, {'name': 'm1', 'flavorid': '1',
                                    'vcpus': 1, 'memory_mb': 512,
                                    'root_gb': 1},
                             extra_specs={'hw:cpu_policy': 'dedicated'})
        flavor = objects.Flavor.get_by_flavor_id(ctxt, '1')
        self.assertEqual(({'hw:cpu_policy': 'dedicated'}, 0, 1.0),
                         (flavor.extra_specs, flavor.ephemeral_gb,
                          flavor.rxtx_factor))


class SelectionDecisionTestCase(testtools.TestCase):

    def test_decision_crosses_rpc(self):
        objects.register_all()
        sel = objects.Selection.from_allocation_request(
            'host1', 'host1-node-0', '3f0ae0a8-6a7a-4d4c-9a1f-9e0f2b7c9b10',
            '8a5f6a4e-2b4d-4a55-8d8d-0c5c2a0b7a11', {'allocations': {}},
            '1.36')
        sel.decision = '{"result": "selected"}'
        self.assertEqual({'result': 'selected'}, sel.decision_dict())
        self.assertIn('decision', sel.obj_to_primitive()[
            'nova_lite_object.data'])


class InstanceDiskConfigTestCase(testtools.TestCase):

    def test_unset_auto_disk_config_reads_as_manual(self):
        objects.register_all()
        instance = objects.Instance(uuid='3f0ae0a8-6a7a-4d4c-9a1f-'
                                         '9e0f2b7c9b10',
                                    auto_disk_config=True)
        self.assertTrue(instance.obj_to_primitive()[
            'nova_lite_object.data']['auto_disk_config'])
        # A row written before the column existed holds NULL: MANUAL.
        instance.auto_disk_config = None
        self.assertIs(False, instance.auto_disk_config)
