"""What every nova_lite alembic environment (``migrations/env.py``) runs.

The schemas (API, cell, placement) differ only in their models. Migrations
run on the connection that ``db_sync`` hands over in
``config.attributes['connection']``; from the ``alembic`` command line the
URL comes from ``-x url=...`` or ``sqlalchemy.url`` in the alembic.ini.
``render_as_batch`` lets the same migration alter tables on SQLite.
"""

from alembic import context
import sqlalchemy


def _run(connection, target_metadata):
    context.configure(connection=connection, target_metadata=target_metadata,
                      render_as_batch=True, compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations(target_metadata):
    config = context.config
    connection = config.attributes.get('connection')
    if connection is not None:
        _run(connection, target_metadata)
        return
    url = (context.get_x_argument(as_dictionary=True).get('url') or
           config.get_main_option('sqlalchemy.url'))
    engine = sqlalchemy.create_engine(url)
    try:
        with engine.connect() as conn:
            _run(conn, target_metadata)
    finally:
        engine.dispose()
