"""The scheduling_decisions table: why each instance landed where it did.

Revision ID: 0004
Revises: 0003
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None

DATETIME = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql',
                                      'mariadb')
LARGE_TEXT = sa.Text().with_variant(mysql.MEDIUMTEXT(), 'mysql', 'mariadb')


def upgrade():
    op.create_table(
        'scheduling_decisions',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('instance_uuid', sa.String(length=36), nullable=False),
        sa.Column('action_id', sa.Integer(), nullable=True),
        sa.Column('request_id', sa.String(length=255), nullable=True),
        sa.Column('kind', sa.String(length=255), nullable=True),
        sa.Column('summary', sa.String(length=255), nullable=True),
        sa.Column('record', LARGE_TEXT, nullable=True),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('scheduling_decisions_instance_uuid_idx',
                    'scheduling_decisions', ['instance_uuid'])
    op.create_index('scheduling_decisions_created_at_idx',
                    'scheduling_decisions', ['created_at'])


def downgrade():
    op.drop_table('scheduling_decisions')
