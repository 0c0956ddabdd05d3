"""instances.auto_disk_config: the server's OS-DCF:diskConfig.

A server created, rebuilt, resized or updated with ``AUTO`` shows
``AUTO`` from then on, as Nova keeps it in the same column. Existing
rows are ``MANUAL`` (false), what they have always shown.

Revision ID: 0005
Revises: 0004
"""

from alembic import op
import sqlalchemy as sa

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('instances', sa.Column(
        'auto_disk_config', sa.Boolean(), server_default=sa.text('0'),
        nullable=False))


def downgrade():
    with op.batch_alter_table('instances') as batch:
        batch.drop_column('auto_disk_config')
