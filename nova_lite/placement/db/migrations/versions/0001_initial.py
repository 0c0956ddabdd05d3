"""Initial placement schema.

Revision ID: 0001_initial
Revises:
Create Date: 2026-11-21
"""

from alembic import op
import sqlalchemy as sa

revision = '0001_initial'
down_revision = None
branch_labels = None
depends_on = None


def _timestamps():
    return [sa.Column('created_at', sa.DateTime, nullable=True),
            sa.Column('updated_at', sa.DateTime, nullable=True)]


def _named_table(name, unique_name):
    op.create_table(
        name,
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('name', sa.String(255), nullable=False),
        *_timestamps(),
        sa.UniqueConstraint('name', name=unique_name))


def _external_id_table(name):
    op.create_table(
        name,
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('external_id', sa.String(255), nullable=False),
        *_timestamps(),
        sa.UniqueConstraint('external_id', name='uniq_%s0external_id' % name))


def _create_providers():
    op.create_table(
        'resource_providers',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(200), nullable=False),
        sa.Column('generation', sa.Integer, nullable=False),
        sa.Column('root_provider_id', sa.Integer,
                  sa.ForeignKey('resource_providers.id'), nullable=True),
        sa.Column('parent_provider_id', sa.Integer,
                  sa.ForeignKey('resource_providers.id'), nullable=True),
        *_timestamps(),
        sa.UniqueConstraint('uuid', name='uniq_resource_providers0uuid'),
        sa.UniqueConstraint('name', name='uniq_resource_providers0name'))
    op.create_index('resource_providers_root_provider_id_idx',
                    'resource_providers', ['root_provider_id'])
    op.create_index('resource_providers_parent_provider_id_idx',
                    'resource_providers', ['parent_provider_id'])


def _create_inventories():
    op.create_table(
        'inventories',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('resource_provider_id', sa.Integer,
                  sa.ForeignKey('resource_providers.id'), nullable=False),
        sa.Column('resource_class_id', sa.Integer,
                  sa.ForeignKey('resource_classes.id'), nullable=False),
        sa.Column('total', sa.Integer, nullable=False),
        sa.Column('reserved', sa.Integer, nullable=False),
        sa.Column('min_unit', sa.Integer, nullable=False),
        sa.Column('max_unit', sa.Integer, nullable=False),
        sa.Column('step_size', sa.Integer, nullable=False),
        sa.Column('allocation_ratio', sa.Float, nullable=False),
        *_timestamps(),
        sa.UniqueConstraint(
            'resource_provider_id', 'resource_class_id',
            name='uniq_inventories0resource_provider_resource_class'))
    op.create_index('inventories_resource_class_id_idx', 'inventories',
                    ['resource_class_id'])


def _create_consumers():
    op.create_table(
        'consumers',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('project_id', sa.Integer, sa.ForeignKey('projects.id'),
                  nullable=False),
        sa.Column('user_id', sa.Integer, sa.ForeignKey('users.id'),
                  nullable=False),
        sa.Column('generation', sa.Integer, nullable=False),
        sa.Column('consumer_type_id', sa.Integer,
                  sa.ForeignKey('consumer_types.id'), nullable=True),
        *_timestamps(),
        sa.UniqueConstraint('uuid', name='uniq_consumers0uuid'))
    op.create_index('consumers_project_id_user_id_uuid_idx', 'consumers',
                    ['project_id', 'user_id', 'uuid'])


def _create_allocations():
    op.create_table(
        'allocations',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('resource_provider_id', sa.Integer,
                  sa.ForeignKey('resource_providers.id'), nullable=False),
        sa.Column('consumer_id', sa.String(36), nullable=False),
        sa.Column('resource_class_id', sa.Integer,
                  sa.ForeignKey('resource_classes.id'), nullable=False),
        sa.Column('used', sa.Integer, nullable=False),
        *_timestamps())
    op.create_index('allocations_resource_provider_class_used_idx',
                    'allocations',
                    ['resource_provider_id', 'resource_class_id', 'used'])
    op.create_index('allocations_consumer_id_idx', 'allocations',
                    ['consumer_id'])
    op.create_index('allocations_resource_class_id_idx', 'allocations',
                    ['resource_class_id'])


def _create_aggregates():
    op.create_table(
        'placement_aggregates',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        *_timestamps(),
        sa.UniqueConstraint('uuid', name='uniq_placement_aggregates0uuid'))
    op.create_table(
        'resource_provider_aggregates',
        sa.Column('resource_provider_id', sa.Integer,
                  sa.ForeignKey('resource_providers.id'), primary_key=True),
        sa.Column('aggregate_id', sa.Integer,
                  sa.ForeignKey('placement_aggregates.id'), primary_key=True),
        *_timestamps())
    op.create_index('resource_provider_aggregates_aggregate_id_idx',
                    'resource_provider_aggregates', ['aggregate_id'])


def _create_provider_traits():
    op.create_table(
        'resource_provider_traits',
        sa.Column('trait_id', sa.Integer, sa.ForeignKey('traits.id'),
                  primary_key=True),
        sa.Column('resource_provider_id', sa.Integer,
                  sa.ForeignKey('resource_providers.id'), primary_key=True),
        *_timestamps())
    op.create_index('resource_provider_traits_resource_provider_trait_idx',
                    'resource_provider_traits',
                    ['resource_provider_id', 'trait_id'])


def upgrade():
    _named_table('resource_classes', 'uniq_resource_classes0name')
    _named_table('traits', 'uniq_traits0name')
    _named_table('consumer_types', 'uniq_consumer_types0name')
    _external_id_table('projects')
    _external_id_table('users')
    _create_providers()
    _create_inventories()
    _create_consumers()
    _create_allocations()
    _create_aggregates()
    _create_provider_traits()
