"""The root query's statement is kept per plan: a repeated request shape
reuses it, and no request gets an answer planned for another (amounts,
limits, traits, sharing providers) or for data that has since changed."""

import uuid

import fixtures
import sqlalchemy as sa

from nova_lite.placement.objects import root_query
from tests.functional.placement import statement_case

AGG = str(uuid.uuid4())


def _root_query(statement):
    """The root query in ``statement``: on MariaDB a limited search's
    first bite packs the providers read with it as their filter and their
    usage read (allocations, not part of the root query)."""
    part = statement.split(' UNION ALL ')[0]
    return part[part.index('SELECT root.id'):]


class TestRootQueryPlans(statement_case.PlacementStatementTestCase):

    microversion = '1.36'

    def setUp(self):
        super().setUp()
        self.computes = [self._provider('cn%d' % i, {'VCPU': 8})
                         for i in range(3)]
        self._call('PUT', '/resource_providers/%s/traits' % self.computes[0],
                   {'resource_provider_generation': 1,
                    'traits': ['HW_CPU_X86_AVX2']})

    def _candidates(self, query):
        body = self._call('GET', '/allocation_candidates?' + query)
        return sorted(uuid for request in body['allocation_requests']
                      for uuid in request['allocations'])

    def _claim(self, rp, resources):
        self._call('PUT', '/allocations/%s' % uuid.uuid4(), {
            'allocations': {rp: {'resources': resources}},
            'project_id': str(uuid.uuid4()), 'user_id': str(uuid.uuid4()),
            'consumer_generation': None})

    def test_same_shape_reuses_the_statement(self):
        self._candidates('resources=VCPU:4&limit=5')
        hits = root_query.build.cache_info().hits
        self.assertEqual(sorted(self.computes),
                         self._candidates('resources=VCPU:4&limit=5'))
        self.assertGreater(
            root_query.build.cache_info().hits, hits)

    def test_amounts_limits_and_traits_are_not_shared(self):
        # The larger amount first: a statement planned for it, reused for
        # the smaller one, would find no tree.
        self.assertEqual([], self._candidates('resources=VCPU:9'))
        self.assertEqual([], self._candidates('resources=VCPU:9&limit=1'))
        self.assertEqual(3, len(self._candidates('resources=VCPU:4')))
        self.assertEqual(1, len(self._candidates('resources=VCPU:4&limit=1')))
        self.assertEqual(2, len(self._candidates('resources=VCPU:4&limit=2')))
        self.assertEqual([self.computes[0]], self._candidates(
            'resources=VCPU:4&required=HW_CPU_X86_AVX2'))
        self.assertEqual(sorted(self.computes[1:]), self._candidates(
            'resources=VCPU:4&required=!HW_CPU_X86_AVX2'))
        self.assertEqual(3, len(self._candidates('resources=VCPU:4')))

    def test_usage_written_after_planning_is_seen(self):
        self.assertEqual(3, len(self._candidates('resources=VCPU:4')))
        self._claim(self.computes[1], {'VCPU': 6})
        self.assertEqual(sorted([self.computes[0], self.computes[2]]),
                         self._candidates('resources=VCPU:4'))
        self.assertEqual(
            sorted([self.computes[0], self.computes[2]]),
            self._candidates('resources=VCPU:4&limit=5'))

    def test_sharing_provider_room_is_part_of_the_plan(self):
        disk = self._provider('disk', {'DISK_GB': 100})
        self._call('PUT', '/resource_providers/%s/traits' % disk,
                   {'resource_provider_generation': 1,
                    'traits': ['MISC_SHARES_VIA_AGGREGATE']})
        for rp, generation in ((disk, 2), (self.computes[2], 1)):
            self._call('PUT', '/resource_providers/%s/aggregates' % rp,
                       {'resource_provider_generation': generation,
                        'aggregates': [AGG]})
        query = 'resources=VCPU:1,DISK_GB:50'
        self.assertEqual(sorted([disk, self.computes[2]]),
                         self._candidates(query))
        self._claim(disk, {'DISK_GB': 60})
        self.assertEqual([], self._candidates(query))
        self.assertEqual([], self._candidates(query + '&limit=1'))

    def _root_queries(self, query):
        statements = []

        def record(conn, cursor, statement, *args):
            statements.append(statement)

        sa.event.listen(sa.engine.Engine, 'before_cursor_execute', record)
        try:
            found = self._candidates(query)
        finally:
            sa.event.remove(sa.engine.Engine, 'before_cursor_execute',
                            record)
        return found, [_root_query(s) for s in statements
                       if 'SELECT root.id' in s]

    def _small_bites(self):
        """A limited search reads as few trees per bite as its limit."""
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.placement.objects.allocation_candidate.MIN_BATCH', 1))

    def test_unlimited_request_checks_capacity_in_python(self):
        # Without a limit every tree is read: no root query for capacity
        # alone, and a full provider is still left out.
        self._claim(self.computes[1], {'VCPU': 6})
        found, roots = self._root_queries('resources=VCPU:4')
        self.assertEqual(sorted([self.computes[0], self.computes[2]]), found)
        self.assertEqual([], roots)
        # The cheap filters still narrow the trees in SQL, and with a
        # limit the capacity too.
        found, roots = self._root_queries(
            'resources=VCPU:4&required=HW_CPU_X86_AVX2')
        self.assertEqual([self.computes[0]], found)
        self.assertEqual(1, len(roots))
        self.assertNotIn('allocations', roots[0])
        # A limit's first bite (the first trees by id) is read without
        # the capacity condition too ...
        found, roots = self._root_queries('resources=VCPU:4&limit=5')
        self.assertEqual(sorted([self.computes[0], self.computes[2]]), found)
        self.assertEqual(1, len(roots))
        self.assertNotIn('allocations', roots[0])
        # ... and when it holds too few candidates, the next bites ask
        # for room in SQL.
        self._small_bites()
        self._claim(self.computes[0], {'VCPU': 6})
        found, roots = self._root_queries('resources=VCPU:4&limit=1')
        self.assertEqual([self.computes[2]], found)
        self.assertEqual(2, len(roots))
        self.assertNotIn('allocations', roots[0])
        self.assertIn('allocations', roots[1])

    def test_a_limit_finds_the_first_trees_with_room_by_id(self):
        # Whichever bite finds them, and however many are full before.
        self._small_bites()
        self.assertEqual([self.computes[0]],
                         self._candidates('resources=VCPU:4&limit=1'))
        self._claim(self.computes[0], {'VCPU': 6})
        self.assertEqual([self.computes[1]],
                         self._candidates('resources=VCPU:4&limit=1'))
        self._claim(self.computes[1], {'VCPU': 6})
        self.assertEqual([self.computes[2]],
                         self._candidates('resources=VCPU:4&limit=1'))
        self.assertEqual([self.computes[2]],
                         self._candidates('resources=VCPU:4&limit=2'))
        self._claim(self.computes[2], {'VCPU': 6})
        self.assertEqual([], self._candidates('resources=VCPU:4&limit=1'))

    def test_limited_request_probes_each_tree_once_for_its_classes(self):
        # One correlated probe per root counts the classes with room,
        # wherever they are in the tree (here VCPU on the child, MEMORY_MB
        # on the root), not one probe per class.
        # (The computes have no memory: the first bite, one of them read
        # without the probes, finds nothing.)
        self._small_bites()
        root, child = self._nested('nested', {'MEMORY_MB': 1024},
                                   {'VCPU': 4})
        found, roots = self._root_queries(
            'resources=VCPU:2,MEMORY_MB:512&limit=1')
        self.assertEqual(sorted([root, child]), found)
        self.assertEqual(2, len(roots))
        self.assertEqual(1, roots[1].count('count(DISTINCT'), roots[1])
        self.assertNotIn('IS NOT NULL', roots[1])
        # A class without room anywhere in the tree rules it out ...
        self.assertEqual([], self._candidates(
            'resources=VCPU:2,MEMORY_MB:2048&limit=5'))
        self._claim(child, {'VCPU': 3})
        self.assertEqual([], self._candidates(
            'resources=VCPU:2,MEMORY_MB:512&limit=5'))
        # ... as do unit constraints checked against each class's own
        # amount (MEMORY_MB:512 is no multiple of the step of 1,000).
        other, _ = self._nested('stepped', {'MEMORY_MB': 1024},
                                {'VCPU': 4})
        self._call('PUT', '/resource_providers/%s/inventories' % other,
                   {'resource_provider_generation': 1,
                    'inventories': {'MEMORY_MB': {'total': 4000,
                                                  'step_size': 1000}}})
        self.assertEqual([], self._candidates(
            'resources=VCPU:2,MEMORY_MB:512&limit=5'))
        self.assertEqual(2, len(self._candidates(
            'resources=VCPU:2,MEMORY_MB:1000&limit=5')))

    def test_one_class_in_two_groups_keeps_a_probe_per_group(self):
        # The same class asked by two groups (different amounts) cannot
        # be counted once: each keeps its own probe, and the answer holds.
        self._small_bites()
        self._claim(self.computes[0], {'VCPU': 6})
        found, roots = self._root_queries(
            'resources1=VCPU:2&resources2=VCPU:3&limit=1'
            '&group_policy=none')
        self.assertEqual([self.computes[1]], found)
        self.assertEqual(2, len(roots))
        self.assertEqual(0, roots[1].count('count(DISTINCT'), roots[1])
        self.assertEqual(2, roots[1].count('IS NOT NULL'), roots[1])


class TestRootQueryPlansMySQL(TestRootQueryPlans):
    """The same plans on MariaDB, where a limited search's first bite
    packs its root query with the providers and their usage."""

    database = 'mysql'
