"""The network service: its resources and the fixed IPs they hold.

Revision ID: 0004
Revises: 0003

"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

LARGE_TEXT = sa.Text().with_variant(mysql.MEDIUMTEXT(), 'mysql', 'mariadb')
DATETIME = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql',
                                      'mariadb')

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'network_resources',
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('kind', sa.String(length=32), nullable=False),
        sa.Column('project_id', sa.String(length=255), nullable=True),
        sa.Column('body', LARGE_TEXT, nullable=True),
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid', name='uniq_network_resources0uuid'),
    )
    op.create_index('network_resources_kind_project_idx',
                    'network_resources', ['kind', 'project_id'])
    op.create_table(
        'network_ip_allocations',
        sa.Column('network_uuid', sa.String(length=36), nullable=False),
        sa.Column('subnet_uuid', sa.String(length=36), nullable=False),
        sa.Column('ip_address', sa.String(length=64), nullable=False),
        sa.Column('owner_uuid', sa.String(length=36), nullable=False),
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(
            'network_uuid', 'ip_address',
            name='uniq_network_ip_allocations0network_uuid0ip_address'),
    )
    op.create_index('network_ip_allocations_owner_idx',
                    'network_ip_allocations', ['owner_uuid'])
