"""Alembic environment of the placement database.

The connection comes from ``config.attributes['connection']`` (set by
``nova_lite.placement.db.migration``), never from alembic.ini.
"""

from alembic import context

from nova_lite.placement.db import models

config = context.config


def run_migrations_online():
    connection = config.attributes['connection']
    context.configure(connection=connection,
                      target_metadata=models.Base.metadata,
                      render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
