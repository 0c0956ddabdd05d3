"""Alembic environment of the API database.

Run through :func:`nova_lite.db.migration.db_sync`, which hands over an
open connection in ``config.attributes['connection']``; run from the
``alembic`` command line (with ``nova_lite/db/api/alembic.ini``), the URL
comes from ``sqlalchemy.url`` or ``-x url=...``.
"""

from alembic import context
import sqlalchemy

from nova_lite.db.api import models

target_metadata = models.Base.metadata


def _run(connection):
    context.configure(connection=connection, target_metadata=target_metadata,
                      render_as_batch=True, compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online():
    config = context.config
    connection = config.attributes.get('connection')
    if connection is not None:
        _run(connection)
        return
    url = (context.get_x_argument(as_dictionary=True).get('url') or
           config.get_main_option('sqlalchemy.url'))
    engine = sqlalchemy.create_engine(url)
    try:
        with engine.connect() as conn:
            _run(conn)
    finally:
        engine.dispose()


run_migrations_online()
