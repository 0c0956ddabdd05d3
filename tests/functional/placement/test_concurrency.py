"""Concurrent claims and inventory updates against a real placement.

A real ``nova-lite-placement`` (gunicorn, several worker processes) on
SQLite (WAL, busy timeout, retried transactions) and on MariaDB. 50
threads race over HTTP:

* claims of one VCPU each against a provider with room for 20: exactly 20
  win (204), every loser gets a 409, never a 500, and the final usage is
  the sum of the winning claims;
* inventory updates all sent with the same provider generation: exactly
  one wins, the others get 409 ``placement.concurrent_update``.
"""

import collections
import concurrent.futures
import threading
import uuid

import fixtures
import requests
import testtools

from tests import db_fixtures
from tests.functional.placement import server

CLAIMERS = 50
CAPACITY = 20
HEADERS = {'X-Auth-Token': 'admin', 'Content-Type': 'application/json',
           'OpenStack-API-Version': 'placement 1.39'}


class _RaceServer(fixtures.Fixture):
    """A placement server and its database, shared by a test class."""

    def __init__(self, database, workers):
        super().__init__()
        self.database = database
        self.workers = workers

    def _setUp(self):
        url = self.useFixture(self.database).url
        self.placement = self.useFixture(
            server.PlacementServer(url, workers=self.workers))


class _ConcurrencyChecks:
    """Each test races over a provider of its own, so the tests of a class
    share one server (started at the first test, stopped after the last):
    a several-worker server start, and on MariaDB a schema sync, per test
    was most of the time of these tests."""

    workers = 4
    race_server = None

    def _database(self):
        """The fixture of the shared server's database."""
        raise NotImplementedError

    def _require(self):
        """Skip (or fail, in CI) without what the database needs."""

    def setUp(self):
        super().setUp()
        self._require()
        cls = type(self)
        # Own attribute only: each backend's class has its own server.
        if vars(cls).get('race_server') is None:
            shared = _RaceServer(self._database(), self.workers)
            shared.setUp()
            cls.race_server = shared
        self.placement = cls.race_server.placement
        self.session = requests.Session()
        self.session.headers.update(HEADERS)
        self.rp_uuid = str(uuid.uuid4())
        self._call('POST', '/resource_providers',
                   {'name': 'race-rp-' + self.rp_uuid, 'uuid': self.rp_uuid},
                   200)
        self._call('PUT', '/resource_providers/%s/inventories' % self.rp_uuid,
                   {'resource_provider_generation': 0,
                    'inventories': {'VCPU': {'total': CAPACITY}}}, 200)

    @classmethod
    def tearDownClass(cls):
        shared = vars(cls).get('race_server')
        cls.race_server = None
        if shared is not None:
            shared.cleanUp()
        super().tearDownClass()

    def _call(self, method, path, body=None, expected=None):
        response = requests.request(method, self.placement.endpoint + path,
                                    json=body, headers=HEADERS, timeout=120)
        if expected is not None:
            self.assertEqual(expected, response.status_code, response.text)
        return response

    def _race(self, func, count=CLAIMERS):
        """Run func(i) in ``count`` threads released together."""
        barrier = threading.Barrier(count)

        def run(i):
            barrier.wait()
            return func(i)

        with concurrent.futures.ThreadPoolExecutor(count) as pool:
            return list(pool.map(run, range(count)))

    def _claim(self, i):
        response = self._call('PUT', '/allocations/%s' % uuid.uuid4(), {
            'allocations': {self.rp_uuid: {'resources': {'VCPU': 1}}},
            'project_id': 'p', 'user_id': 'u%d' % i,
            'consumer_generation': None, 'consumer_type': 'INSTANCE'})
        return response.status_code, response.text

    def test_parallel_claims_never_overallocate(self):
        results = self._race(self._claim)
        statuses = collections.Counter(status for status, _ in results)
        self.assertNotIn(500, statuses, results)
        self.assertEqual({204, 409}, set(statuses), results)
        self.assertEqual(CAPACITY, statuses[204], statuses)
        usages = self._call('GET', '/resource_providers/%s/usages'
                            % self.rp_uuid, expected=200).json()
        self.assertEqual(statuses[204], usages['usages']['VCPU'])
        allocations = self._call('GET', '/resource_providers/%s/allocations'
                                 % self.rp_uuid, expected=200).json()
        self.assertEqual(statuses[204], len(allocations['allocations']))

    def test_parallel_claims_of_one_new_consumer(self):
        # A new consumer's write deletes no old allocations: the row of
        # the consumer is what only one writer may insert.
        consumer = str(uuid.uuid4())

        def claim(i):
            response = self._call('PUT', '/allocations/%s' % consumer, {
                'allocations': {self.rp_uuid: {'resources': {'VCPU': 1}}},
                'project_id': 'p', 'user_id': 'u%d' % i,
                'consumer_generation': None, 'consumer_type': 'INSTANCE'})
            code = None
            if response.status_code == 409:
                code = response.json()['errors'][0]['code']
            return response.status_code, code

        results = self._race(claim, count=10)
        statuses = collections.Counter(status for status, _ in results)
        self.assertEqual({204: 1, 409: 9}, dict(statuses), results)
        self.assertEqual({'placement.concurrent_update'},
                         {code for status, code in results if status == 409})
        usages = self._call('GET', '/resource_providers/%s/usages'
                            % self.rp_uuid, expected=200).json()
        self.assertEqual({'VCPU': 1}, usages['usages'])
        held = self._call('GET', '/allocations/%s' % consumer,
                          expected=200).json()
        self.assertEqual(1, held['consumer_generation'])

    def _update_inventory(self, i):
        response = self._call(
            'PUT', '/resource_providers/%s/inventories' % self.rp_uuid,
            {'resource_provider_generation': 1,
             'inventories': {'VCPU': {'total': 100 + i}}})
        code = None
        if response.status_code == 409:
            code = response.json()['errors'][0]['code']
        return response.status_code, code

    def test_parallel_inventory_updates_respect_generation(self):
        results = self._race(self._update_inventory)
        statuses = collections.Counter(status for status, _ in results)
        self.assertEqual({200: 1, 409: CLAIMERS - 1}, dict(statuses),
                         results)
        self.assertEqual({'placement.concurrent_update'},
                         {code for status, code in results if status == 409})
        final = self._call('GET', '/resource_providers/%s/inventories'
                           % self.rp_uuid, expected=200).json()
        self.assertEqual(2, final['resource_provider_generation'])
        winner = [i for i, (status, _) in enumerate(results)
                  if status == 200][0]
        self.assertEqual(100 + winner, final['inventories']['VCPU']['total'])


class TestConcurrencySQLite(_ConcurrencyChecks, testtools.TestCase):
    def _database(self):
        return db_fixtures.SQLiteDatabase('placement.sqlite')


class TestConcurrencyMySQL(_ConcurrencyChecks, testtools.TestCase):
    def _require(self):
        db_fixtures.skip_or_fail_without_mysql(self)

    def _database(self):
        return db_fixtures.MySQLDatabase(self, prefix='nl_placement_race')
