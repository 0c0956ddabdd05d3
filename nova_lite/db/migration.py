"""Bring the API and cell databases to the latest schema with alembic.

``db_sync`` is what ``nova-lite-manage api_db sync`` and ``db sync`` (and the
test fixtures) call. It is idempotent: at head it does nothing. On MySQL /
MariaDB it first creates the database named in the URL when it is missing,
so a fresh server needs no manual ``CREATE DATABASE``. SQLite files go
through :mod:`nova_lite.db.session`, which turns on WAL mode.
"""

import os

from alembic import command as alembic_command
from alembic import config as alembic_config
from alembic import migration as alembic_migration
from alembic import script as alembic_script
from oslo_db import exception as db_exc
from oslo_log import log as logging
import sqlalchemy
from sqlalchemy.engine import url as sa_url

from nova_lite.db import session
from nova_lite import exception

LOG = logging.getLogger(__name__)

DATABASES = ('api', 'cell')
_HERE = os.path.dirname(os.path.abspath(__file__))


def _migrations_dir(database):
    if database not in DATABASES:
        raise exception.Invalid(
            reason='unknown database %r (expected one of %s)' % (
                database, ', '.join(DATABASES)))
    return os.path.join(_HERE, database, 'migrations')


def alembic_config_for(database, connection=None):
    """A programmatic alembic Config for ``database`` ('api' or 'cell')."""
    config = alembic_config.Config()
    config.set_main_option('script_location', _migrations_dir(database))
    if connection is not None:
        config.attributes['connection'] = connection
    return config


def _is_mysql(url):
    return url.get_backend_name() in ('mysql', 'mariadb')


def create_database_if_missing(connection):
    """Create the MySQL/MariaDB database named in ``connection`` if missing.

    SQLite creates its file on first use, so nothing happens there except
    creating the file's directory.
    """
    url = sa_url.make_url(connection)
    if url.get_backend_name() == 'sqlite':
        if session.is_sqlite_file(connection):
            directory = os.path.dirname(os.path.abspath(url.database))
            os.makedirs(directory, exist_ok=True)
        return
    if not _is_mysql(url) or not url.database:
        return
    server = sqlalchemy.create_engine(url.set(database=''),
                                      poolclass=sqlalchemy.pool.NullPool)
    name = url.database.replace('`', '``')
    try:
        with server.begin() as conn:
            conn.exec_driver_sql(
                'CREATE DATABASE IF NOT EXISTS `%s` '
                'CHARACTER SET utf8mb4' % name)
    except sqlalchemy.exc.OperationalError as exc:
        raise exception.DBNotAvailable(url=_safe(url), reason=exc.orig)
    finally:
        server.dispose()


def _safe(url):
    return url.render_as_string(hide_password=True)


def _connect(cm, connection):
    try:
        return cm.writer.get_engine().connect()
    except db_exc.DBNonExistentDatabase:
        raise
    except (db_exc.DBConnectionError, sqlalchemy.exc.OperationalError) as exc:
        raise exception.DBNotAvailable(
            url=_safe(sa_url.make_url(connection)),
            reason=getattr(exc, 'orig', None) or exc)


def _with_connection(connection, func, create=True):
    """Run ``func(conn)`` on a writer connection of ``connection``'s DB.

    Raises DBNotAvailable when the database cannot be reached.
    """
    if create:
        create_database_if_missing(connection)
    cm = session.create_context_manager(connection)
    try:
        with _connect(cm, connection) as conn:
            return func(conn)
    finally:
        cm.dispose_pool()


def db_sync(connection, database='api', revision='head'):
    """Upgrade the ``database`` ('api' or 'cell') at ``connection``.

    Returns the revision the database is at afterwards.
    """
    if not connection:
        raise exception.ConfigInvalid(
            reason='no connection URL for the %s database' % database)

    def _upgrade(conn):
        before = _current(conn)
        alembic_command.upgrade(alembic_config_for(database, conn), revision)
        conn.commit()
        after = _current(conn)
        if before != after:
            LOG.info('Upgraded the %s database at %s from %s to %s',
                     database, _safe(sa_url.make_url(connection)),
                     before, after)
        return after

    return _with_connection(connection, _upgrade)


def _current(conn):
    return alembic_migration.MigrationContext.configure(
        conn).get_current_revision()


def version(connection, database='api'):
    """The alembic revision ``database`` is at, None when never synced."""
    _migrations_dir(database)
    url = sa_url.make_url(connection)
    if (session.is_sqlite_file(connection) and
            not os.path.exists(url.database)):
        return None
    try:
        return _with_connection(connection, _current, create=False)
    except db_exc.DBNonExistentDatabase:
        return None


def head(database='api'):
    """The newest revision of ``database``'s migrations."""
    script = alembic_script.ScriptDirectory.from_config(
        alembic_config_for(database))
    return script.get_current_head()
