"""ProviderTree operations and the flushed-versus-wanted diff."""

import threading

import testtools

from nova_lite.provider_tree import diff as ptd
from nova_lite.provider_tree import tree as pt

ROOT = 'root-uuid'
CHILD = 'child-uuid'
GRANDCHILD = 'grandchild-uuid'


def _inv(total, **extra):
    record = {'total': total, 'reserved': 0, 'min_unit': 1,
              'max_unit': total, 'step_size': 1, 'allocation_ratio': 1.0}
    record.update(extra)
    return record


def _tree():
    tree = pt.ProviderTree()
    tree.new_root('node1', ROOT, generation=1)
    tree.new_child('node1_gpu0', 'node1', uuid=CHILD, generation=2)
    tree.new_child('node1_gpu0_x', CHILD, uuid=GRANDCHILD)
    return tree


class TestStructure(testtools.TestCase):

    def test_lookup_by_name_or_uuid(self):
        tree = _tree()
        self.assertTrue(tree.exists('node1'))
        self.assertTrue(tree.exists(CHILD))
        self.assertFalse(tree.exists('nope'))
        self.assertEqual(ROOT, tree.data(CHILD).parent_uuid)
        self.assertEqual('node1_gpu0', tree.data(CHILD).name)
        self.assertEqual(2, tree.data('node1_gpu0').generation)

    def test_unknown_provider_raises_value_error(self):
        self.assertRaises(ValueError, _tree().data, 'nope')
        self.assertRaises(ValueError, _tree().new_child, 'x', 'nope')

    def test_duplicate_name_or_uuid_refused(self):
        tree = _tree()
        self.assertRaises(ValueError, tree.new_root, 'node1', 'other')
        self.assertRaises(ValueError, tree.new_root, 'other', ROOT)
        self.assertRaises(ValueError, tree.new_child, 'node1_gpu0', ROOT)

    def test_new_child_picks_a_uuid(self):
        tree = _tree()
        uuid = tree.new_child('extra', ROOT)
        self.assertEqual(36, len(uuid))
        self.assertEqual(ROOT, tree.data('extra').parent_uuid)

    def test_uuids_parents_first(self):
        tree = _tree()
        tree.new_root('node2', 'root2')
        self.assertEqual([ROOT, CHILD, GRANDCHILD],
                         tree.get_provider_uuids('node1'))
        self.assertEqual([CHILD, GRANDCHILD], tree.get_provider_uuids(CHILD))
        self.assertEqual([ROOT, CHILD, GRANDCHILD, 'root2'],
                         tree.get_provider_uuids())
        self.assertEqual([ROOT, CHILD, GRANDCHILD],
                         tree.get_provider_uuids_in_tree(GRANDCHILD))
        self.assertEqual({'node1', 'node2'}, {r.name for r in tree.roots})

    def test_remove_takes_descendants(self):
        tree = _tree()
        tree.remove(CHILD)
        self.assertEqual([ROOT], tree.get_provider_uuids())
        self.assertFalse(tree.exists('node1_gpu0_x'))
        tree.remove('node1')
        self.assertEqual([], tree.get_provider_uuids())
        tree.new_root('node1', ROOT)   # names and uuids are free again

    def test_data_is_a_snapshot(self):
        tree = _tree()
        tree.update_inventory(ROOT, {'VCPU': _inv(8)})
        snapshot = tree.data(ROOT)
        snapshot.inventory['VCPU']['total'] = 1
        self.assertEqual(8, tree.data(ROOT).inventory['VCPU']['total'])
        self.assertIsInstance(snapshot.traits, frozenset)

    def test_copy_is_independent(self):
        tree = _tree()
        tree.update_inventory(ROOT, {'VCPU': _inv(8)})
        tree.add_traits(ROOT, 'A')
        other = tree.copy()
        other.update_inventory(ROOT, {'VCPU': _inv(4)})
        other.add_traits(ROOT, 'B')
        other.remove(CHILD)
        self.assertEqual(8, tree.data(ROOT).inventory['VCPU']['total'])
        self.assertEqual({'A'}, tree.data(ROOT).traits)
        self.assertTrue(tree.exists(GRANDCHILD))
        self.assertEqual([ROOT], other.copy().get_provider_uuids())

    def test_threads_do_not_lose_updates(self):
        tree = _tree()

        def add(prefix):
            for i in range(200):
                tree.add_traits(ROOT, '%s%d' % (prefix, i))

        threads = [threading.Thread(target=add, args=(p,)) for p in 'abcd']
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(800, len(tree.data(ROOT).traits))


class TestPopulate(testtools.TestCase):

    def test_children_may_come_before_parents(self):
        tree = pt.ProviderTree()
        tree.populate_from_iterable([
            {'uuid': GRANDCHILD, 'name': 'g', 'generation': 0,
             'parent_provider_uuid': CHILD},
            {'uuid': CHILD, 'name': 'c', 'generation': 0,
             'parent_provider_uuid': ROOT},
            {'uuid': ROOT, 'name': 'r', 'generation': 5,
             'parent_provider_uuid': None,
             'inventories': {'VCPU': _inv(4)}, 'traits': ['T'],
             'aggregates': ['agg']},
        ])
        self.assertEqual([ROOT, CHILD, GRANDCHILD],
                         tree.get_provider_uuids())
        root = tree.data(ROOT)
        self.assertEqual(5, root.generation)
        self.assertEqual({'T'}, root.traits)
        self.assertEqual({'agg'}, root.aggregates)
        self.assertEqual(4, root.inventory['VCPU']['total'])

    def test_existing_provider_is_refreshed(self):
        tree = _tree()
        tree.add_traits(ROOT, 'KEEP')
        tree.populate_from_iterable([
            {'uuid': ROOT, 'name': 'renamed', 'generation': 9}])
        self.assertEqual(9, tree.data('renamed').generation)
        self.assertFalse(tree.exists('node1'))
        self.assertEqual({'KEEP'}, tree.data(ROOT).traits)

    def test_orphans_refused(self):
        tree = pt.ProviderTree()
        self.assertRaises(ValueError, tree.populate_from_iterable, [
            {'uuid': CHILD, 'name': 'c', 'parent_provider_uuid': 'gone'}])


class TestAssociations(testtools.TestCase):

    def test_inventory_change_detection(self):
        tree = _tree()
        self.assertFalse(tree.has_inventory(ROOT))
        self.assertTrue(tree.update_inventory(ROOT, {'VCPU': _inv(8)}))
        self.assertTrue(tree.has_inventory(ROOT))
        self.assertFalse(tree.update_inventory(ROOT, {'VCPU': _inv(8)}))
        # Keys missing from the new record are not a change.
        self.assertFalse(tree.has_inventory_changed(
            ROOT, {'VCPU': {'total': 8}}))
        self.assertTrue(tree.has_inventory_changed(
            ROOT, {'VCPU': {'total': 8, 'reserved': 1}}))
        self.assertTrue(tree.has_inventory_changed(
            ROOT, {'VCPU': _inv(8), 'DISK_GB': _inv(1)}))
        self.assertTrue(tree.has_inventory_changed(ROOT, {}))

    def test_update_stores_generation_but_never_bumps_it(self):
        tree = _tree()
        tree.update_inventory(ROOT, {'VCPU': _inv(8)})
        self.assertEqual(1, tree.data(ROOT).generation)
        self.assertFalse(tree.update_inventory(ROOT, {'VCPU': _inv(8)},
                                               generation=7))
        self.assertEqual(7, tree.data(ROOT).generation)
        tree.update_traits(ROOT, ['A'], generation=8)
        tree.update_aggregates(ROOT, ['x'], generation=9)
        self.assertEqual(9, tree.data(ROOT).generation)
        tree.update_generation(ROOT, 10)
        self.assertEqual(10, tree.data(ROOT).generation)

    def test_traits(self):
        tree = _tree()
        self.assertTrue(tree.update_traits(ROOT, ['A', 'B']))
        self.assertFalse(tree.update_traits(ROOT, ['B', 'A']))
        self.assertTrue(tree.has_traits(ROOT, ['A']))
        self.assertFalse(tree.has_traits(ROOT, ['A', 'C']))
        tree.add_traits(ROOT, 'C')
        tree.remove_traits(ROOT, 'A', 'ABSENT')
        self.assertEqual({'B', 'C'}, tree.data(ROOT).traits)
        self.assertFalse(tree.have_traits_changed(ROOT, ['C', 'B']))
        self.assertTrue(tree.have_traits_changed(ROOT, ['C']))

    def test_aggregates(self):
        tree = _tree()
        self.assertTrue(tree.update_aggregates(CHILD, ['a1']))
        tree.add_aggregates(CHILD, 'a2')
        self.assertTrue(tree.in_aggregates(CHILD, ['a1', 'a2']))
        tree.remove_aggregates(CHILD, 'a1')
        self.assertFalse(tree.in_aggregates(CHILD, ['a1']))
        self.assertFalse(tree.have_aggregates_changed(CHILD, ['a2']))
        self.assertFalse(tree.update_aggregates(CHILD, {'a2'}))

    def test_resources(self):
        tree = _tree()
        self.assertTrue(tree.update_resources(ROOT, {'VGPU': ['d1']}))
        self.assertFalse(tree.update_resources(ROOT, {'VGPU': ['d1']}))
        self.assertEqual({'VGPU': ['d1']}, tree.data(ROOT).resources)


class TestDiff(testtools.TestCase):

    def _flushed(self):
        tree = _tree()
        tree.update_inventory(ROOT, {'VCPU': _inv(8), 'DISK_GB': _inv(100)})
        tree.update_inventory(CHILD, {'VGPU': _inv(4)})
        tree.update_traits(ROOT, ['HW_CPU_X86_AVX'])
        tree.update_aggregates(ROOT, ['agg1'])
        return tree

    def test_nothing_changed_means_no_writes(self):
        flushed = self._flushed()
        changes = ptd.diff_trees(flushed, flushed.copy())
        self.assertTrue(changes.is_empty)
        self.assertEqual(0, changes.write_count)

    def test_first_flush_creates_parents_first(self):
        wanted = self._flushed()
        changes = ptd.diff_trees(pt.ProviderTree(), wanted)
        self.assertEqual([ROOT, CHILD, GRANDCHILD],
                         [p.uuid for p in changes.creates])
        self.assertEqual([ROOT, CHILD],
                         [uuid for uuid, _ in changes.inventories])
        self.assertEqual([(ROOT, {'HW_CPU_X86_AVX'})], changes.traits)
        self.assertEqual([(ROOT, {'agg1'})], changes.aggregates)
        self.assertEqual([], changes.deletes)
        self.assertEqual(7, changes.write_count)

    def test_only_the_changed_inventory_is_sent(self):
        flushed = self._flushed()
        wanted = flushed.copy()
        wanted.update_inventory(ROOT, {'VCPU': _inv(16),
                                       'DISK_GB': _inv(100)})
        changes = ptd.diff_trees(flushed, wanted)
        self.assertEqual(1, changes.write_count)
        [(uuid, inventory)] = changes.inventories
        self.assertEqual(ROOT, uuid)
        self.assertEqual(16, inventory['VCPU']['total'])
        self.assertEqual(100, inventory['DISK_GB']['total'])

    def test_emptied_inventory_is_sent_empty(self):
        flushed = self._flushed()
        wanted = flushed.copy()
        wanted.update_inventory(CHILD, {})
        self.assertEqual([(CHILD, {})],
                         ptd.diff_trees(flushed, wanted).inventories)

    def test_deletes_children_first(self):
        flushed = self._flushed()
        wanted = flushed.copy()
        wanted.remove(CHILD)
        changes = ptd.diff_trees(flushed, wanted)
        self.assertEqual([GRANDCHILD, CHILD], changes.deletes)
        self.assertEqual(2, changes.write_count)

    def test_traits_aggregates_and_renames(self):
        flushed = self._flushed()
        wanted = flushed.copy()
        wanted.add_traits(ROOT, 'COMPUTE_STATUS_DISABLED')
        wanted.update_aggregates(CHILD, ['agg2'])
        wanted.populate_from_iterable([{'uuid': GRANDCHILD, 'name': 'gx'}])
        changes = ptd.diff_trees(flushed, wanted)
        self.assertEqual([(ROOT, {'HW_CPU_X86_AVX',
                                  'COMPUTE_STATUS_DISABLED'})],
                         changes.traits)
        self.assertEqual([(CHILD, {'agg2'})], changes.aggregates)
        self.assertEqual([(GRANDCHILD, 'gx')], changes.renames)
        self.assertEqual(3, changes.write_count)

    def test_reparenting_is_refused(self):
        flushed = self._flushed()
        wanted = pt.ProviderTree()
        wanted.new_root('node1', ROOT)
        wanted.new_root('node1_gpu0', CHILD)
        self.assertRaises(ValueError, ptd.diff_trees, flushed, wanted)

    def test_conflict_rediff_sends_only_what_is_missing(self):
        # The tracker wanted a new inventory and a new trait; the inventory
        # PUT hit a 409 because someone else changed the provider. After
        # re-reading the provider from placement (which already has the
        # trait, set by the other writer) only the inventory remains.
        flushed = self._flushed()
        wanted = flushed.copy()
        wanted.update_inventory(ROOT, {'VCPU': _inv(16),
                                       'DISK_GB': _inv(100)})
        wanted.add_traits(ROOT, 'CUSTOM_X')
        self.assertEqual(2, ptd.diff_trees(flushed, wanted).write_count)
        flushed.populate_from_iterable([{
            'uuid': ROOT, 'name': 'node1', 'generation': 12,
            'traits': ['HW_CPU_X86_AVX', 'CUSTOM_X']}])
        changes = ptd.diff_trees(flushed, wanted)
        self.assertEqual([ROOT], [uuid for uuid, _ in changes.inventories])
        self.assertEqual([], changes.traits)
        self.assertEqual(12, flushed.data(ROOT).generation)
        # And once placement holds everything, nothing is left to send.
        flushed.update_inventory(ROOT, wanted.data(ROOT).inventory)
        self.assertTrue(ptd.diff_trees(flushed, wanted).is_empty)

    def test_reshaper_body(self):
        flushed = self._flushed()
        wanted = flushed.copy()
        wanted.update_inventory(ROOT, {'VCPU': _inv(8)})
        wanted.update_inventory(CHILD, {'VGPU': _inv(4),
                                        'DISK_GB': _inv(100)})
        changes = ptd.diff_trees(flushed, wanted)
        allocations = {'c1': {
            'allocations': {ROOT: {'generation': 3,
                                   'resources': {'VCPU': 1}},
                            CHILD: {'resources': {'DISK_GB': 5}},
                            GRANDCHILD: {'resources': {}}},
            'project_id': 'p', 'user_id': 'u', 'consumer_generation': 1}}
        body = ptd.reshaper_body(changes, {ROOT: 1, CHILD: 2}, allocations)
        self.assertEqual({ROOT, CHILD}, set(body['inventories']))
        self.assertEqual(2, body['inventories'][CHILD][
            'resource_provider_generation'])
        self.assertEqual(
            {ROOT: {'resources': {'VCPU': 1}},
             CHILD: {'resources': {'DISK_GB': 5}}},
            body['allocations']['c1']['allocations'])
        self.assertEqual(1, body['allocations']['c1']['consumer_generation'])
