"""PUT /resource_providers/{uuid}/traits: few statements, and Placement's
answers (a replace, 409 before 400, nothing changed by a refused write).

On SQLite, or on MariaDB with ``NOVA_LITE_PLACEMENT_TEST_DB=mysql``.
"""

import uuid

from tests.functional.placement import statement_case


class TestProviderTraitWrites(statement_case.PlacementStatementTestCase):

    microversion = '1.23'

    def setUp(self):
        super().setUp()
        self.rp = self._new_provider()
        self._call('PUT', '/traits/CUSTOM_A')
        self.count_statements()

    def _put(self, generation, traits, status=None):
        return self._call('PUT', '/resource_providers/%s/traits' % self.rp,
                          {'resource_provider_generation': generation,
                           'traits': traits}, status)

    def _get(self):
        return self._call('GET', '/resource_providers/%s/traits' % self.rp)

    def test_new_provider_is_three_statements(self):
        answer = self._put(0, ['COMPUTE_NODE', 'HW_CPU_X86_AVX2', 'CUSTOM_A'])
        # read the provider with its traits, bump, insert by name
        self.assertEqual(3, len(self.statements), self.statements)
        self.assertEqual({'traits': ['COMPUTE_NODE', 'CUSTOM_A',
                                     'HW_CPU_X86_AVX2'],
                          'resource_provider_generation': 1}, answer)
        self.assertEqual(answer, self._get())

    def test_replace_removes_and_adds(self):
        self._put(0, ['COMPUTE_NODE', 'HW_CPU_X86_AVX2'])
        answer = self._put(1, ['HW_CPU_X86_AVX2', 'CUSTOM_A'])
        self.assertEqual({'traits': ['CUSTOM_A', 'HW_CPU_X86_AVX2'],
                          'resource_provider_generation': 2}, answer)
        self.assertEqual(answer, self._get())
        self.assertEqual({'traits': [], 'resource_provider_generation': 3},
                         self._put(2, []))
        self.assertEqual({'traits': [], 'resource_provider_generation': 3},
                         self._get())

    def test_unknown_trait_changes_nothing(self):
        self._put(0, ['COMPUTE_NODE', 'CUSTOM_A'])
        answer = self._put(1, ['CUSTOM_NOPE', 'HW_CPU_X86_AVX2',
                               'CUSTOM_ALSO_NOPE'], status=400)
        self.assertIn('No such trait CUSTOM_ALSO_NOPE, CUSTOM_NOPE',
                      answer['errors'][0]['detail'])
        # the removal and the known addition were rolled back
        self.assertEqual({'traits': ['COMPUTE_NODE', 'CUSTOM_A'],
                          'resource_provider_generation': 1}, self._get())

    def test_stale_generation_is_409_before_unknown_trait(self):
        answer = self._put(5, ['CUSTOM_NOPE'], status=409)
        self.assertEqual('placement.concurrent_update',
                         answer['errors'][0]['code'])

    def test_same_set_keeps_generation(self):
        self._put(0, ['COMPUTE_NODE'])
        self.statements[:] = []
        self.assertEqual({'traits': ['COMPUTE_NODE'],
                          'resource_provider_generation': 1},
                         self._put(1, ['COMPUTE_NODE']))
        self.assertEqual(1, len(self.statements), self.statements)

    def test_missing_provider_is_404(self):
        self._call('PUT', '/resource_providers/%s/traits' % uuid.uuid4(),
                   {'resource_provider_generation': 0, 'traits': []},
                   status=404)
