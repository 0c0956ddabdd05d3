"""Database sessions on SQLite files: WAL, queued writers, retried locks."""

import os
import threading
import time

import fixtures
from oslo_db import exception as db_exc
import sqlalchemy as sa
import testtools

from nova_lite import context as nl_context
from nova_lite.db import session


class TestSQLiteFileSessions(testtools.TestCase):

    def setUp(self):
        super().setUp()
        tmp = self.useFixture(fixtures.TempDir()).path
        self.url = 'sqlite:///' + os.path.join(tmp, 'test.sqlite')
        self.cm = session.create_context_manager(self.url)
        self.addCleanup(self.cm.dispose_pool)
        self.ctx = nl_context.get_admin_context()
        with self.cm.writer.using(self.ctx) as s:
            s.execute(sa.text('CREATE TABLE counter (n INTEGER)'))

    def test_file_database_runs_in_wal_mode(self):
        with self.cm.reader.using(self.ctx) as s:
            mode = s.execute(sa.text('PRAGMA journal_mode')).scalar()
        self.assertEqual('wal', mode)

    def test_concurrent_read_modify_write_transactions_serialize(self):
        """Each writer reads the count and inserts it: no two see the same.

        With deferred transactions two writers could read the same count
        (or fail with "database is locked" on upgrade); BEGIN IMMEDIATE
        makes them queue, so the inserted values are all distinct.
        """
        errors = []

        @session.retry_on_transient
        def insert_next(context):
            with self.cm.writer.using(context) as s:
                n = s.execute(sa.text('SELECT COUNT(*) FROM counter')).scalar()
                s.execute(sa.text('INSERT INTO counter VALUES (:n)'), {'n': n})

        def worker():
            try:
                insert_next(nl_context.get_admin_context())
            except Exception as exc:  # noqa: BLE001 - collected for assert
                errors.append(exc)

        threads = [threading.Thread(target=worker) for _ in range(30)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual([], errors)
        with self.cm.reader.using(self.ctx) as s:
            total, distinct = s.execute(sa.text(
                'SELECT COUNT(*), COUNT(DISTINCT n) FROM counter')).one()
        self.assertEqual((30, 30), (total, distinct))

    def test_a_write_transaction_begins_once(self):
        # oslo.db's deferred BEGIN is not sent first and rolled back: one
        # BEGIN IMMEDIATE, the statement, the commit.
        sent = []

        def record(conn, cursor, statement, *args):
            sent.append(statement)
        engine = self.cm.writer.get_engine()
        sa.event.listen(engine, 'before_cursor_execute', record)
        self.addCleanup(sa.event.remove, engine, 'before_cursor_execute',
                        record)
        with self.cm.writer.using(self.ctx) as s:
            s.execute(sa.text('INSERT INTO counter VALUES (1)'))
        self.assertEqual(['BEGIN IMMEDIATE', 'INSERT INTO counter VALUES (1)'],
                         sent)

    def test_retry_on_transient_retries_database_is_locked(self):
        attempts = []

        @session.retry_on_transient
        def flaky():
            attempts.append(1)
            if len(attempts) < 3:
                raise sa.exc.OperationalError(
                    'INSERT', {}, Exception('database is locked'))
            return 'done'

        self.assertEqual('done', flaky())
        self.assertEqual(3, len(attempts))

    def test_after_lost_connection_in_attempts_after_a_lost_one(self):
        # A lost connection leaves its COMMIT in doubt for every later
        # attempt; a deadlock before it does not (it rolled back).
        self.useFixture(fixtures.MockPatchObject(
            session, 'FIRST_RETRY_INTERVAL', 0.001))
        errors = [db_exc.DBDeadlock('deadlock'),
                  db_exc.DBConnectionError('lost'),
                  db_exc.DBDeadlock('deadlock')]
        seen = []

        @session.retry_on_transient
        def flaky():
            seen.append(session.after_lost_connection())
            if errors:
                raise errors.pop(0)
            return 'done'

        self.assertEqual('done', flaky())
        self.assertEqual([False, False, True, True], seen)
        self.assertFalse(session.after_lost_connection())

    def test_retries_end_at_the_callers_deadline(self):
        """A cell read whose caller stops waiting (a scatter-gather's
        cell timeout) gives up then, not after transient_retry_timeout."""
        attempts = []

        @session.retry_on_transient
        def refused():
            attempts.append(1)
            if len(attempts) < 3:
                raise sa.exc.OperationalError(
                    'SELECT', {}, Exception('database is locked'))
            return 'answered'

        with session.retries_until(time.monotonic()):
            self.assertRaises(sa.exc.OperationalError, refused)
        self.assertEqual(1, len(attempts))
        # Outside the caller's deadline the budget is the usual one.
        self.assertEqual('answered', refused())

    def test_retry_on_transient_does_not_retry_other_errors(self):
        attempts = []

        @session.retry_on_transient
        def broken():
            attempts.append(1)
            raise ValueError('not transient')

        self.assertRaises(ValueError, broken)
        self.assertEqual(1, len(attempts))


class TestContextSessionInConnectionMode(testtools.TestCase):
    """``context.session`` in a transaction begun in connection mode (as
    placement's writers are) is its connection, which runs the same
    statements; a session-mode transaction still gives its session."""

    def setUp(self):
        super().setUp()
        tmp = self.useFixture(fixtures.TempDir()).path
        self.cm = session.create_context_manager(
            'sqlite:///' + os.path.join(tmp, 'test.sqlite'))
        self.addCleanup(self.cm.dispose_pool)
        self.ctx = nl_context.get_admin_context()

    def test_connection_mode_session_is_the_connection(self):
        with self.cm.writer.connection.using(self.ctx) as connection:
            self.assertIs(connection, self.ctx.session)
            self.ctx.session.execute(sa.text('CREATE TABLE t (n INTEGER)'))
            self.ctx.session.execute(sa.text('INSERT INTO t VALUES (:n)'),
                                     [{'n': 1}, {'n': 2}])
        with self.cm.reader.using(self.ctx) as s:
            self.assertIsInstance(self.ctx.session, sa.orm.Session)
            self.assertIs(s, self.ctx.session)
            self.assertEqual(3, s.execute(sa.text(
                'SELECT SUM(n) FROM t')).scalar())

    def test_outside_a_transaction_it_still_raises(self):
        from oslo_db import exception as db_exc
        self.assertRaises(db_exc.NoEngineContextEstablished,
                          getattr, self.ctx, 'session')
