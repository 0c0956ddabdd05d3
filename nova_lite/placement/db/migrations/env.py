"""Alembic environment of the placement database.

See nova_lite.db.alembic_env.
"""

from nova_lite.db import alembic_env
from nova_lite.placement.db import models

alembic_env.run_migrations(models.Base.metadata)
