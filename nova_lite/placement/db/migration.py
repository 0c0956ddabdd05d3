"""Bring a placement database to the head of its alembic migrations.

``nova-lite-manage placement db sync`` calls :func:`db_sync`; it is
idempotent (a database already at head is left alone) and works on SQLite
files and MySQL/MariaDB URLs alike.
"""

import os

from alembic import command as alembic_command
from alembic import config as alembic_config
from alembic import migration as alembic_migration
from oslo_log import log as logging
import sqlalchemy as sa

from nova_lite.db import migration as nl_migration

LOG = logging.getLogger(__name__)

_ALEMBIC_INI = os.path.join(os.path.dirname(__file__), 'alembic.ini')


def _alembic_config(connection):
    config = alembic_config.Config(_ALEMBIC_INI)
    config.attributes['connection'] = connection
    return config


def _engine(connection_url):
    return sa.create_engine(connection_url, poolclass=sa.pool.NullPool)


def db_sync(connection_url, revision='head'):
    """Upgrade the placement database at ``connection_url`` to ``revision``."""
    nl_migration.create_database_if_missing(connection_url)
    engine = _engine(connection_url)
    try:
        with engine.begin() as connection:
            alembic_command.upgrade(_alembic_config(connection), revision)
    finally:
        engine.dispose()
    LOG.info('Placement database synced to %s', revision)


def get_current(connection_url):
    """The alembic revision the database is at; None if unversioned or if
    the (MySQL) database does not exist yet."""
    engine = _engine(connection_url)
    try:
        with engine.connect() as connection:
            context = alembic_migration.MigrationContext.configure(connection)
            return context.get_current_revision()
    except sa.exc.OperationalError as exc:
        if 'Unknown database' in str(exc):
            return None
        raise
    finally:
        engine.dispose()
