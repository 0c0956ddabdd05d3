"""On MariaDB, GET /allocation_candidates reads its root ids and trees as
packed rows (``nova_lite.placement.objects.tree_statements``): one row per
read, whatever the number of providers, a tree's inventories, traits and
aggregates in one statement, and the same answer byte for byte as the
plain reads give, usage, nested trees, aggregates and unusual allocation
ratios included."""

import uuid

import fixtures
import sqlalchemy as sa
import testtools
import webob

from nova_lite.placement.objects import root_query
from nova_lite.placement.objects import tree_reads
from nova_lite.placement.objects import tree_statements
from tests.functional.placement import statement_case

AGG = str(uuid.uuid4())
QUERIES = (
    'resources=VCPU:1,MEMORY_MB:64',
    'resources=VCPU:1&limit=2',
    'resources=VCPU:1&member_of=%s' % AGG,
    'resources=VCPU:1&required=HW_CPU_X86_AVX2',
    'resources1=VCPU:1&resources2=MEMORY_MB:64&group_policy=none',
)


class TestPackedCandidateReads(statement_case.PlacementStatementTestCase):

    microversion = '1.36'
    database = 'mysql'

    def setUp(self):
        super().setUp()
        ratios = (1.5, 16.0, 1.1, 0.333333)
        self.computes = []
        for i, ratio in enumerate(ratios):
            rp = self._new_provider('cn%d' % i)
            self._inventory(rp, {'VCPU': (8, ratio), 'MEMORY_MB': (512, 1.0)})
            self.computes.append(rp)
        self.child = str(uuid.uuid4())
        self._call('POST', '/resource_providers',
                   {'name': 'numa0', 'uuid': self.child,
                    'parent_provider_uuid': self.computes[0]})
        self._inventory(self.child, {'VCPU': (4, 1.0)})
        self._call('PUT', '/resource_providers/%s/traits' % self.computes[1],
                   {'resource_provider_generation': 1,
                    'traits': ['HW_CPU_X86_AVX2']})
        self._call('PUT', '/resource_providers/%s/aggregates'
                   % self.computes[2],
                   {'resource_provider_generation': 1, 'aggregates': [AGG]})
        self._call('PUT', '/allocations/%s' % uuid.uuid4(), {
            'allocations': {self.computes[1]: {'resources': {'VCPU': 3}}},
            'project_id': str(uuid.uuid4()), 'user_id': str(uuid.uuid4()),
            'consumer_generation': None})

    def _inventory(self, rp, inventory):
        generation = self._call('GET', '/resource_providers/%s' % rp)[
            'generation']
        self._call('PUT', '/resource_providers/%s/inventories' % rp,
                   {'resource_provider_generation': generation,
                    'inventories': {
                        rc: {'total': total, 'allocation_ratio': ratio}
                        for rc, (total, ratio) in inventory.items()}})

    def _text(self, query, cold=True):
        """(body text, statements sent) of a candidates request; ``cold``:
        with no provider remembered (every tree read)."""
        if cold:
            tree_reads.clear_states()
        statements = []

        def record(conn, cursor, statement, *args):
            statements.append(statement)

        request = webob.Request.blank('/allocation_candidates?' + query,
                                      headers=self.headers)
        sa.event.listen(sa.engine.Engine, 'before_cursor_execute', record)
        try:
            response = request.get_response(self.app)
        finally:
            sa.event.remove(sa.engine.Engine, 'before_cursor_execute',
                            record)
        self.assertEqual(200, response.status_int, response.text)
        return response.text, statements

    def _plain(self, query):
        with fixtures.MonkeyPatch(
                'nova_lite.placement.objects.tree_reads.on_mariadb',
                lambda session: False):
            return self._text(query)

    def test_packed_reads_answer_as_the_plain_reads(self):
        for query in QUERIES:
            packed, sent = self._text(query)
            plain, plain_sent = self._plain(query)
            self.assertEqual(plain, packed, query)
            # The inventories, traits (and aggregates) in one statement.
            self.assertLess(len(sent), len(plain_sent), query)
            # Every read of roots and trees is packed: no statement
            # returns a row per provider.
            reads = [s for s in sent if 'resource_provider' in s
                     and 'traits.name' not in s and 'AS anon_1' not in s]
            self.assertTrue(reads, query)
            for statement in reads:
                self.assertIn('group_concat(', statement, query)

    def test_known_providers_read_their_usage_packed(self):
        for query in QUERIES:
            cold, cold_sent = self._text(query)
            warm, sent = self._text(query, cold=False)
            self.assertEqual(cold, warm, query)
            # Known providers need no inventories or traits read, and
            # their usage comes with the providers read.
            self.assertLess(len(sent), len(cold_sent), query)
            self.assertFalse([s for s in sent if 'FROM inventories' in s
                              and 'root.id' not in s], query)
            usage = [s for s in sent if 'sum(allocations.used)' in s]
            self.assertTrue(usage, query)
            for statement in usage:
                self.assertIn('group_concat(', statement, query)

    def test_a_limited_request_reads_its_first_trees_in_one_statement(self):
        query = 'resources=VCPU:1&limit=2'
        self._text(query)
        body, sent = self._text(query, cold=False)
        # The first trees' roots, providers and usage are one read.
        reads = [s for s in sent if 'FROM resource_providers' in s]
        self.assertEqual(1, len(reads), [s[:300] for s in sent])
        self.assertIn('FROM resource_providers AS root', reads[0])
        self.assertIn('sum(allocations.used)', reads[0])
        self.assertEqual(self._plain(query)[0], body)

    def test_a_statement_built_twice_runs_from_the_compiled_cache(self):
        # The statement builders are memoized, not locked: two threads
        # missing the memo at once build two equal statements, and the
        # one kept may not be the one SQLAlchemy compiled and cached. Its
        # runs then reuse the other's compiled form (a 500 on every such
        # request until the fault suite's lab was restarted).
        query = 'resources=VCPU:1&limit=2'
        expected, _sent = self._text(query)
        for _again in range(2):
            tree_statements.providers_and_usage_of.cache_clear()
            root_query.build.cache_clear()
            root_query.packed.cache_clear()
            self.assertEqual(expected, self._text(query, cold=False)[0])
            self.assertEqual(expected, self._text(query)[0])

    def test_requests_differing_only_in_their_limit(self):
        # Each limit above the first bite's minimum builds its own
        # statement, equal to the others but for the LIMIT's value,
        # which SQLAlchemy's cache key leaves out: the second limit ran
        # from the first one's compiled form (a 500 on every request
        # with a limit other than the first one seen).
        bodies = {limit: self._text('resources=VCPU:1&limit=%d' % limit,
                                    cold=False)[0]
                  for limit in (1000, 2000, 1000, 300)}
        self.assertEqual(1, len(set(bodies.values())))

    def test_a_ratio_concat_may_misprint_is_read_plainly(self):
        # MariaDB 10.11's CONCAT writes some floats around 1e-13 with a
        # digit fewer than the protocol sends them.
        rp = self._new_provider('tiny')
        self._inventory(rp, {'VCPU': (8, 6.34417e-13)})
        query = 'resources=VCPU:1'
        packed, sent = self._text(query)
        self.assertEqual(self._plain(query)[0], packed)
        inventories = [s for s in sent if 'FROM inventories' in s and
                       'root.id' not in s]
        self.assertEqual(['group_concat(' in s for s in inventories],
                         [True, False])


class TestUnpack(testtools.TestCase):

    def test_rows_as_packed(self):
        self.assertEqual([[1, 'a', None], [2, 'b', 3]],
                         tree_reads.unpack([(2, '[1,"a",null],[2,"b",3]')]))
        self.assertEqual([], tree_reads.unpack([(0, None)]))

    def test_anything_short_or_unparsable_is_none(self):
        for result in ([(3, '[1],[2]')], [(2, '[1],[2')], [(1, None)],
                       [(1, '[1,?]')]):
            self.assertIsNone(tree_reads.unpack(result), result)
