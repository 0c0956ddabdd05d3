"""Initial API schema: cell/host/instance mappings, build requests,
request specs, flavors, aggregates, server groups, key pairs, quotas.

Revision ID: 0001
Revises: none

"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

# NOTE(nova_lite): JSON and long text: TEXT, MEDIUMTEXT on MySQL (16 MiB).
LARGE_TEXT = sa.Text().with_variant(mysql.MEDIUMTEXT(), 'mysql', 'mariadb')
# Timestamps keep microseconds on MySQL too.
DATETIME = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql',
                                      'mariadb')


revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'aggregates',
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('name', name='uniq_aggregate0name'),
    )
    op.create_index('aggregate_uuid_idx', 'aggregates', ['uuid'])

    op.create_table(
        'build_requests',
        sa.Column('instance_uuid', sa.String(length=36), nullable=False),
        sa.Column('project_id', sa.String(length=255), nullable=False),
        sa.Column('instance', LARGE_TEXT, nullable=True),
        sa.Column('block_device_mappings', LARGE_TEXT, nullable=True),
        sa.Column('tags', LARGE_TEXT, nullable=True),
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(
            'instance_uuid', name='uniq_build_requests0instance_uuid'
        ),
    )
    op.create_index(
        'build_requests_project_id_idx', 'build_requests', ['project_id']
    )

    op.create_table(
        'cell_mappings',
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=True),
        sa.Column('transport_url', sa.Text(), nullable=False),
        sa.Column('database_connection', sa.Text(), nullable=False),
        sa.Column(
            'disabled',
            sa.Boolean(),
            server_default=sa.text('0'),
            nullable=False,
        ),
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid', name='uniq_cell_mappings0uuid'),
    )
    op.create_table(
        'flavors',
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('flavorid', sa.String(length=255), nullable=False),
        sa.Column('memory_mb', sa.Integer(), nullable=False),
        sa.Column('vcpus', sa.Integer(), nullable=False),
        sa.Column('root_gb', sa.Integer(), nullable=True),
        sa.Column('ephemeral_gb', sa.Integer(), nullable=True),
        sa.Column('swap', sa.Integer(), server_default='0', nullable=False),
        sa.Column('rxtx_factor', sa.Float(), nullable=True),
        sa.Column('vcpu_weight', sa.Integer(), nullable=True),
        sa.Column(
            'disabled',
            sa.Boolean(),
            server_default=sa.text('0'),
            nullable=False,
        ),
        sa.Column(
            'is_public',
            sa.Boolean(),
            server_default=sa.text('1'),
            nullable=False,
        ),
        sa.Column('description', sa.Text(), nullable=True),
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('flavorid', name='uniq_flavors0flavorid'),
        sa.UniqueConstraint('name', name='uniq_flavors0name'),
    )
    op.create_table(
        'instance_groups',
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=True),
        sa.Column('user_id', sa.String(length=255), nullable=True),
        sa.Column('project_id', sa.String(length=255), nullable=True),
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid', name='uniq_instance_groups0uuid'),
    )
    op.create_table(
        'key_pairs',
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('user_id', sa.String(length=255), nullable=False),
        sa.Column('fingerprint', sa.String(length=255), nullable=True),
        sa.Column('public_key', sa.Text(), nullable=True),
        sa.Column(
            'type', sa.String(length=16), server_default='ssh', nullable=False
        ),
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(
            'user_id', 'name', name='uniq_key_pairs0user_id0name'
        ),
    )
    op.create_table(
        'project_user_quotas',
        sa.Column('project_id', sa.String(length=255), nullable=False),
        sa.Column('user_id', sa.String(length=255), nullable=False),
        sa.Column('resource', sa.String(length=255), nullable=False),
        sa.Column('hard_limit', sa.Integer(), nullable=True),
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(
            'user_id',
            'project_id',
            'resource',
            name='uniq_project_user_quotas0user_id0project_id0resource',
        ),
    )
    op.create_index(
        'project_user_quotas_project_id_idx',
        'project_user_quotas',
        ['project_id'],
    )

    op.create_table(
        'quotas',
        sa.Column('project_id', sa.String(length=255), nullable=True),
        sa.Column('resource', sa.String(length=255), nullable=False),
        sa.Column('hard_limit', sa.Integer(), nullable=True),
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(
            'project_id', 'resource', name='uniq_quotas0project_id0resource'
        ),
    )
    op.create_table(
        'request_specs',
        sa.Column('instance_uuid', sa.String(length=36), nullable=False),
        sa.Column('spec', LARGE_TEXT, nullable=False),
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(
            'instance_uuid', name='uniq_request_specs0instance_uuid'
        ),
    )
    op.create_table(
        'aggregate_hosts',
        sa.Column('host', sa.String(length=255), nullable=False),
        sa.Column('aggregate_id', sa.Integer(), nullable=False),
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.ForeignKeyConstraint(
            ['aggregate_id'], ['aggregates.id'], ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(
            'host',
            'aggregate_id',
            name='uniq_aggregate_hosts0host0aggregate_id',
        ),
    )
    op.create_table(
        'aggregate_metadata',
        sa.Column('aggregate_id', sa.Integer(), nullable=False),
        sa.Column('key', sa.String(length=255), nullable=False),
        sa.Column('value', sa.String(length=255), nullable=False),
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.ForeignKeyConstraint(
            ['aggregate_id'], ['aggregates.id'], ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(
            'aggregate_id',
            'key',
            name='uniq_aggregate_metadata0aggregate_id0key',
        ),
    )
    op.create_index(
        'aggregate_metadata_key_idx', 'aggregate_metadata', ['key']
    )

    op.create_table(
        'flavor_extra_specs',
        sa.Column('flavor_id', sa.Integer(), nullable=False),
        sa.Column('key', sa.String(length=255), nullable=False),
        sa.Column('value', sa.String(length=255), nullable=True),
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.ForeignKeyConstraint(
            ['flavor_id'], ['flavors.id'], ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(
            'flavor_id', 'key', name='uniq_flavor_extra_specs0flavor_id0key'
        ),
    )
    op.create_table(
        'flavor_projects',
        sa.Column('flavor_id', sa.Integer(), nullable=False),
        sa.Column('project_id', sa.String(length=255), nullable=False),
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.ForeignKeyConstraint(
            ['flavor_id'], ['flavors.id'], ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(
            'flavor_id',
            'project_id',
            name='uniq_flavor_projects0flavor_id0project_id',
        ),
    )
    op.create_table(
        'host_mappings',
        sa.Column('host', sa.String(length=255), nullable=False),
        sa.Column('cell_id', sa.Integer(), nullable=False),
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.ForeignKeyConstraint(
            ['cell_id'],
            ['cell_mappings.id'],
        ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('host', name='uniq_host_mappings0host'),
    )
    op.create_index('host_mappings_cell_id_idx', 'host_mappings', ['cell_id'])

    op.create_table(
        'instance_group_member',
        sa.Column('instance_uuid', sa.String(length=36), nullable=True),
        sa.Column('group_id', sa.Integer(), nullable=False),
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.ForeignKeyConstraint(
            ['group_id'], ['instance_groups.id'], ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index(
        'instance_group_member_instance_idx',
        'instance_group_member',
        ['instance_uuid'],
    )

    op.create_table(
        'instance_group_policy',
        sa.Column('policy', sa.String(length=255), nullable=True),
        sa.Column('rules', LARGE_TEXT, nullable=True),
        sa.Column('group_id', sa.Integer(), nullable=False),
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.ForeignKeyConstraint(
            ['group_id'], ['instance_groups.id'], ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index(
        'instance_group_policy_policy_idx', 'instance_group_policy', ['policy']
    )

    op.create_table(
        'instance_mappings',
        sa.Column('instance_uuid', sa.String(length=36), nullable=False),
        sa.Column('cell_id', sa.Integer(), nullable=True),
        sa.Column('project_id', sa.String(length=255), nullable=False),
        sa.Column('user_id', sa.String(length=255), nullable=True),
        sa.Column(
            'queued_for_delete',
            sa.Boolean(),
            server_default=sa.text('0'),
            nullable=False,
        ),
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.ForeignKeyConstraint(
            ['cell_id'],
            ['cell_mappings.id'],
        ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(
            'instance_uuid', name='uniq_instance_mappings0instance_uuid'
        ),
    )
    op.create_index(
        'instance_mappings_cell_id_idx', 'instance_mappings', ['cell_id']
    )
    op.create_index(
        'instance_mappings_project_id_idx', 'instance_mappings', ['project_id']
    )
