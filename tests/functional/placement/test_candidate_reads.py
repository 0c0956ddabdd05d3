"""How GET /allocation_candidates reads: a limited search reads a dense
batch of trees as a root id range (and only answers from the batch), a
sparse one as an IN list; summaries look up only the names the request
did not resolve itself.

On SQLite, and on MariaDB (``TestCandidateReadsMySQL``), where
several tree reads are one packed statement (``UNION ALL`` parts, see
``test_candidate_packed_mysql``): the reads asserted here are the parts."""

import json
import uuid

import fixtures
import webob

from nova_lite.placement.objects import tree_reads
from tests.functional.placement import statement_case

TRAIT = 'HW_CPU_X86_AVX2'


class TestCandidateReads(statement_case.PlacementStatementTestCase):

    microversion = '1.36'

    def setUp(self):
        super().setUp()
        self.computes = [self._provider('cn%d' % i,
                                        {'VCPU': 8, 'MEMORY_MB': 1024})
                         for i in range(5)]

    def _with_trait(self, indexes):
        for i in indexes:
            self._call('PUT', '/resource_providers/%s/traits'
                       % self.computes[i],
                       {'resource_provider_generation': 1,
                        'traits': [TRAIT]})

    def _get(self, query):
        statements = []

        def record(conn, cursor, statement, *args):
            self.packs_reads = conn.dialect.name == 'mysql'
            statements.append(statement)

        body = self._call_watched(record, 'GET',
                                  '/allocation_candidates?' + query)
        return body, statements

    def _reads(self, statements):
        """Each read of ``statements``: a packed statement's parts."""
        reads = []
        for statement in statements:
            if statement.startswith('SET STATEMENT'):
                reads.extend(statement.split(' UNION ALL '))
            else:
                reads.append(statement)
        return reads

    def _tree_reads(self, statements):
        return [s for s in self._reads(statements)
                if ('resource_providers.root_provider_id' in s or
                    'resource_provider_id BETWEEN' in s or
                    'json_each' in s) and
                'root.id' not in s]

    def _inventory_ids(self, query):
        """(body, [provider ids] of each inventories read by an id list,
        the number of inventories reads)."""
        lists, reads = [], []

        def record(conn, cursor, statement, parameters, *args):
            self.packs_reads = conn.dialect.name == 'mysql'
            if 'FROM inventories' in statement and 'root.id' not in statement:
                reads.append(statement)
                if 'json_each' in statement:
                    values = (list(parameters.values())
                              if isinstance(parameters, dict) else parameters)
                    lists.append(json.loads(values[-1]))

        body = self._call_watched(record, 'GET',
                                  '/allocation_candidates?' + query)
        return body, lists, len(reads)

    def _aggregate_reads(self, statements):
        return [s for s in statements
                if 'FROM resource_provider_aggregates' in s and
                'root.id' not in s]

    def _in_aggregate(self, rp, agg, generation=1):
        self._call('PUT', '/resource_providers/%s/aggregates' % rp,
                   {'resource_provider_generation': generation,
                    'aggregates': [agg]})

    def test_dense_batch_is_read_as_a_range_and_answered_from_itself(self):
        # Roots 1, 3 and 5 of 5: the range 1-5 also holds the trees of
        # 2 and 4, which are read and dropped, never answered.
        self._with_trait([0, 2, 4])
        body, statements = self._get(
            'resources=VCPU:1&required=%s&limit=3' % TRAIT)
        wanted = {self.computes[i] for i in (0, 2, 4)}
        self.assertEqual(wanted, set(body['provider_summaries']))
        self.assertEqual(wanted, {u for r in body['allocation_requests']
                                  for u in r['allocations']})
        reads = self._tree_reads(statements)
        # Both read the providers with the root query (the 3 trees' only;
        # MariaDB their usage too, in the same packed statement).
        self.assertEqual(2, len(reads), reads)
        if self.packs_reads:
            # The inventories and traits by the range.
            self.assertTrue(all('BETWEEN' in s for s in reads), reads)
            return
        # SQLite: the traits by the range, the inventories of the 3 trees.
        self.assertIn('BETWEEN', reads[0])
        self.assertIn('json_each', reads[1])

    def test_limited_search_reads_the_limits_worth_of_trees_first(self):
        # 20 flat trees, limit=17: the first round reads 17 of them (the
        # root filter is exact for flat trees), not a 64-tree minimum.
        self.computes += [self._provider('cn%d' % i, {'VCPU': 8})
                          for i in range(5, 20)]
        rounds = []
        load_trees = tree_reads.load_trees

        def record(context, root_ids, *args):
            trees = load_trees(context, root_ids, *args)
            rounds.append(len(trees))
            return trees

        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.placement.objects.tree_reads.load_trees', record))
        body = self._call('GET', '/allocation_candidates?'
                          'resources=VCPU:1&limit=17')
        self.assertEqual(17, len(body['allocation_requests']))
        self.assertEqual([17], rounds)

    def test_dense_providers_are_read_by_their_own_ids(self):
        # Roots 1, 3 and 5: the providers (by root id; on SQLite with the
        # root query; on MariaDB by the root range, with their usage read
        # ahead) span 1-5, so the traits (and MariaDB's inventories) are
        # read by their own provider id column over that span, without
        # the providers table.
        self._with_trait([0, 2, 4])
        body, statements = self._get('resources=VCPU:1&required=%s' % TRAIT)
        self.assertEqual(3, len(body['allocation_requests']))
        reads = self._tree_reads(statements)
        if self.packs_reads:
            self.assertEqual(4, len(reads), reads)
            for read in reads[:2]:
                self.assertIn('resource_providers.root_provider_id BETWEEN',
                              read)
            own = reads[2:]
        else:
            # (SQLite's inventories read: by id list, see below.)
            self.assertEqual(2, len(reads), reads)
            own = [s for s in reads if 'json_each' not in s]
            self.assertEqual(1, len(own), reads)
        for read in own:
            self.assertIn('resource_provider_id BETWEEN', read)
            self.assertNotIn('JOIN resource_providers', read)
            self.assertNotIn('root_provider_id', read)

    def test_filtered_inventories_are_read_for_the_kept_trees_only(self):
        # 2 of 5 flat trees have the trait: on SQLite only their
        # inventories are read (one id list), not the 5 of the range.
        self._with_trait([0, 2])
        body, lists, reads = self._inventory_ids(
            'resources=VCPU:1&required=%s' % TRAIT)
        self.assertEqual({self.computes[0], self.computes[2]},
                         set(body['provider_summaries']))
        self.assertEqual(1, reads)
        self.assertEqual([] if self.packs_reads else [2],
                         [len(ids) for ids in lists])

    def test_forbidden_trait_skips_the_inventories_of_its_flat_trees(self):
        # No root query narrows a forbidden trait: the traits are read
        # before the inventories, and a flat tree whose provider has the
        # trait gets none. A nested tree is read whole: its root has the
        # trait, but the child may serve (and the root is summarised).
        self._with_trait([0, 1, 2])
        root, child = self._nested('root', {'MEMORY_MB': 1024}, {'VCPU': 4})
        self._call('PUT', '/resource_providers/%s/traits' % root,
                   {'resource_provider_generation': 1, 'traits': [TRAIT]})
        body, lists, reads = self._inventory_ids(
            'resources=VCPU:1&required=!%s' % TRAIT)
        self.assertEqual([{self.computes[3]}, {self.computes[4]}, {child}],
                         [set(r['allocations'])
                          for r in body['allocation_requests']])
        self.assertEqual({self.computes[3], self.computes[4], child, root},
                         set(body['provider_summaries']))
        self.assertEqual({'MEMORY_MB': {'capacity': 1024, 'used': 0}},
                         body['provider_summaries'][root]['resources'])
        self.assertEqual(1, reads)
        self.assertEqual([] if self.packs_reads else [4],
                         [len(ids) for ids in lists])

    def test_sqlite_reads_the_capacity_as_one_value(self):
        # SQLite computes (total - reserved) * allocation_ratio (a double
        # as Python's float): the same capacities, sums and boundaries.
        # A capacity with a fraction (10 * 0.35 = 3.5): the summary says
        # 3, and 3 fits; with reserved, (11 - 1) * 1.1: 12 does not fit.
        self._call('PUT', '/resource_providers/%s/inventories'
                   % self.computes[0],
                   {'resource_provider_generation': 1,
                    'inventories': {
                        'DISK_GB': {'total': 10, 'allocation_ratio': 0.35},
                        'MEMORY_MB': {'total': 11, 'reserved': 1,
                                      'allocation_ratio': 1.1}}})
        body, statements = self._get('resources=DISK_GB:3,MEMORY_MB:10')
        self.assertEqual([self.computes[0]],
                         list(body['provider_summaries']))
        self.assertEqual(
            {'DISK_GB': {'capacity': 3, 'used': 0},
             'MEMORY_MB': {'capacity': 11, 'used': 0}},
            body['provider_summaries'][self.computes[0]]['resources'])
        for query in ('resources=DISK_GB:3,MEMORY_MB:12',
                      'resources=DISK_GB:4,MEMORY_MB:10'):
            self.assertEqual(
                [], self._get(query)[0]['allocation_requests'], query)
        reads = [s for s in self._reads(statements)
                 if 'FROM inventories' in s and 'root.id' not in s]
        self.assertEqual(1, len(reads), reads)
        capacity = ('(inventories.total - inventories.reserved) * '
                    'inventories.allocation_ratio')
        if self.packs_reads:
            self.assertNotIn(capacity, reads[0])
        else:
            self.assertIn(capacity, reads[0])
            self.assertNotIn('inventories.reserved,', reads[0])

    def test_unfiltered_inventories_are_read_by_range(self):
        # Nothing ruled out: the inventories are one range read.
        body, lists, reads = self._inventory_ids('resources=VCPU:1')
        self.assertEqual(5, len(body['allocation_requests']))
        self.assertEqual((1, []), (reads, lists))

    def test_flat_trees_member_of_reads_no_aggregates(self):
        # The root query decides the unnumbered group's member_of for a
        # tree of one provider: no aggregate is read for flat trees ...
        agg = str(uuid.uuid4())
        for i in (0, 2):
            self._in_aggregate(self.computes[i], agg)
        body, statements = self._get('resources=VCPU:1&member_of=%s' % agg)
        self.assertEqual({self.computes[0], self.computes[2]},
                         set(body['provider_summaries']))
        self.assertEqual([], self._aggregate_reads(statements))
        body, statements = self._get(
            'resources=VCPU:1&member_of=!%s' % agg)
        self.assertEqual({self.computes[i] for i in (1, 3, 4)},
                         set(body['provider_summaries']))
        self.assertEqual([], self._aggregate_reads(statements))
        # ... a numbered group's is checked in Python: they are read.
        body, statements = self._get(
            'resources1=VCPU:1&member_of1=%s' % agg)
        self.assertEqual(2, len(body['allocation_requests']))
        self.assertEqual(1, len(self._aggregate_reads(statements)))

    def test_nested_tree_member_of_reads_aggregates(self):
        # A child in the aggregate makes its tree a member (the root query
        # keeps it), but only the child may serve: the aggregates of a
        # tree of more than one provider are read and checked in Python.
        agg = str(uuid.uuid4())
        root, child = self._nested('root', {'MEMORY_MB': 1024}, {'VCPU': 4})
        self._in_aggregate(child, agg)
        self._in_aggregate(self.computes[1], agg)
        body, statements = self._get(
            'resources=VCPU:1,MEMORY_MB:64&member_of=%s' % agg)
        self.assertEqual(1, len(self._aggregate_reads(statements)))
        # Only the flat compute in the aggregate: the child may give the
        # VCPU, but the root (in no aggregate, nor is its root) may not
        # give the MEMORY_MB, so the nested tree has no candidate.
        self.assertEqual([{self.computes[1]}],
                         [set(r['allocations'])
                          for r in body['allocation_requests']])

    def test_dense_batch_longer_than_an_in_list_is_still_a_range(self):
        # The scheduler's batch (1,000 of 10,000 trees) is longer than an
        # IN list may be, and dense: one range, not every tree's rows.
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.placement.objects.tree_reads.IN_LIST_MAX', 2))
        body, statements = self._get('resources=VCPU:1&limit=4')
        self.assertEqual(set(self.computes[:4]),
                         set(body['provider_summaries']))
        reads = self._tree_reads(statements)
        # The providers are read with the root query: the inventories and
        # traits by the range.
        self.assertEqual(2, len(reads), reads)
        self.assertTrue(all('BETWEEN' in s for s in reads), reads)

    def test_sparse_batch_is_read_as_an_in_list(self):
        # Roots 1 and 5: a range would read 5 trees for 2.
        self._with_trait([0, 4])
        body, statements = self._get(
            'resources=VCPU:1&required=%s&limit=3' % TRAIT)
        self.assertEqual({self.computes[0], self.computes[4]},
                         set(body['provider_summaries']))
        reads = self._tree_reads(statements)
        # The providers are read with the root query, the inventories and
        # traits of the 2 trees by root id (SQLite's inventories by id
        # list).
        self.assertEqual(2, len(reads), reads)
        self.assertFalse(any('BETWEEN' in s for s in reads), reads)

    def test_one_required_trait_is_a_semi_join(self):
        # One required trait needs no grouping of the tree's traits: the
        # root query's trait subquery is a plain IN; two (each on some
        # provider of the tree) group them by root.
        def trait_groups(statements):
            return [s for s in statements if 'root.id' in s and
                    'HAVING max(CASE WHEN (resource_provider_traits' in s]

        self._with_trait([0, 1])
        body, statements = self._get('resources=VCPU:1&required=%s' % TRAIT)
        self.assertEqual({self.computes[0], self.computes[1]},
                         set(body['provider_summaries']))
        self.assertEqual([], trait_groups(statements))
        body, statements = self._get(
            'resources=VCPU:1&required=%s,HW_CPU_X86_SSE2' % TRAIT)
        self.assertEqual([], body['allocation_requests'])
        self.assertEqual(1, len(trait_groups(statements)))

    def test_summaries_look_up_only_unrequested_names(self):
        def class_names_lookups(statements):
            return [s for s in statements
                    if 'resource_classes.id IN' in s]

        body, statements = self._get('resources=VCPU:1,MEMORY_MB:64')
        self.assertEqual(5, len(body['allocation_requests']))
        self.assertEqual([], class_names_lookups(statements))
        # From 1.27 summaries list every class: MEMORY_MB, not requested,
        # is looked up and named.
        body, statements = self._get('resources=VCPU:1')
        self.assertEqual(1, len(class_names_lookups(statements)))
        summary = body['provider_summaries'][self.computes[0]]
        self.assertEqual({'VCPU': {'capacity': 8, 'used': 0},
                          'MEMORY_MB': {'capacity': 1024, 'used': 0}},
                         summary['resources'])

    def _name_lookups(self, statements):
        return [s for s in statements
                if 'resource_classes.name IN' in s or 'traits.name IN' in s]

    def test_standard_names_are_not_looked_up(self):
        # Standard classes and traits keep the ids they were synced with:
        # remembered, they are not read again; the one lookup statement
        # left finds the sharing providers.
        self._with_trait([0])
        body, statements = self._get(
            'resources=VCPU:1,MEMORY_MB:64&required=%s&limit=50' % TRAIT)
        self.assertEqual([self.computes[0]], list(body['provider_summaries']))
        self.assertEqual([], self._name_lookups(statements))
        body, statements = self._get('resources=VCPU:1&limit=50')
        self.assertEqual(5, len(body['allocation_requests']))
        self.assertEqual([], self._name_lookups(statements))

    def test_custom_names_are_resolved_in_one_statement(self):
        self._call('PUT', '/resource_classes/CUSTOM_GOLD')
        self._call('PUT', '/traits/CUSTOM_FAST')
        self._call('POST', '/resource_providers/%s/inventories'
                   % self.computes[0],
                   {'resource_provider_generation': 1,
                    'resource_class': 'CUSTOM_GOLD', 'total': 2})
        self._call('PUT', '/resource_providers/%s/traits' % self.computes[0],
                   {'resource_provider_generation': 2,
                    'traits': ['CUSTOM_FAST', TRAIT]})
        body, statements = self._get(
            'resources=VCPU:1,CUSTOM_GOLD:1&required=CUSTOM_FAST,%s'
            '&limit=50' % TRAIT)
        self.assertEqual([self.computes[0]], list(body['provider_summaries']))
        lookups = self._name_lookups(statements)
        self.assertEqual(1, len(lookups), lookups)
        self.assertIn('resource_classes.name IN', lookups[0])
        self.assertIn('traits.name IN', lookups[0])

    def test_summaries_name_standard_traits_without_a_lookup(self):
        def trait_names_lookups(statements):
            return [s for s in statements if 'traits.id IN' in s]

        self._call('PUT', '/traits/CUSTOM_FAST')
        self._with_trait([0])
        body, statements = self._get('resources=VCPU:1&limit=50')
        self.assertEqual([TRAIT], body['provider_summaries'][
            self.computes[0]]['traits'])
        self.assertEqual([], trait_names_lookups(statements))
        # A custom trait is looked up, by itself.
        self._call('PUT', '/resource_providers/%s/traits' % self.computes[1],
                   {'resource_provider_generation': 1,
                    'traits': ['CUSTOM_FAST', TRAIT]})
        body, statements = self._get('resources=VCPU:1&limit=50')
        self.assertEqual([TRAIT, 'CUSTOM_FAST'], body['provider_summaries'][
            self.computes[1]]['traits'])
        lookups = trait_names_lookups(statements)
        self.assertEqual(1, len(lookups), lookups)

    def test_unknown_class_is_reported_before_unknown_trait(self):
        request = webob.Request.blank(
            '/allocation_candidates?resources=CUSTOM_NOPE:1'
            '&required=CUSTOM_NOTRAIT', headers=self.headers)
        response = request.get_response(self.app)
        self.assertEqual(400, response.status_int)
        detail = response.json['errors'][0]['detail']
        self.assertIn('Invalid resource class in resources parameter: '
                      'No such resource class CUSTOM_NOPE.', detail)
        self.assertNotIn('CUSTOM_NOTRAIT', detail)
        request = webob.Request.blank(
            '/allocation_candidates?resources=VCPU:1'
            '&required=CUSTOM_NOTRAIT', headers=self.headers)
        response = request.get_response(self.app)
        self.assertEqual(400, response.status_int)
        self.assertIn('No such trait(s): CUSTOM_NOTRAIT.',
                      response.json['errors'][0]['detail'])

    def test_limited_request_statements(self):
        # One lookup (classes, traits, sharing providers), the providers
        # read with the root query as their filter, the inventories, the
        # traits; every class and trait is named already. (SQLite's BEGIN
        # is not counted: the MySQL driver sends none.) MariaDB packs the
        # providers with their usage, and the inventories with the
        # traits: three statements, five reads.
        self._with_trait([0])
        body, statements = self._get(
            'resources=VCPU:1,MEMORY_MB:64&required=%s&limit=50' % TRAIT)
        self.assertEqual(1, len(body['allocation_requests']))
        statements = [s for s in statements if s != 'BEGIN']
        self.assertEqual(3 if self.packs_reads else 4, len(statements),
                         statements)
        self.assertEqual(5 if self.packs_reads else 4,
                         len(self._reads(statements)), statements)

    def test_sharing_providers_come_with_the_names(self):
        disk = self._provider('disk', {'DISK_GB': 100})
        other = self._provider('other', {'IPV4_ADDRESS': 8})
        agg = str(uuid.uuid4())
        for rp in (disk, other):
            self._call('PUT', '/resource_providers/%s/traits' % rp,
                       {'resource_provider_generation': 1,
                        'traits': ['MISC_SHARES_VIA_AGGREGATE']})
        for rp, generation in ((disk, 2), (other, 2),
                               (self.computes[1], 1)):
            self._call('PUT', '/resource_providers/%s/aggregates' % rp,
                       {'resource_provider_generation': generation,
                        'aggregates': [agg]})
        body, statements = self._get('resources=VCPU:1,DISK_GB:10&limit=50')
        self.assertEqual({disk, self.computes[1]},
                         set(body['provider_summaries']))
        self.assertEqual(
            [], [s for s in statements
                 if s.startswith('SELECT DISTINCT resource_provider_traits')])
        # A sharing provider without a requested class is not read.
        body, _ = self._get('resources=VCPU:1&limit=50')
        self.assertEqual(set(self.computes), set(body['provider_summaries']))


class TestCandidateReadsMySQL(TestCandidateReads):
    """The same reads on MariaDB, where several are packed statements:
    run by every test run, so its expectations cannot go stale unseen."""

    database = 'mysql'
