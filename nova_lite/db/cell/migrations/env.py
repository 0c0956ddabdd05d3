"""Alembic environment of the cell database (see nova_lite.db.alembic_env)."""

from nova_lite.db import alembic_env
from nova_lite.db.cell import models

alembic_env.run_migrations(models.Base.metadata)
