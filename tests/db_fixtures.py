"""Test fixtures for real databases: SQLite files and throwaway MariaDB DBs.

``MySQLDatabase`` creates a uniquely named database on the local MariaDB
(``NOVA_LITE_MYSQL_URL``, default ``mysql+pymysql://root@127.0.0.1:3306``)
and drops it on cleanup; when the server does not answer the test is
skipped, or fails when ``NOVA_LITE_REQUIRE_SERVICES`` is set (CI).
``SyncedDatabase`` brings either kind to the API or cell schema, and
``CellContext`` gives an admin context targeted at a cell database.
"""

import os
import uuid

import fixtures
import sqlalchemy as sa
from sqlalchemy.engine import url as sa_url

from nova_lite import context as nl_context
from nova_lite.db import migration
from nova_lite.db import session

MYSQL_SERVER_URL = os.environ.get(
    'NOVA_LITE_MYSQL_URL', 'mysql+pymysql://root@127.0.0.1:3306')


def services_required():
    return os.environ.get('NOVA_LITE_REQUIRE_SERVICES', '') not in (
        '', '0', 'false', 'False')


def mysql_unavailable_reason():
    """None when the MariaDB server answers, else why not."""
    engine = sa.create_engine(MYSQL_SERVER_URL + '/',
                              poolclass=sa.pool.NullPool,
                              connect_args={'connect_timeout': 3})
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql('SELECT 1')
    except Exception as exc:  # noqa: BLE001 - any failure means "skip"
        return 'MariaDB at %s does not answer: %s' % (MYSQL_SERVER_URL, exc)
    finally:
        engine.dispose()
    return None


def bench_database():
    """The database a benchmark runs on.

    ``NOVA_LITE_BENCH_DATABASE`` when set; otherwise MariaDB when its
    server answers (the numbers that matter are MariaDB's), else SQLite.
    """
    wanted = os.environ.get('NOVA_LITE_BENCH_DATABASE')
    if wanted:
        return wanted
    return 'mysql' if mysql_unavailable_reason() is None else 'sqlite'


def skip_or_fail_without_mysql(test):
    reason = mysql_unavailable_reason()
    if reason is None:
        return
    if services_required():
        test.fail(reason)
    test.skipTest(reason)


def drop_mysql_database(url):
    url = sa_url.make_url(url)
    engine = sa.create_engine(url.set(database=''),
                              poolclass=sa.pool.NullPool)
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql('DROP DATABASE IF EXISTS `%s`' %
                                 url.database)
    finally:
        engine.dispose()


def random_mysql_url(prefix='nl_test'):
    return '%s/%s_%s' % (MYSQL_SERVER_URL, prefix, uuid.uuid4().hex[:10])


class MySQLDatabase(fixtures.Fixture):
    """A fresh, empty MariaDB database (not created until first use)."""

    def __init__(self, test, prefix='nl_test'):
        super().__init__()
        self.test = test
        self.prefix = prefix

    def _setUp(self):
        skip_or_fail_without_mysql(self.test)
        self.url = random_mysql_url(self.prefix)
        self.addCleanup(drop_mysql_database, self.url)
        self.addCleanup(session.reset)


class SQLiteDatabase(fixtures.Fixture):
    """A SQLite file URL in a temporary directory."""

    def __init__(self, name='test.sqlite'):
        super().__init__()
        self.name = name

    def _setUp(self):
        tmp = self.useFixture(fixtures.TempDir()).path
        self.url = 'sqlite:///' + os.path.join(tmp, self.name)
        self.addCleanup(session.reset)


class SyncedDatabase(fixtures.Fixture):
    """``url`` at the head of the ``database`` ('api'|'cell') schema."""

    def __init__(self, url, database):
        super().__init__()
        self.url = url
        self.database = database

    def _setUp(self):
        migration.db_sync(self.url, self.database)


class CellContext(fixtures.Fixture):
    """An admin context targeted at the cell database at ``url``."""

    def __init__(self, url):
        super().__init__()
        self.url = url

    def _setUp(self):
        self.context = nl_context.get_admin_context()
        self.context.db_connection = session.get_cell_context_manager(
            self.url)
        self.addCleanup(session.reset)


class APIDatabase(fixtures.Fixture):
    """``[api_database] connection`` pointed at ``url``, synced to head."""

    def __init__(self, url):
        super().__init__()
        self.url = url

    def _setUp(self):
        from oslo_config import fixture as config_fixture

        from nova_lite import conf as nl_conf
        migration.db_sync(self.url, 'api')
        conf = self.useFixture(config_fixture.Config(nl_conf.CONF))
        session.reset()
        self.addCleanup(session.reset)
        conf.config(group='api_database', connection=self.url)
        self.context = nl_context.get_admin_context()
