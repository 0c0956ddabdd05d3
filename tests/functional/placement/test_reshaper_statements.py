"""POST /reshaper of many providers (a compute writing the inventories of
its nodes) in a number of statements that does not grow with them, with
each provider's own values written.

On SQLite, or on MariaDB with ``NOVA_LITE_PLACEMENT_TEST_DB=mysql``.
"""

import uuid

from tests.functional.placement import statement_case

NODES = 30


class TestBatchedReshape(statement_case.PlacementStatementTestCase):

    def setUp(self):
        super().setUp()
        self.rps = [str(uuid.uuid4()) for _ in range(NODES)]
        for i, rp in enumerate(self.rps):
            self._call('POST', '/resource_providers',
                       {'name': 'node%d' % i, 'uuid': rp})
        self.count_statements()

    def _reshape(self, generations, inventory_of):
        self.statements[:] = []
        self._call('POST', '/reshaper', {'allocations': {}, 'inventories': {
            rp: {'resource_provider_generation': generations[rp],
                 'inventories': inventory_of(i)}
            for i, rp in enumerate(self.rps)}})
        return [s for s in self.statements
                if 'inventories' in s or 'resource_providers' in s]

    def _inventories(self, rp):
        return self._call('GET', '/resource_providers/%s/inventories' % rp)

    def test_statements_do_not_grow_with_the_providers(self):
        def first(i):
            return {'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 4096}}
        written = self._reshape(dict.fromkeys(self.rps, 0), first)
        self.assertLess(len(written), 12, written[:12])
        # the same values again: one UPDATE per class, not per row
        generations = {rp: self._inventories(rp)[
            'resource_provider_generation'] for rp in self.rps}
        self.assertEqual({2}, set(generations.values()))
        written = self._reshape(generations, first)
        self.assertLess(len(written), 12, written[:12])

    def test_each_provider_gets_its_own_values(self):
        self._reshape(dict.fromkeys(self.rps, 0), lambda i: {
            'VCPU': {'total': 8}, 'DISK_GB': {'total': 100}})

        def second(i):
            return {'VCPU': {'total': 8 + i % 3, 'allocation_ratio': 4.0},
                    'MEMORY_MB': {'total': 1024 * (i + 1), 'reserved': 1}}
        self._reshape(dict.fromkeys(self.rps, 2), second)
        for i, rp in enumerate(self.rps):
            answer = self._inventories(rp)
            self.assertEqual(4, answer['resource_provider_generation'])
            inventories = answer['inventories']
            self.assertEqual(['MEMORY_MB', 'VCPU'], sorted(inventories))
            self.assertEqual((8 + i % 3, 4.0),
                             (inventories['VCPU']['total'],
                              inventories['VCPU']['allocation_ratio']))
            self.assertEqual((1024 * (i + 1), 1),
                             (inventories['MEMORY_MB']['total'],
                              inventories['MEMORY_MB']['reserved']))
