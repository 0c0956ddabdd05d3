"""Alembic environment of the api database (see nova_lite.db.alembic_env)."""

from nova_lite.db import alembic_env
from nova_lite.db.api import models

alembic_env.run_migrations(models.Base.metadata)
