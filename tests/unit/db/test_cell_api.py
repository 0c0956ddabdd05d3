"""Cell DB API: services (the heartbeat contract) and compute nodes."""

import datetime

import testtools

from nova_lite.db.cell import api
from nova_lite import exception
from tests import db_fixtures


class CellDBTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        url = self.useFixture(db_fixtures.SQLiteDatabase('cell.sqlite')).url
        self.useFixture(db_fixtures.SyncedDatabase(url, 'cell'))
        self.ctx = self.useFixture(db_fixtures.CellContext(url)).context


class TestServices(CellDBTestCase):

    def _create(self, host='host1', binary='nova-lite-compute',
                topic='compute'):
        return api.service_create(self.ctx, {'host': host, 'binary': binary,
                                             'topic': topic})

    def test_create_fills_defaults(self):
        service = self._create()
        self.assertIsNotNone(service.id)
        self.assertEqual(36, len(service.uuid))
        self.assertEqual(0, service.report_count)
        self.assertFalse(service.disabled)
        self.assertFalse(service.forced_down)
        self.assertIsNone(service.last_seen_up)
        self.assertIsInstance(service.created_at, datetime.datetime)

    def test_duplicate_host_binary_or_topic_raises(self):
        self._create()
        self.assertRaises(exception.ServiceExists, self._create)
        self.assertRaises(exception.ServiceExists, self._create,
                          binary='other', topic='compute')
        self._create(binary='nova-lite-conductor', topic='conductor')

    def test_get_and_get_by_host_and_binary(self):
        service = self._create()
        self.assertEqual(service.uuid, api.service_get(self.ctx,
                                                       service.id).uuid)
        found = api.service_get_by_host_and_binary(
            self.ctx, 'host1', 'nova-lite-compute')
        self.assertEqual(service.id, found.id)
        self.assertRaises(exception.ServiceNotFound, api.service_get,
                          self.ctx, 999)
        self.assertRaises(exception.HostBinaryNotFound,
                          api.service_get_by_host_and_binary,
                          self.ctx, 'host1', 'nova-lite-conductor')

    def test_get_all_filters(self):
        a = self._create('a')
        self._create('b', binary='nova-lite-conductor', topic='conductor')
        api.service_update(self.ctx, a.id, {'disabled': True})
        self.assertEqual(2, len(api.service_get_all(self.ctx)))
        self.assertEqual(['a'], [s.host for s in api.service_get_all(
            self.ctx, binary='nova-lite-compute')])
        self.assertEqual(['b'], [s.host for s in api.service_get_all(
            self.ctx, include_disabled=False)])

    def test_report_count_increase_sets_last_seen_up(self):
        service = self._create()
        updated = api.service_update(self.ctx, service.id,
                                     {'report_count': 1})
        self.assertEqual(1, updated.report_count)
        self.assertIsNotNone(updated.last_seen_up)
        first_seen = updated.last_seen_up
        updated = api.service_update(self.ctx, service.id,
                                     {'disabled': True,
                                      'disabled_reason': 'maintenance'})
        self.assertEqual(first_seen, updated.last_seen_up)
        self.assertEqual('maintenance', api.service_get(
            self.ctx, service.id).disabled_reason)

    def test_destroy(self):
        service = self._create()
        api.service_destroy(self.ctx, service.id)
        self.assertRaises(exception.ServiceNotFound, api.service_get,
                          self.ctx, service.id)
        self.assertRaises(exception.ServiceNotFound, api.service_destroy,
                          self.ctx, service.id)
        self._create()


class TestComputeNodes(CellDBTestCase):

    def _create(self, host='host1', node='node1', **kw):
        values = {'host': host, 'hypervisor_hostname': node, 'vcpus': 8,
                  'memory_mb': 4096, 'local_gb': 100}
        values.update(kw)
        return api.compute_node_create(self.ctx, values)

    def test_create_get(self):
        node = self._create(stats={'io': 1})
        self.assertEqual(0, node.mapped)
        self.assertEqual({'io': 1}, api.compute_node_get(
            self.ctx, node.id).stats)
        self.assertEqual(node.id, api.compute_node_get_by_uuid(
            self.ctx, node.uuid).id)
        self.assertEqual(node.id, api.compute_node_get_by_host_and_nodename(
            self.ctx, 'host1', 'node1').id)
        self.assertRaises(exception.ComputeNodeExists, self._create)
        self.assertRaises(exception.ComputeNodeNotFound,
                          api.compute_node_get_by_host_and_nodename,
                          self.ctx, 'host1', 'nope')

    def test_get_all_and_by_host(self):
        self._create('a', 'a1')
        self._create('a', 'a2')
        self._create('b', 'b1')
        self.assertEqual(3, len(api.compute_node_get_all(self.ctx)))
        self.assertEqual(['a1', 'a2'], [n.hypervisor_hostname for n in
                                        api.compute_node_get_all_by_host(
                                            self.ctx, 'a')])
        self.assertRaises(exception.ComputeHostNotFound,
                          api.compute_node_get_all_by_host, self.ctx, 'c')

    def test_update(self):
        node = self._create()
        updated = api.compute_node_update(self.ctx, node.id,
                                          {'vcpus_used': 2})
        self.assertEqual(2, updated.vcpus_used)

    def test_soft_delete_and_restore(self):
        node = self._create()
        api.compute_node_delete(self.ctx, node.id)
        self.assertRaises(exception.ComputeNodeNotFound,
                          api.compute_node_get, self.ctx, node.id)
        self.assertRaises(exception.ComputeNodeNotFound,
                          api.compute_node_delete, self.ctx, node.id)
        self.ctx.read_deleted = 'only'
        self.assertEqual([node.id], [n.id for n in api.compute_node_get_all(
            self.ctx)])
        self.ctx.read_deleted = 'no'
        restored = api.compute_node_restore(self.ctx, node.id)
        self.assertEqual((0, node.uuid), (restored.deleted, restored.uuid))
        self.assertEqual(node.id, api.compute_node_get_by_host_and_nodename(
            self.ctx, 'host1', 'node1').id)

    def test_same_node_may_be_recreated_after_delete(self):
        node = self._create()
        api.compute_node_delete(self.ctx, node.id)
        again = self._create()
        self.assertNotEqual(node.id, again.id)
        self.assertRaises(exception.ComputeNodeExists,
                          api.compute_node_restore, self.ctx, node.id)

    def test_mark_mapped_and_unmapped(self):
        a = self._create('a', 'a1')
        b = self._create('b', 'b1')
        self.assertEqual(2, api.compute_node_mark_mapped(self.ctx,
                                                         [a.id, b.id]))
        self.assertEqual([], api.compute_node_get_all(self.ctx, mapped=0))
        api.compute_node_mark_unmapped(self.ctx, [b.id])
        self.assertEqual([b.id], [n.id for n in api.compute_node_get_all(
            self.ctx, mapped=0)])
