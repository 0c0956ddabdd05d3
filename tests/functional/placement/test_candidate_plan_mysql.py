"""MariaDB's plan for a limited GET /allocation_candidates: the capacity
check probed per root starts from the tree's own providers, so the query
stops after ``limit`` roots having read only their rows.

The check is a correlated subquery over providers and inventories. Left
to itself MariaDB drove it from the inventories table, scanning every
inventory row for every root probed: a limited query cost the square of
its limit (2.5 s of MariaDB time for the scheduler's limit=1,000 at
10,000 providers). The plan is what decides it, so the test reads
MariaDB's EXPLAIN of the statement the request sent.
"""

from tests.functional.placement import statement_case


class TestLimitedRootQueryPlan(statement_case.PlacementStatementTestCase):

    microversion = '1.36'
    database = 'mysql'

    def _root_query(self, query):
        """The body and the root query with the capacity probes (the
        limited search's bites after the first, which has none)."""
        sent = []

        def record(conn, cursor, statement, parameters, context, many):
            if ('FROM resource_providers AS root' in statement and
                    'inventories' in statement):
                sent.append((conn, statement, parameters))

        body = self._call_watched(record, 'GET',
                                  '/allocation_candidates?' + query)
        self.assertEqual(1, len(sent))
        return body, sent[0]

    def _explain(self, sent):
        conn, statement, parameters = sent
        with conn.engine.connect() as other:
            cursor = other.connection.dbapi_connection.cursor()
            cursor.execute('EXPLAIN ' + statement, parameters)
            columns = [c[0] for c in cursor.description]
            return [dict(zip(columns, row, strict=True))
                    for row in cursor.fetchall()]

    def test_capacity_probe_starts_from_the_trees_providers(self):
        # The first bite (16 trees, read without the probes) holds 6
        # candidates: the next is probed.
        for i in range(10):
            self._provider('disk%d' % i, {'DISK_GB': 100})
        computes = [self._provider('cn%d' % i,
                                   {'VCPU': 8, 'MEMORY_MB': 1024,
                                    'DISK_GB': 100})
                    for i in range(30)]
        body, sent = self._root_query(
            'resources=VCPU:1,MEMORY_MB:64,DISK_GB:1&limit=10')
        self.assertEqual(set(computes[:10]), set(body['provider_summaries']))
        plan = self._explain(sent)
        probes = [row for row in plan
                  if row['select_type'] == 'DEPENDENT SUBQUERY' and
                  row['table'].startswith(('inventories', 'resource_prov'))]
        # One probe per root for the three classes (providers, then
        # their inventories), not one per class.
        self.assertEqual(2, len(probes), plan)
        for row in probes:
            # Every inventory row is reached through its provider (an
            # index lookup), never by scanning the whole table.
            self.assertNotEqual('ALL', row['type'], plan)
        first = [row for row in probes if row['table'].startswith(
            'resource_providers')]
        self.assertEqual(1, len(first), plan)
        self.assertTrue(all(row['key'] == 'resource_providers_root_'
                            'provider_id_idx' for row in first), plan)
