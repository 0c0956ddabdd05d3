"""The local copy of the provider trees a compute last confirmed."""

import os

import fixtures
import testtools

from nova_lite.compute import tree_cache
from nova_lite.provider_tree import diff as provider_tree_diff
from nova_lite.provider_tree import tree as pt

ROOT = '5e1f0a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b'
CHILD = '5e1f0a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2c'


def _tree():
    tree = pt.ProviderTree()
    tree.new_root('n1', ROOT, generation=4)
    tree.update_inventory(ROOT, {'VCPU': {'total': 8, 'reserved': 0}})
    tree.update_traits(ROOT, {'COMPUTE_NODE'})
    tree.update_aggregates(ROOT, {'agg'})
    tree.new_child('n1_pgpu0', ROOT, uuid=CHILD, generation=2)
    return tree


class TreeCacheTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        tmp = self.useFixture(fixtures.TempDir()).path
        self.path = tree_cache.cache_path(tmp, 'h1')

    def test_round_trip(self):
        tree_cache.save(self.path, 'h1', {'n1': _tree()})
        loaded = tree_cache.load(self.path, 'h1')['n1']
        self.assertTrue(provider_tree_diff.diff_trees(
            loaded, _tree()).is_empty)
        self.assertEqual((4, 2), (loaded.data(ROOT).generation,
                                  loaded.data(CHILD).generation))

    def test_missing_foreign_or_corrupt_files_are_ignored(self):
        self.assertEqual({}, tree_cache.load(self.path, 'h1'))
        tree_cache.save(self.path, 'h1', {'n1': _tree()})
        self.assertEqual({}, tree_cache.load(self.path, 'other-host'))
        with open(self.path, 'w') as f:
            f.write('{not json')
        self.assertEqual({}, tree_cache.load(self.path, 'h1'))

    def test_unwritable_path_is_only_logged(self):
        path = os.path.join(self.path, 'missing-dir', 'x.json')
        tree_cache.save(path, 'h1', {'n1': _tree()})
        self.assertFalse(os.path.exists(path))
