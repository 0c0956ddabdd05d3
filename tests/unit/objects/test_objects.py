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
    'Selection': '1.0-73a6832af1366023540e946522901461',
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
