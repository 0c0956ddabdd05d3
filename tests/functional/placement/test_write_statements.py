"""The writes a compute sends to register a node (PUT inventories, PUT
aggregates) and a claim (PUT /allocations) in few statements, and their
answers unchanged: what the transaction wrote is not read back.

On SQLite, or on MariaDB with ``NOVA_LITE_PLACEMENT_TEST_DB=mysql``.
"""

import uuid

import sqlalchemy as sa
from sqlalchemy import orm as sa_orm

from tests.functional.placement import statement_case

INVENTORY = {'VCPU': {'total': 4, 'allocation_ratio': 1},
             'MEMORY_MB': {'total': 2048, 'max_unit': 1024},
             'DISK_GB': {'total': 100, 'reserved': 10}}
AGGREGATES = [str(uuid.uuid4()), str(uuid.uuid4())]


class TestRegistrationWrites(statement_case.PlacementStatementTestCase):

    microversion = '1.36'

    def setUp(self):
        super().setUp()
        self.rp = self._new_provider()
        self.count_statements()

    def _path(self, what):
        return '/resource_providers/%s/%s' % (self.rp, what)

    def test_inventories_of_a_new_provider(self):
        answer = self._call('PUT', self._path('inventories'), {
            'resource_provider_generation': 0, 'inventories': INVENTORY})
        # the provider with its inventories and their usage, bump, one
        # INSERT of the three rows (the standard classes' ids are known);
        # nothing read back: the answer is the values sent, defaults filled
        # in, as Placement's
        self.assertEqual(3, len(self.statements), self.statements)
        self.assertEqual(1, answer['resource_provider_generation'])
        self.assertEqual(1.0, answer['inventories']['VCPU'][
            'allocation_ratio'])
        self.assertEqual(answer, self._call('GET', self._path('inventories')))

    def test_aggregates_in_one_transaction(self):
        answer = self._call('PUT', self._path('aggregates'), {
            'resource_provider_generation': 0, 'aggregates': AGGREGATES})
        # bump (by uuid), the provider's id, links and the aggregates
        # known in one read, two new aggregates, one INSERT of the links;
        # no DELETE: nothing goes (on InnoDB an empty DELETE locks the
        # index's gap, and parallel loaders' INSERTs deadlocked there)
        self.assertEqual(5, len(self.statements), self.statements)
        self.assertFalse([s for s in self.statements
                          if s.startswith('DELETE')], self.statements)
        self.assertEqual({'aggregates': AGGREGATES,
                          'resource_provider_generation': 1}, answer)
        self.statements[:] = []
        self._call('PUT', self._path('aggregates'), {
            'resource_provider_generation': 1, 'aggregates': AGGREGATES})
        # the same aggregates again: bump and read, nothing to write
        self.assertEqual(2, len(self.statements), self.statements)
        got = self._call('GET', self._path('aggregates'))
        self.assertEqual(sorted(AGGREGATES), sorted(got['aggregates']))
        self.assertEqual(2, got['resource_provider_generation'])
        # one goes, one comes: a DELETE of the one, an INSERT of the other
        other = str(uuid.uuid4())
        self.statements[:] = []
        self._call('PUT', self._path('aggregates'), {
            'resource_provider_generation': 2,
            'aggregates': [AGGREGATES[0], other]})
        self.assertEqual(5, len(self.statements), self.statements)
        got = self._call('GET', self._path('aggregates'))
        self.assertEqual(sorted([AGGREGATES[0], other]),
                         sorted(got['aggregates']))
        self._call('PUT', self._path('aggregates'), {
            'resource_provider_generation': 3, 'aggregates': []})
        self.assertEqual([], self._call('GET', self._path('aggregates'))[
            'aggregates'])

    def test_aggregates_missing_provider_before_bad_body(self):
        path = '/resource_providers/%s/aggregates' % uuid.uuid4()
        self._call('PUT', path, {'aggregates': 'nope'}, status=404)
        self._call('PUT', path, {'resource_provider_generation': 0,
                                 'aggregates': []}, status=404)
        self._call('PUT', self._path('aggregates'), {'aggregates': 'nope'},
                   status=400)
        answer = self._call('PUT', self._path('aggregates'), {
            'resource_provider_generation': 3, 'aggregates': []},
            status=409)
        self.assertEqual('placement.concurrent_update',
                         answer['errors'][0]['code'])
        # a generation no provider can have: 404 before 409, as above
        self._call('PUT', path, {'resource_provider_generation': -1,
                                 'aggregates': []}, status=404)
        self._call('PUT', self._path('aggregates'), {
            'resource_provider_generation': -1, 'aggregates': []},
            status=409)

    def test_aggregates_before_1_19(self):
        self.headers['OpenStack-API-Version'] = 'placement 1.18'
        self.assertEqual(AGGREGATES, self._call(
            'PUT', self._path('aggregates'), AGGREGATES)['aggregates'])
        self._call('PUT', self._path('aggregates'), AGGREGATES[:1])
        self.headers['OpenStack-API-Version'] = 'placement 1.19'
        got = self._call('GET', self._path('aggregates'))
        # no generation before 1.19: it stays
        self.assertEqual({'aggregates': AGGREGATES[:1],
                          'resource_provider_generation': 0}, got)
        self._call('PUT', '/resource_providers/%s/aggregates'
                   % uuid.uuid4(), {'resource_provider_generation': 0,
                                    'aggregates': []}, status=404)


class TestClaimWrites(statement_case.PlacementStatementTestCase):

    microversion = '1.36'

    def setUp(self):
        super().setUp()
        self.rp = self._new_provider()
        self._call('PUT', '/resource_providers/%s/inventories' % self.rp, {
            'resource_provider_generation': 0, 'inventories': INVENTORY})
        self.project, self.user = str(uuid.uuid4()), str(uuid.uuid4())
        self.count_statements()

    def _claim(self, consumer, resources, generation=None, status=None):
        return self._call('PUT', '/allocations/%s' % consumer, {
            'allocations': {self.rp: {'resources': resources}},
            'project_id': self.project, 'user_id': self.user,
            'consumer_generation': generation}, status=status)

    def test_claim_statements(self):
        first, second = str(uuid.uuid4()), str(uuid.uuid4())
        self._claim(first, {'VCPU': 1, 'MEMORY_MB': 512})
        self.statements[:] = []
        self._claim(second, {'VCPU': 1, 'MEMORY_MB': 512})
        # consumer with its project and user ids, provider, insert,
        # consumer, inventories with usage, bump (the standard classes'
        # ids known; a new consumer has no allocations to delete)
        self.assertEqual(6, len(self.statements), self.statements)
        for consumer in (first, second):
            answer = self._call('GET', '/allocations/%s' % consumer)
            self.assertEqual((self.project, self.user, 1),
                             (answer['project_id'], answer['user_id'],
                              answer['consumer_generation']))
        # an existing consumer: its old allocations are deleted
        self.statements[:] = []
        self._claim(second, {'VCPU': 2}, generation=1)
        self.assertEqual(7, len(self.statements), self.statements)
        # another user of the same project: its row is created
        self.user = str(uuid.uuid4())
        self._claim(first, {'VCPU': 2}, generation=1)
        answer = self._call('GET', '/allocations/%s' % first)
        self.assertEqual((self.project, self.user, 2),
                         (answer['project_id'], answer['user_id'],
                          answer['consumer_generation']))

    def test_capacity_counts_others_not_own_old_allocations(self):
        first, second = str(uuid.uuid4()), str(uuid.uuid4())
        self._claim(first, {'VCPU': 3})
        answer = self._claim(second, {'VCPU': 2}, status=409)
        self.assertEqual('placement.undefined_code',
                         answer['errors'][0]['code'])
        # the consumer's own 3 are replaced, not added to
        self._claim(first, {'VCPU': 4, 'DISK_GB': 90}, generation=1)
        self._claim(second, {'VCPU': 1}, status=409)
        self._claim(second, {'DISK_GB': 1}, status=409)
        self._claim(second, {'MEMORY_MB': 1024})
        usages = self._call('GET', '/resource_providers/%s/usages' % self.rp)
        self.assertEqual({'VCPU': 4, 'DISK_GB': 90, 'MEMORY_MB': 1024},
                         usages['usages'])

    def test_inventories_of_a_provider_in_use(self):
        self._claim(str(uuid.uuid4()), {'VCPU': 3, 'MEMORY_MB': 512})
        path = '/resource_providers/%s/inventories' % self.rp
        generation = self._call('GET', path)['resource_provider_generation']
        # a class in use cannot go
        answer = self._call('PUT', path, {
            'resource_provider_generation': generation,
            'inventories': {'VCPU': {'total': 4}}}, status=409)
        self.assertEqual('placement.inventory.inuse',
                         answer['errors'][0]['code'])
        self.assertIn('MEMORY_MB', answer['errors'][0]['detail'])
        # below its usage it may (Placement warns, the allocations stay)
        self.statements[:] = []
        answer = self._call('PUT', path, {
            'resource_provider_generation': generation,
            'inventories': dict(INVENTORY, VCPU={'total': 2})})
        # the provider with its inventories and usage, bump, three updates
        self.assertEqual(5, len(self.statements), self.statements)
        self.assertEqual(2, answer['inventories']['VCPU']['total'])
        usages = self._call('GET', '/resource_providers/%s/usages' % self.rp)
        self.assertEqual({'VCPU': 3, 'MEMORY_MB': 512, 'DISK_GB': 0},
                         usages['usages'])

    def test_two_new_consumers_of_a_new_project(self):
        # The project and user are created by the first consumer's write:
        # the second one's, read before it, must not insert them again.
        consumers = [str(uuid.uuid4()), str(uuid.uuid4())]
        self._call('POST', '/allocations', {
            consumer: {'allocations': {self.rp: {'resources': {'VCPU': 1}}},
                       'project_id': self.project, 'user_id': self.user,
                       'consumer_generation': None}
            for consumer in consumers}, status=204)
        for consumer in consumers:
            answer = self._call('GET', '/allocations/%s' % consumer)
            self.assertEqual((self.project, self.user, 1),
                             (answer['project_id'], answer['user_id'],
                              answer['consumer_generation']))


class TestWritesOnAConnection(statement_case.PlacementStatementTestCase):
    """perfload's loading writes (and a claim) run on a connection of
    their own: no ORM session is begun for them (its set-up and commit
    were about a third of such a transaction's CPU); what they write
    and answer is unchanged (the statement counts above)."""

    microversion = '1.36'

    def setUp(self):
        super().setUp()
        self.sessions = []
        sa.event.listen(sa_orm.Session, 'after_begin', self._begun)
        self.addCleanup(sa.event.remove, sa_orm.Session, 'after_begin',
                        self._begun)

    def _begun(self, session, transaction, connection):
        self.sessions.append(session)

    def test_loading_a_provider_begins_no_orm_session(self):
        rp = str(uuid.uuid4())
        self._call('POST', '/resource_providers', {'name': 'cn', 'uuid': rp})
        self.sessions.clear()
        self.count_statements()
        path = '/resource_providers/%s/' % rp
        answer = self._call('PUT', path + 'inventories', {
            'resource_provider_generation': 0, 'inventories': INVENTORY})
        answer = self._call('PUT', path + 'aggregates', {
            'resource_provider_generation': answer[
                'resource_provider_generation'], 'aggregates': AGGREGATES})
        answer = self._call('PUT', path + 'traits', {
            'resource_provider_generation': answer[
                'resource_provider_generation'],
            'traits': ['HW_CPU_X86_AVX2']})
        self._call('POST', '/resource_providers', {'name': 'cn2'})
        self.assertEqual([], self.sessions)
        self.assertEqual(3, answer['resource_provider_generation'])
        self.assertTrue(self.statements)
        self.assertEqual(['HW_CPU_X86_AVX2'],
                         self._call('GET', path + 'traits')['traits'])
        self.assertEqual(sorted(AGGREGATES), sorted(self._call(
            'GET', path + 'aggregates')['aggregates']))

    def test_a_claim_begins_no_orm_session(self):
        rp = self._provider('cn', {'VCPU': 8})
        self.sessions.clear()
        consumer = str(uuid.uuid4())
        self._call('PUT', '/allocations/' + consumer, {
            'allocations': {rp: {'resources': {'VCPU': 2}}},
            'project_id': str(uuid.uuid4()), 'user_id': str(uuid.uuid4()),
            'consumer_generation': None}, status=204)
        self.assertEqual([], self.sessions)
        self.assertEqual({'VCPU': 2}, self._call(
            'GET', '/resource_providers/%s/usages' % rp)['usages'])
