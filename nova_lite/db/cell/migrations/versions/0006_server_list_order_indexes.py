"""Indexes in the server list's order (newest first, then uuid).

A page of ``GET /servers`` reads each cell's live instances newest first
(``created_at``, then ``uuid``), of one project or, with ``all_tenants``,
of all. Without an index in that order the cell database reads every
live instance of the project (or of the cell) and sorts them for each
page; with one it reads about the page.

Revision ID: 0006
Revises: 0005
"""

from alembic import op

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None

INDEXES = (
    ('instances_deleted_created_at_uuid_idx',
     ['deleted', 'created_at', 'uuid']),
    ('instances_project_id_deleted_created_at_uuid_idx',
     ['project_id', 'deleted', 'created_at', 'uuid']),
)


def upgrade():
    for name, columns in INDEXES:
        op.create_index(name, 'instances', columns)


def downgrade():
    for name, _columns in INDEXES:
        op.drop_index(name, table_name='instances')
