"""Initial cell schema: services, compute nodes, instances and their
faults, actions and migrations.

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
        'compute_nodes',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('service_id', sa.Integer(), nullable=True),
        sa.Column('host', sa.String(length=255), nullable=False),
        sa.Column(
            'hypervisor_hostname', sa.String(length=255), nullable=False
        ),
        sa.Column('vcpus', sa.Integer(), nullable=False),
        sa.Column('memory_mb', sa.Integer(), nullable=False),
        sa.Column('local_gb', sa.Integer(), nullable=False),
        sa.Column('vcpus_used', sa.Integer(), nullable=False),
        sa.Column('memory_mb_used', sa.Integer(), nullable=False),
        sa.Column('local_gb_used', sa.Integer(), nullable=False),
        sa.Column('running_vms', sa.Integer(), nullable=False),
        sa.Column('free_ram_mb', sa.Integer(), nullable=True),
        sa.Column('free_disk_gb', sa.Integer(), nullable=True),
        sa.Column('disk_available_least', sa.Integer(), nullable=True),
        sa.Column('hypervisor_type', sa.String(length=255), nullable=True),
        sa.Column('hypervisor_version', sa.Integer(), nullable=True),
        sa.Column('cpu_info', sa.Text(), nullable=True),
        sa.Column('cpu_allocation_ratio', sa.Float(), nullable=True),
        sa.Column('ram_allocation_ratio', sa.Float(), nullable=True),
        sa.Column('disk_allocation_ratio', sa.Float(), nullable=True),
        sa.Column('mapped', sa.Integer(), server_default='0', nullable=False),
        sa.Column(
            'failed_builds', sa.Integer(), server_default='0', nullable=False
        ),
        sa.Column('stats', LARGE_TEXT, nullable=True),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.Column('deleted', sa.Integer(), server_default='0', nullable=False),
        sa.Column('deleted_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(
            'host',
            'hypervisor_hostname',
            'deleted',
            name='uniq_compute_nodes0host0hypervisor_hostname0deleted',
        ),
        sa.UniqueConstraint('uuid', name='uniq_compute_nodes0uuid'),
    )
    op.create_index('compute_nodes_mapped_idx', 'compute_nodes', ['mapped'])

    op.create_table(
        'instance_actions',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('action', sa.String(length=255), nullable=True),
        sa.Column('instance_uuid', sa.String(length=36), nullable=False),
        sa.Column('request_id', sa.String(length=255), nullable=True),
        sa.Column('user_id', sa.String(length=255), nullable=True),
        sa.Column('project_id', sa.String(length=255), nullable=True),
        sa.Column('start_time', DATETIME, nullable=True),
        sa.Column('finish_time', DATETIME, nullable=True),
        sa.Column('message', sa.String(length=255), nullable=True),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.Column('deleted', sa.Integer(), server_default='0', nullable=False),
        sa.Column('deleted_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('instance_uuid_idx', 'instance_actions', ['instance_uuid'])
    op.create_index('request_id_idx', 'instance_actions', ['request_id'])

    op.create_table(
        'instance_faults',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('instance_uuid', sa.String(length=36), nullable=False),
        sa.Column('code', sa.Integer(), nullable=False),
        sa.Column('message', sa.String(length=255), nullable=True),
        sa.Column('details', LARGE_TEXT, nullable=True),
        sa.Column('host', sa.String(length=255), nullable=True),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.Column('deleted', sa.Integer(), server_default='0', nullable=False),
        sa.Column('deleted_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index(
        'instance_faults_instance_uuid_deleted_created_at_idx',
        'instance_faults',
        ['instance_uuid', 'deleted', 'created_at'],
    )

    op.create_table(
        'instances',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('user_id', sa.String(length=255), nullable=True),
        sa.Column('project_id', sa.String(length=255), nullable=True),
        sa.Column('image_ref', sa.String(length=255), nullable=True),
        sa.Column('hostname', sa.String(length=255), nullable=True),
        sa.Column('display_name', sa.String(length=255), nullable=True),
        sa.Column('display_description', sa.Text(), nullable=True),
        sa.Column('vm_state', sa.String(length=255), nullable=True),
        sa.Column('task_state', sa.String(length=255), nullable=True),
        sa.Column('power_state', sa.Integer(), nullable=True),
        sa.Column('memory_mb', sa.Integer(), nullable=True),
        sa.Column('vcpus', sa.Integer(), nullable=True),
        sa.Column('root_gb', sa.Integer(), nullable=True),
        sa.Column('ephemeral_gb', sa.Integer(), nullable=True),
        sa.Column('host', sa.String(length=255), nullable=True),
        sa.Column('node', sa.String(length=255), nullable=True),
        sa.Column('compute_id', sa.Integer(), nullable=True),
        sa.Column('instance_type_id', sa.Integer(), nullable=True),
        sa.Column('flavor', LARGE_TEXT, nullable=True),
        sa.Column('reservation_id', sa.String(length=255), nullable=True),
        sa.Column('launch_index', sa.Integer(), nullable=True),
        sa.Column('launched_at', DATETIME, nullable=True),
        sa.Column('terminated_at', DATETIME, nullable=True),
        sa.Column('availability_zone', sa.String(length=255), nullable=True),
        sa.Column('launched_on', sa.Text(), nullable=True),
        sa.Column(
            'locked', sa.Boolean(), server_default=sa.text('0'), nullable=False
        ),
        sa.Column('locked_by', sa.String(length=16), nullable=True),
        sa.Column('key_name', sa.String(length=255), nullable=True),
        sa.Column('key_data', LARGE_TEXT, nullable=True),
        sa.Column('user_data', LARGE_TEXT, nullable=True),
        sa.Column('config_drive', sa.String(length=255), nullable=True),
        sa.Column('metadata', LARGE_TEXT, nullable=True),
        sa.Column('system_metadata', LARGE_TEXT, nullable=True),
        sa.Column('extra', LARGE_TEXT, nullable=True),
        sa.Column('progress', sa.Integer(), nullable=True),
        sa.Column(
            'cleaned',
            sa.Boolean(),
            server_default=sa.text('0'),
            nullable=False,
        ),
        sa.Column(
            'hidden', sa.Boolean(), server_default=sa.text('0'), nullable=False
        ),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.Column('deleted', sa.Integer(), server_default='0', nullable=False),
        sa.Column('deleted_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid', name='uniq_instances0uuid'),
    )
    op.create_index(
        'instances_compute_id_deleted_idx',
        'instances',
        ['compute_id', 'deleted'],
    )
    op.create_index(
        'instances_host_node_deleted_idx',
        'instances',
        ['host', 'node', 'deleted'],
    )
    op.create_index(
        'instances_project_id_deleted_idx',
        'instances',
        ['project_id', 'deleted'],
    )
    op.create_index(
        'instances_reservation_id_idx', 'instances', ['reservation_id']
    )

    op.create_table(
        'migrations',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('source_compute', sa.String(length=255), nullable=True),
        sa.Column('dest_compute', sa.String(length=255), nullable=True),
        sa.Column('source_node', sa.String(length=255), nullable=True),
        sa.Column('dest_node', sa.String(length=255), nullable=True),
        sa.Column('dest_compute_id', sa.Integer(), nullable=True),
        sa.Column('dest_host', sa.String(length=255), nullable=True),
        sa.Column('old_instance_type_id', sa.Integer(), nullable=True),
        sa.Column('new_instance_type_id', sa.Integer(), nullable=True),
        sa.Column('instance_uuid', sa.String(length=36), nullable=True),
        sa.Column('status', sa.String(length=255), nullable=True),
        sa.Column('migration_type', sa.String(length=32), nullable=False),
        sa.Column(
            'hidden', sa.Boolean(), server_default=sa.text('0'), nullable=False
        ),
        sa.Column(
            'cross_cell_move',
            sa.Boolean(),
            server_default=sa.text('0'),
            nullable=False,
        ),
        sa.Column('user_id', sa.String(length=255), nullable=True),
        sa.Column('project_id', sa.String(length=255), nullable=True),
        sa.Column('memory_total', sa.BigInteger(), nullable=True),
        sa.Column('memory_processed', sa.BigInteger(), nullable=True),
        sa.Column('memory_remaining', sa.BigInteger(), nullable=True),
        sa.Column('disk_total', sa.BigInteger(), nullable=True),
        sa.Column('disk_processed', sa.BigInteger(), nullable=True),
        sa.Column('disk_remaining', sa.BigInteger(), nullable=True),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.Column('deleted', sa.Integer(), server_default='0', nullable=False),
        sa.Column('deleted_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid', name='uniq_migrations0uuid'),
    )
    op.create_index(
        'migrations_by_source_compute_and_status_idx',
        'migrations',
        ['deleted', 'source_compute', 'status'],
    )
    op.create_index(
        'migrations_by_dest_compute_and_status_idx',
        'migrations',
        ['deleted', 'dest_compute', 'status'],
    )
    op.create_index(
        'migrations_instance_uuid_and_status_idx',
        'migrations',
        ['deleted', 'instance_uuid', 'status'],
    )

    op.create_table(
        'services',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('host', sa.String(length=255), nullable=False),
        sa.Column('binary', sa.String(length=255), nullable=False),
        sa.Column('topic', sa.String(length=255), nullable=True),
        sa.Column(
            'report_count', sa.Integer(), server_default='0', nullable=False
        ),
        sa.Column(
            'disabled',
            sa.Boolean(),
            server_default=sa.text('0'),
            nullable=False,
        ),
        sa.Column('disabled_reason', sa.String(length=255), nullable=True),
        sa.Column('last_seen_up', DATETIME, nullable=True),
        sa.Column(
            'forced_down',
            sa.Boolean(),
            server_default=sa.text('0'),
            nullable=False,
        ),
        sa.Column('version', sa.Integer(), server_default='0', nullable=False),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(
            'host', 'binary', name='uniq_services0host0binary'
        ),
        sa.UniqueConstraint('host', 'topic', name='uniq_services0host0topic'),
        sa.UniqueConstraint('uuid', name='uniq_services0uuid'),
    )
    op.create_table(
        'instance_actions_events',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('event', sa.String(length=255), nullable=True),
        sa.Column('action_id', sa.Integer(), nullable=False),
        sa.Column('start_time', DATETIME, nullable=True),
        sa.Column('finish_time', DATETIME, nullable=True),
        sa.Column('result', sa.String(length=255), nullable=True),
        sa.Column('traceback', sa.Text(), nullable=True),
        sa.Column('host', sa.String(length=255), nullable=True),
        sa.Column('details', sa.Text(), nullable=True),
        sa.Column('created_at', DATETIME, nullable=True),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.Column('deleted', sa.Integer(), server_default='0', nullable=False),
        sa.Column('deleted_at', DATETIME, nullable=True),
        sa.ForeignKeyConstraint(
            ['action_id'],
            ['instance_actions.id'],
        ),
        sa.PrimaryKeyConstraint('id'),
    )
