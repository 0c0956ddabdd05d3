"""A create whose COMMIT went through but whose answer was lost.

Behind a Galera cluster (or any proxy or VIP), the node a transaction
talks to can go away after its COMMIT was replicated and before the
client read the answer: the client sees a lost connection
(``DBConnectionError``), ``retry_on_transient`` runs the transaction
again, and its inserts meet the rows the first attempt stored. The
create must then go on with those rows (202, each server built once),
not fail with a conflict and leave its servers in BUILD with no build
cast.
"""

import fixtures
from oslo_db import exception as db_exc
import testtools

from nova_lite.api.compute import create
from nova_lite.db import session
from nova_lite import exception
from nova_lite import objects
from nova_lite.testing import integrated
from tests import db_fixtures
from tests.functional.api import test_create_db_restart

FLAVOR = {'flavorid': '1', 'name': 'f', 'vcpus': 1, 'memory_mb': 512,
          'root_gb': 1, 'extra_specs': {}}


def _answer_lost_after_first_commit(test, fail=None):
    """The first ``create._insert_all`` commits, then its caller sees a
    lost connection (``fail``, default DBConnectionError); the number of
    calls."""
    real = create._insert_all
    calls = []

    def insert_all(*args):
        calls.append(1)
        real(*args)
        if len(calls) == 1:
            raise fail or db_exc.DBConnectionError('Lost connection to '
                                                   'MySQL server')
    test.useFixture(fixtures.MockPatchObject(create, '_insert_all',
                                             insert_all))
    return calls


class StoreAllAfterLostCommitTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.MockPatchObject(
            session, 'FIRST_RETRY_INTERVAL', 0.001))
        url = self.useFixture(db_fixtures.SQLiteDatabase()).url
        self.ctx = self.useFixture(db_fixtures.APIDatabase(url)).context
        self.ctx.project_id, self.ctx.user_id = 'p', 'u'
        self.uuids = ['%08d-0000-4000-8000-000000000000' % n
                      for n in (1, 2)]
        self.build_requests = [create._build_request(
            self.ctx, uuid, {'uuid': uuid, 'display_name': 'vm'})
            for uuid in self.uuids]
        self.specs = [create.build_request_spec(
            self.ctx, uuid, FLAVOR, None, 2, None, {}, None)
            for uuid in self.uuids]

    def test_rows_stored_by_the_lost_commit_are_taken(self):
        calls = _answer_lost_after_first_commit(self)

        create._store_all(self.ctx, self.build_requests, self.specs, None)

        self.assertEqual(2, len(calls))
        self.assertEqual(2, len(objects.BuildRequestList.get_all(self.ctx)))
        for build_request in self.build_requests:
            stored = objects.BuildRequest.get_by_instance_uuid(
                self.ctx, build_request.instance_uuid)
            self.assertEqual(stored.id, build_request.id)
            self.assertIsNone(objects.InstanceMapping.get_by_instance_uuid(
                self.ctx, build_request.instance_uuid).cell_mapping)

    def test_a_conflict_after_a_deadlock_is_not_taken(self):
        # A deadlock rolls its transaction back: rows found by the retry
        # are not its own, the conflict stands.
        _answer_lost_after_first_commit(
            self, fail=db_exc.DBDeadlock('Deadlock found'))

        self.assertRaises(exception.Conflict, create._store_all, self.ctx,
                          self.build_requests, self.specs, None)

    def test_a_conflict_on_a_first_attempt_stands(self):
        create._store_all(self.ctx, self.build_requests, self.specs, None)
        again = [create._build_request(
            self.ctx, uuid, {'uuid': uuid, 'display_name': 'vm'})
            for uuid in self.uuids]

        self.assertRaises(exception.Conflict, create._store_all, self.ctx,
                          again, self.specs, None)


class CreateAfterLostCommitTestCase(testtools.TestCase):
    """POST /servers whose storing transaction committed and lost its
    answer: 202, and every server goes ACTIVE."""

    def test_post_servers_answers_202_and_builds(self):
        self.useFixture(fixtures.MockPatchObject(
            session, 'FIRST_RETRY_INTERVAL', 0.001))
        cloud = self.useFixture(integrated.IntegratedFixture())
        cloud.start_compute('host1')
        calls = _answer_lost_after_first_commit(self)
        test_create_db_restart.post_two_and_see_them_built(
            self, cloud, calls)
