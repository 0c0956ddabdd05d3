"""Round trips of a transaction on MariaDB.

A one-statement transaction through the enginefacade makes two round
trips: the statement and its COMMIT (or ROLLBACK), without the pool's
ping before it and reset after it. The reset still rolls back a
connection that comes back inside a transaction, and a connection the
server dropped is replaced by the retried transaction.
"""

import fixtures
from pymysql import connections as pymysql_connections
import sqlalchemy as sa
from sqlalchemy.engine import url as sa_url
import testtools

from nova_lite.db import session
from tests import db_fixtures


class RoundTripsTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        url = self.useFixture(db_fixtures.MySQLDatabase(self)).url
        name = sa_url.make_url(url).database
        admin = sa.create_engine(sa_url.make_url(url).set(database=''),
                                 poolclass=sa.pool.NullPool)
        with admin.begin() as conn:
            conn.exec_driver_sql('CREATE DATABASE `%s`' % name)
        admin.dispose()
        self.cm = session.create_context_manager(url)
        self.addCleanup(self.cm.dispose_pool)
        self.ctx = self.useFixture(db_fixtures.CellContext(url)).context
        self.ctx.db_connection = self.cm
        with self.cm.writer.using(self.ctx) as s:
            s.execute(sa.text('CREATE TABLE t (id INT PRIMARY KEY)'))
        self.commands = []
        real = pymysql_connections.Connection._execute_command

        def execute_command(con, command, sql):
            self.commands.append(sql)
            return real(con, command, sql)
        self.useFixture(fixtures.MonkeyPatch(
            'pymysql.connections.Connection._execute_command',
            execute_command))

    def _rows(self):
        with self.cm.reader.using(self.ctx) as s:
            return s.execute(sa.text('SELECT id FROM t')).scalars().all()

    def test_a_write_is_its_statement_and_commit(self):
        with self.cm.writer.using(self.ctx) as s:
            s.execute(sa.text('INSERT INTO t VALUES (1)'))
        self.assertEqual(2, len(self.commands), self.commands)

    def test_a_read_is_its_statement_and_rollback(self):
        self._rows()
        self.assertEqual(2, len(self.commands), self.commands)

    def _return_raw(self, statement):
        """Run ``statement`` on a pooled connection through the DB-API,
        then give the connection back without a commit or rollback."""
        raw = self.cm.writer.get_engine().raw_connection()
        cursor = raw.cursor()
        cursor.execute(statement)
        cursor.fetchall()
        cursor.close()
        raw.close()

    def test_a_connection_returned_in_a_transaction_is_rolled_back(self):
        self._return_raw('INSERT INTO t VALUES (2)')
        self.assertEqual([], self._rows())

    def test_a_snapshot_is_not_left_to_the_connections_next_user(self):
        # A read opens an InnoDB snapshot that no status flag shows.
        self._return_raw('SELECT COUNT(*) FROM t')
        other = sa.create_engine(self.cm.writer.get_engine().url,
                                 poolclass=sa.pool.NullPool)
        with other.begin() as conn:
            conn.exec_driver_sql('INSERT INTO t VALUES (4)')
        other.dispose()
        self.assertEqual([4], self._rows())

    def test_a_dropped_connection_is_replaced_by_the_retry(self):
        """What a MariaDB restart does to a pooled connection."""
        with self.cm.writer.using(self.ctx) as s:
            pooled = s.execute(sa.text('SELECT CONNECTION_ID()')).scalar()
        killer = sa.create_engine(self.cm.writer.get_engine().url,
                                  poolclass=sa.pool.NullPool)
        with killer.begin() as conn:
            conn.exec_driver_sql('KILL %d' % pooled)
        killer.dispose()

        @session.retry_on_transient
        def insert(context):
            with self.cm.writer.using(context) as s:
                s.execute(sa.text('INSERT INTO t VALUES (3)'))
        insert(self.ctx)
        self.assertEqual([3], self._rows())
