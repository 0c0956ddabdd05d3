"""The report client's diff application and conflict handling.

Against an in-process placement (PlacementFixture): every request the
client sends is recorded, so each test states exactly what was written.
"""

import testtools

from nova_lite.clients import report
from nova_lite.provider_tree import tree as pt
from nova_lite.testing import placement_fixture
from nova_lite import testing

ROOT = '2b0d7b0e-6a1c-4d47-9a57-0b3f4a1c0001'
CHILD = '2b0d7b0e-6a1c-4d47-9a57-0b3f4a1c0002'
AGG = '2b0d7b0e-6a1c-4d47-9a57-0b3f4a1c00aa'


def record(total, reserved=0):
    return {'total': total, 'reserved': reserved, 'min_unit': 1,
            'max_unit': total, 'step_size': 1, 'allocation_ratio': 1.0}


def wanted_tree(vcpus=8, child=True, traits=('HW_CPU_X86_AVX',)):
    tree = pt.ProviderTree()
    tree.new_root('node1', ROOT)
    tree.update_inventory(ROOT, {'VCPU': record(vcpus),
                                 'MEMORY_MB': record(4096, 512)})
    tree.update_traits(ROOT, set(traits))
    tree.update_aggregates(ROOT, {AGG})
    if child:
        tree.new_child('node1_pgpu0', ROOT, uuid=CHILD)
        tree.update_inventory(CHILD, {'VGPU': record(4)})
        tree.update_traits(CHILD, {'CUSTOM_GPU_MODEL_X'})
    return tree


class Recorder:

    def __init__(self, client):
        self.requests = []
        self.hooks = {}
        self._request = client.request
        client.request = self._record

    def _record(self, method, path, *args, **kwargs):
        self.requests.append((method, path))
        hook = self.hooks.get((method, path))
        if hook is not None:
            hook()
        return self._request(method, path, *args, **kwargs)

    @property
    def writes(self):
        return [r for r in self.requests if r[0] != 'GET']


class ReportClientTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())
        self.placement = self.useFixture(placement_fixture.PlacementFixture())
        self.client = self.placement.client
        self.other = self.placement.client_for('admin')
        self.recorder = Recorder(self.client)
        self.report = report.ReportClient(self.client)

    def _flushed(self):
        flushed = pt.ProviderTree()
        self.report.flush(flushed, wanted_tree())
        self.recorder.requests = []
        return flushed

    def test_new_tree_is_created_parents_first(self):
        flushed = pt.ProviderTree()
        writes = self.report.flush(flushed, wanted_tree())
        self.assertEqual([
            ('POST', '/resource_providers'),
            ('POST', '/resource_providers'),
            ('PUT', '/resource_providers/%s/inventories' % ROOT),
            ('PUT', '/resource_providers/%s/inventories' % CHILD),
            ('PUT', '/resource_providers/%s/traits' % ROOT),
            ('PUT', '/traits/CUSTOM_GPU_MODEL_X'),
            ('PUT', '/resource_providers/%s/traits' % CHILD),
            ('PUT', '/resource_providers/%s/aggregates' % ROOT),
        ], self.recorder.writes)
        self.assertEqual(7, writes)
        self.assertEqual(8, self.client.get_inventories(ROOT)[
            'inventories']['VCPU']['total'])
        self.assertEqual(ROOT, self.client.get_provider(CHILD)[
            'parent_provider_uuid'])
        read_back = self.report.read_tree(ROOT)
        self.assertTrue(report.provider_tree_diff.diff_trees(
            read_back, wanted_tree()).is_empty)

    def test_unchanged_tree_sends_nothing(self):
        flushed = self._flushed()
        self.assertEqual(0, self.report.flush(flushed, wanted_tree()))
        self.assertEqual([], self.recorder.requests)

    def test_only_the_changed_inventory_is_written(self):
        flushed = self._flushed()
        self.report.flush(flushed, wanted_tree(vcpus=16))
        self.assertEqual(
            [('PUT', '/resource_providers/%s/inventories' % ROOT)],
            self.recorder.requests)

    def test_removed_child_is_deleted(self):
        flushed = self._flushed()
        self.report.flush(flushed, wanted_tree(child=False))
        self.assertEqual([('DELETE', '/resource_providers/%s' % CHILD)],
                         self.recorder.requests)
        self.assertFalse(flushed.exists(CHILD))

    def test_conflict_rereads_and_keeps_what_others_set(self):
        flushed = self._flushed()
        self.other.ensure_trait('CUSTOM_OPERATOR')
        current = self.other.get_traits(ROOT)
        self.other.set_traits(ROOT, current['resource_provider_generation'],
                              current['traits'] + ['CUSTOM_OPERATOR'])

        def rebuild(fresh):
            tree = fresh.copy()
            tree.update_inventory(ROOT, wanted_tree(vcpus=16).data(
                ROOT).inventory)
            return tree

        writes = self.report.flush(flushed, rebuild(flushed),
                                   rebuild=rebuild)
        inventories = ('PUT', '/resource_providers/%s/inventories' % ROOT)
        self.assertEqual([inventories, inventories], self.recorder.writes)
        self.assertEqual(1, writes)
        self.assertIn('CUSTOM_OPERATOR', self.client.get_traits(ROOT)[
            'traits'])
        self.assertEqual(16, self.client.get_inventories(ROOT)[
            'inventories']['VCPU']['total'])

    def test_persistent_conflicts_give_up(self):
        flushed = self._flushed()

        def bump():
            current = self.other.get_aggregates(ROOT)
            self.other.set_aggregates(
                ROOT, current['resource_provider_generation'],
                current['aggregates'])

        self.recorder.hooks[
            ('PUT', '/resource_providers/%s/inventories' % ROOT)] = bump
        self.assertRaises(report.FlushConflict, self.report.flush, flushed,
                          wanted_tree(vcpus=16))
        self.assertEqual(report.MAX_FLUSH_ATTEMPTS, self.recorder.writes.count(
            ('PUT', '/resource_providers/%s/inventories' % ROOT)))

    def test_check_generations_reads_once_when_nothing_moved(self):
        flushed = self._flushed()
        self.assertEqual(0, self.report.check_generations(flushed, ROOT))
        self.assertEqual(1, len(self.recorder.requests))

    def test_check_generations_rereads_a_changed_provider(self):
        flushed = self._flushed()
        self.other.set_inventories(
            CHILD, flushed.data(CHILD).generation, {'VGPU': record(2)})
        self.assertEqual(1, self.report.check_generations(flushed, ROOT))
        self.assertEqual(2, flushed.data(CHILD).inventory['VGPU']['total'])

    def test_read_trees_of_known_and_unknown_roots(self):
        self._flushed()
        unknown = '2b0d7b0e-6a1c-4d47-9a57-0b3f4a1c0fff'
        trees = self.report.read_trees([ROOT, unknown])
        self.assertEqual([ROOT, CHILD], trees[ROOT].get_provider_uuids())
        self.assertEqual([], trees[unknown].get_provider_uuids())

    def test_allocations_of_a_tree_and_delete(self):
        self._flushed()
        consumer = '2b0d7b0e-6a1c-4d47-9a57-0b3f4a1c0c01'
        self.client.put_allocations(
            consumer, {ROOT: {'resources': {'VCPU': 1}},
                       CHILD: {'resources': {'VGPU': 1}}}, 'p', 'u')
        tree = self.report.read_tree(ROOT)
        allocations = self.report.get_allocations_for_tree(tree)
        self.assertEqual({ROOT: {'resources': {'VCPU': 1}},
                          CHILD: {'resources': {'VGPU': 1}}},
                         allocations[consumer]['allocations'])
        self.assertEqual(('p', 'u'), (allocations[consumer]['project_id'],
                                      allocations[consumer]['user_id']))
        self.assertTrue(self.report.tree_has_allocations(tree))
        self.assertTrue(self.report.delete_allocation(consumer))
        self.assertFalse(self.report.tree_has_allocations(tree))
        self.report.delete_tree(tree)
        self.assertEqual([], self.client.list_providers())

    def test_reshape_sends_inventories_and_allocations_in_one_call(self):
        flushed = self._flushed()
        sent = []

        def fake_reshaper(method, path, body=None, **kwargs):
            if path == '/reshaper':
                sent.append(body)
                return None
            return real(method, path, body, **kwargs)

        real, self.client.request = self.client.request, fake_reshaper
        wanted = wanted_tree()
        new_child = '2b0d7b0e-6a1c-4d47-9a57-0b3f4a1c0003'
        wanted.new_child('node1_pgpu1', ROOT, uuid=new_child)
        wanted.update_inventory(new_child, {'VGPU': record(4)})
        allocations = {'c1': {'allocations': {CHILD: {'resources': {
            'VGPU': 1}, 'generation': 3}}, 'project_id': 'p',
            'user_id': 'u', 'consumer_generation': 1}}
        self.report.reshape(flushed, wanted, allocations)
        self.assertEqual(1, len(sent))
        self.assertEqual({new_child}, set(sent[0]['inventories']))
        self.assertEqual(0, sent[0]['inventories'][new_child][
            'resource_provider_generation'])
        self.assertEqual({CHILD: {'resources': {'VGPU': 1}}},
                         sent[0]['allocations']['c1']['allocations'])
        self.assertTrue(flushed.exists(new_child))
