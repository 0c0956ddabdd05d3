"""An index that answers a project's quota count by itself.

A server create counts the project's live instances, cores and RAM in
each cell (``instance_counts``). With the index on ``(project_id,
deleted)`` alone the database reads every one of the project's instance
rows to sum them: at 50,000 servers of a project in a cell, the whole
table on every create, which pushes the rest of the cell out of a small
buffer pool. This index carries the columns the count reads (the user
for a per-user count, the vm_state that leaves soft-deleted instances
out, vcpus and memory), so the count reads index entries only. It
replaces the ``(project_id, deleted)`` index, whose lookups it serves.

Revision ID: 0007
Revises: 0006
"""

from alembic import op

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None

OLD = ('instances_project_id_deleted_idx', ['project_id', 'deleted'])
NEW = ('instances_project_id_deleted_user_id_usage_idx',
       ['project_id', 'deleted', 'user_id', 'vm_state', 'vcpus',
        'memory_mb'])


def upgrade():
    op.create_index(NEW[0], 'instances', NEW[1])
    op.drop_index(OLD[0], table_name='instances')


def downgrade():
    op.create_index(OLD[0], 'instances', OLD[1])
    op.drop_index(NEW[0], table_name='instances')
