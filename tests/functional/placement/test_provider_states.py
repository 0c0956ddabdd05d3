"""GET /allocation_candidates after a provider changes: the inventories
and traits a worker remembers between searches
(``nova_lite.placement.objects.tree_reads.ProviderStates``) never answer for a
provider that changed since, whatever the change, and the usage is read
fresh even when nothing bumps a generation (a deleted allocation).

Each test searches once so that the providers are remembered, changes
something through the API, and searches again in the same process (the
same database engine, so the same remembered states). On SQLite, or on
MariaDB with ``NOVA_LITE_PLACEMENT_TEST_DB=mysql``.
"""

import uuid

from nova_lite.placement.objects import tree_reads
from tests.functional.placement import statement_case


class TestRememberedProviders(statement_case.PlacementStatementTestCase):

    microversion = '1.36'

    def _candidates(self, query):
        return self._call('GET', '/allocation_candidates?' + query)

    def _summary(self, query, rp):
        return self._candidates(query)['provider_summaries'].get(rp)

    def _generation(self, rp):
        return self._call('GET', '/resource_providers/%s' % rp)['generation']

    def _set_inventory(self, rp, inventory):
        self._call('PUT', '/resource_providers/%s/inventories' % rp,
                   {'resource_provider_generation': self._generation(rp),
                    'inventories': {rc: {'total': total}
                                    for rc, total in inventory.items()}})

    def _set_traits(self, rp, traits):
        self._call('PUT', '/resource_providers/%s/traits' % rp,
                   {'resource_provider_generation': self._generation(rp),
                    'traits': traits})

    def test_the_second_search_is_answered_from_the_states(self):
        rp = self._provider('cn1', {'VCPU': 8})
        first = self._candidates('resources=VCPU:1')
        sent = []

        def record(conn, cursor, statement, *args):
            sent.append(statement)
        self.assertEqual(first, self._call_watched(
            record, 'GET', '/allocation_candidates?resources=VCPU:1'))
        self.assertFalse([s for s in sent if 'FROM inventories' in s and
                          'sum(allocations.used)' in s], sent)
        self.assertEqual(8, first['provider_summaries'][rp]['resources'][
            'VCPU']['capacity'])

    def test_an_inventory_change_is_seen(self):
        rp = self._provider('cn1', {'VCPU': 8})
        self.assertEqual(8, self._summary('resources=VCPU:8', rp)[
            'resources']['VCPU']['capacity'])
        self._set_inventory(rp, {'VCPU': 4})
        self.assertEqual([], self._candidates(
            'resources=VCPU:8')['allocation_requests'])
        self.assertEqual(4, self._summary('resources=VCPU:4', rp)[
            'resources']['VCPU']['capacity'])

    def test_a_trait_change_is_seen(self):
        rp = self._provider('cn1', {'VCPU': 8})
        query = 'resources=VCPU:1&required=HW_CPU_X86_AVX2'
        self.assertEqual([], self._candidates(query)['allocation_requests'])
        self._set_traits(rp, ['HW_CPU_X86_AVX2'])
        self.assertEqual(['HW_CPU_X86_AVX2'],
                         self._summary(query, rp)['traits'])
        self._set_traits(rp, [])
        self.assertEqual([], self._candidates(query)['allocation_requests'])
        self.assertEqual([], self._summary('resources=VCPU:1', rp)['traits'])

    def test_usage_is_read_on_every_search(self):
        rp = self._provider('cn1', {'VCPU': 8})
        consumer = str(uuid.uuid4())
        self._call('PUT', '/allocations/%s' % consumer, {
            'allocations': {rp: {'resources': {'VCPU': 3}}},
            'project_id': str(uuid.uuid4()), 'user_id': str(uuid.uuid4()),
            'consumer_generation': None})
        self.assertEqual(3, self._summary('resources=VCPU:1', rp)[
            'resources']['VCPU']['used'])
        generation = self._generation(rp)
        # Deleting an allocation bumps no provider generation.
        self._call('DELETE', '/allocations/%s' % consumer)
        self.assertEqual(generation, self._generation(rp))
        self.assertEqual(0, self._summary('resources=VCPU:1', rp)[
            'resources']['VCPU']['used'])
        self.assertEqual(1, len(self._candidates(
            'resources=VCPU:8')['allocation_requests']))

    def test_a_change_among_known_providers_reads_that_one_again(self):
        # 3 changed of 30: a tenth, read apart (tree_reads.UNKNOWN_SHARE).
        rps = [self._provider('cn%d' % i, {'VCPU': 8}) for i in range(30)]
        query = 'resources=VCPU:2&required=!HW_CPU_X86_AVX2'
        self.assertEqual(30, len(self._candidates(query)[
            'allocation_requests']))
        self._call('PUT', '/allocations/%s' % uuid.uuid4(), {
            'allocations': {rps[0]: {'resources': {'VCPU': 7}}},
            'project_id': str(uuid.uuid4()), 'user_id': str(uuid.uuid4()),
            'consumer_generation': None})
        self._set_inventory(rps[1], {'VCPU': 1})
        self._set_traits(rps[2], ['HW_CPU_X86_AVX2'])
        sent = []

        def record(conn, cursor, statement, *args):
            sent.append(statement)
        warm = self._call_watched(record, 'GET',
                                  '/allocation_candidates?' + query)
        # Only the changed providers' inventories are read, by id (packed
        # on MariaDB: the statement starts SET STATEMENT).
        inventories = [s for s in sent if 'FROM inventories' in s
                       and 'sum(allocations.used)' in s]
        self.assertEqual(1, len(inventories), sent)
        self.assertIn('resource_providers.id IN', inventories[0])
        self.assertEqual(set(rps[3:]), set(warm['provider_summaries']))
        tree_reads.clear_states()
        self.assertEqual(self._candidates(query), warm)
        self.assertEqual(7, self._summary('resources=VCPU:1', rps[0])[
            'resources']['VCPU']['used'])

    def test_a_provider_made_again_with_its_uuid_is_a_new_one(self):
        rp = str(uuid.uuid4())
        for total in (8, 2):
            self._call('POST', '/resource_providers',
                       {'name': 'cn1', 'uuid': rp})
            self._set_inventory(rp, {'VCPU': total})
            self.assertEqual(1, self._generation(rp))
            self.assertEqual(total, self._summary('resources=VCPU:1', rp)[
                'resources']['VCPU']['capacity'])
            self._call('DELETE', '/resource_providers/%s' % rp)

    def test_a_provider_a_narrowed_search_skipped_is_read_when_needed(self):
        # A search that rules a provider out by its traits does not read
        # its inventories; the next search, which may use it, must.
        with_trait = self._provider('cn1', {'VCPU': 8})
        self._set_traits(with_trait, ['HW_CPU_X86_AVX2'])
        without = self._provider('cn2', {'VCPU': 4})
        self.assertEqual({with_trait}, set(self._candidates(
            'resources=VCPU:1&required=HW_CPU_X86_AVX2')[
                'provider_summaries']))
        summaries = self._candidates('resources=VCPU:1')['provider_summaries']
        self.assertEqual(4, summaries[without]['resources']['VCPU'][
            'capacity'])
        self.assertEqual({without}, set(self._candidates(
            'resources=VCPU:1&required=!HW_CPU_X86_AVX2')[
                'provider_summaries']))
