"""Indexes for reading rows changed since a time.

The scheduler's host manager refreshes its cache with the compute nodes,
services and instances created, updated or deleted since its last read;
without these indexes each refresh scans the whole tables.

Revision ID: 0002
Revises: 0001
"""

from alembic import op

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None

INDEXES = (
    ('services', ('updated_at', 'created_at')),
    ('compute_nodes', ('updated_at', 'created_at', 'deleted_at')),
    ('instances', ('updated_at', 'created_at', 'deleted_at')),
)


def upgrade():
    for table, columns in INDEXES:
        for column in columns:
            op.create_index('%s_%s_idx' % (table, column), table, [column])


def downgrade():
    for table, columns in INDEXES:
        for column in columns:
            op.drop_index('%s_%s_idx' % (table, column), table_name=table)
