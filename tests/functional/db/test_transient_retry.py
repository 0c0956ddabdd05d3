"""Database faults: retried reads and writes, 503 after, no lock errors.

* a cell database that refuses connections for a while (a MariaDB
  restart) makes the conductor's reads and writes wait, and the build
  completes;
* the retries last ``[database] transient_retry_timeout`` (60 s by
  default: more than a 30 s restart), then the API answers 503 in Nova's
  fault format;
* placement on SQLite with 8 concurrent writing clients never answers
  "database is locked".
"""

import threading

import fixtures
from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import testtools

from nova_lite import conf as nl_conf
from nova_lite.db.api import api as api_db
from nova_lite.db.cell import instance_api
from nova_lite.db import session
from nova_lite.testing import integrated
from nova_lite.testing import placement_fixture
from nova_lite import testing

CONF = nl_conf.CONF


class DatabaseAway:
    """Makes the instance row reads of the cell databases fail as a
    database that refuses connections, while ``away`` is set; with
    ``back_after``, the database comes back after that many refused
    reads (counted, not timed: on a loaded machine a timer can end
    before the first read is made)."""

    def __init__(self, test):
        self.away = False
        self.back_after = None
        self.failures = 0
        real = instance_api._instance_get

        def instance_get(s, context, instance_uuid):
            if self.away:
                self.failures += 1
                if self.failures == self.back_after:
                    self.away = False
                raise db_exc.DBConnectionError('connection refused (test)')
            return real(s, context, instance_uuid)
        test.useFixture(fixtures.MonkeyPatch(
            'nova_lite.db.cell.instance_api._instance_get', instance_get))


class RetryTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(integrated.IntegratedFixture())
        self.cloud.start_compute('host1')
        self.db = DatabaseAway(self)

    def test_reads_wait_for_the_database_and_the_build_completes(self):
        self.db.away, self.db.back_after = True, 3
        server = self.cloud.create_server()
        self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.assertEqual(3, self.db.failures)

    def test_api_answers_503_once_the_retries_are_spent(self):
        """The API database away longer than the retries: 503 (a cell
        database away is a down cell, answered as Nova does)."""
        server = self.cloud.create_server()
        self.cloud.wait_for_server(server['id'], 'ACTIVE')
        self.cloud.conf.flags(transient_retry_timeout=1, group='database')
        real = api_db._instance_mapping_get
        away = {'on': True, 'failures': 0}

        def mapping_get(s, instance_uuid):
            if away['on']:
                away['failures'] += 1
                raise db_exc.DBConnectionError('connection refused (test)')
            return real(s, instance_uuid)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.db.api.api._instance_mapping_get', mapping_get))
        response = self.cloud.api.get('/servers/%s' % server['id'])
        self.assertEqual(503, response.status, response)
        self.assertEqual(503, response.body['serviceUnavailable']['code'])
        self.assertGreater(away['failures'], 1)
        away['on'] = False
        self.assertEqual(
            200, self.cloud.api.get('/servers/%s' % server['id']).status)


class RetryBudgetTestCase(testtools.TestCase):
    """The default budget outlasts a 30 s restart (the clock is faked)."""

    def test_default_budget_covers_a_30_second_restart(self):
        self.useFixture(testing.ConfFixture())
        clock = {'now': 0.0}
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.db.session.time.monotonic', lambda: clock['now']))

        def sleep(seconds):
            clock['now'] += seconds
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.db.session.time.sleep', sleep))

        @session.retry_on_transient
        def read(context):
            if clock['now'] < 35:
                raise db_exc.DBConnectionError('restarting')
            return 'row'
        self.assertEqual('row', read(None))
        self.assertGreaterEqual(CONF.database.transient_retry_timeout, 30)


class SQLiteWritersTestCase(testtools.TestCase):
    """8 clients writing to placement on one SQLite file at once."""

    THREADS = 8
    PROVIDERS = 40

    def test_no_database_is_locked(self):
        self.useFixture(testing.ConfFixture())
        placement = self.useFixture(placement_fixture.PlacementFixture())
        errors = []

        def load(index):
            client = placement.client_for('admin')
            try:
                for number in range(self.PROVIDERS):
                    uuid = uuidutils.generate_uuid()
                    client.create_provider('rp-%d-%d' % (index, number),
                                           uuid=uuid)
                    client.set_inventories(uuid, 0, {
                        'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 4096}})
            except Exception as error:  # noqa: BLE001 - collected below
                errors.append(error)

        threads = [threading.Thread(target=load, args=(i,))
                   for i in range(self.THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual([], [str(e) for e in errors])
        self.assertEqual(self.THREADS * self.PROVIDERS,
                         len(placement.client.list_providers()))
