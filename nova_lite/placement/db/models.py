"""SQLAlchemy models of the placement database.

The alembic migrations under ``migrations/versions`` must produce exactly
this schema; ``tests/functional/placement/test_migrations.py`` compares them.
Standard resource classes and traits are rows like custom ones, synced from
os-resource-classes / os-traits once per process.
"""

import datetime

import sqlalchemy as sa
from sqlalchemy import orm


def utcnow():
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


class Base(orm.DeclarativeBase):
    pass


def _timestamps():
    return (sa.Column('created_at', sa.DateTime, default=utcnow),
            sa.Column('updated_at', sa.DateTime, onupdate=utcnow))


class ResourceClass(Base):
    __tablename__ = 'resource_classes'
    __table_args__ = (
        sa.UniqueConstraint('name', name='uniq_resource_classes0name'),)
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    name = sa.Column(sa.String(255), nullable=False)
    created_at, updated_at = _timestamps()


class Trait(Base):
    __tablename__ = 'traits'
    __table_args__ = (sa.UniqueConstraint('name', name='uniq_traits0name'),)
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    name = sa.Column(sa.String(255), nullable=False)
    created_at, updated_at = _timestamps()


class ResourceProvider(Base):
    __tablename__ = 'resource_providers'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_resource_providers0uuid'),
        sa.UniqueConstraint('name', name='uniq_resource_providers0name'),
        sa.Index('resource_providers_root_provider_id_idx',
                 'root_provider_id'),
        sa.Index('resource_providers_parent_provider_id_idx',
                 'parent_provider_id'),
    )
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(200), nullable=False)
    generation = sa.Column(sa.Integer, nullable=False, default=0)
    root_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id'), nullable=True)
    parent_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id'), nullable=True)
    created_at, updated_at = _timestamps()


class Inventory(Base):
    __tablename__ = 'inventories'
    __table_args__ = (
        sa.UniqueConstraint('resource_provider_id', 'resource_class_id',
                            name='uniq_inventories0resource_provider_'
                                 'resource_class'),
        sa.Index('inventories_resource_class_id_idx', 'resource_class_id'),
    )
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    resource_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id'), nullable=False)
    resource_class_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_classes.id'), nullable=False)
    total = sa.Column(sa.Integer, nullable=False)
    reserved = sa.Column(sa.Integer, nullable=False)
    min_unit = sa.Column(sa.Integer, nullable=False)
    max_unit = sa.Column(sa.Integer, nullable=False)
    step_size = sa.Column(sa.Integer, nullable=False)
    allocation_ratio = sa.Column(sa.Float, nullable=False)
    created_at, updated_at = _timestamps()


class Project(Base):
    __tablename__ = 'projects'
    __table_args__ = (
        sa.UniqueConstraint('external_id', name='uniq_projects0external_id'),)
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    external_id = sa.Column(sa.String(255), nullable=False)
    created_at, updated_at = _timestamps()


class User(Base):
    __tablename__ = 'users'
    __table_args__ = (
        sa.UniqueConstraint('external_id', name='uniq_users0external_id'),)
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    external_id = sa.Column(sa.String(255), nullable=False)
    created_at, updated_at = _timestamps()


class ConsumerType(Base):
    __tablename__ = 'consumer_types'
    __table_args__ = (
        sa.UniqueConstraint('name', name='uniq_consumer_types0name'),)
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    name = sa.Column(sa.String(255), nullable=False)
    created_at, updated_at = _timestamps()


class Consumer(Base):
    __tablename__ = 'consumers'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_consumers0uuid'),
        sa.Index('consumers_project_id_user_id_uuid_idx',
                 'project_id', 'user_id', 'uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    project_id = sa.Column(sa.Integer, sa.ForeignKey('projects.id'),
                           nullable=False)
    user_id = sa.Column(sa.Integer, sa.ForeignKey('users.id'),
                        nullable=False)
    generation = sa.Column(sa.Integer, nullable=False, default=0)
    consumer_type_id = sa.Column(
        sa.Integer, sa.ForeignKey('consumer_types.id'), nullable=True)
    created_at, updated_at = _timestamps()


class Allocation(Base):
    __tablename__ = 'allocations'
    __table_args__ = (
        sa.Index('allocations_resource_provider_class_used_idx',
                 'resource_provider_id', 'resource_class_id', 'used'),
        sa.Index('allocations_consumer_id_idx', 'consumer_id'),
        sa.Index('allocations_resource_class_id_idx', 'resource_class_id'),
    )
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    resource_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id'), nullable=False)
    consumer_id = sa.Column(sa.String(36), nullable=False)
    resource_class_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_classes.id'), nullable=False)
    used = sa.Column(sa.Integer, nullable=False)
    created_at, updated_at = _timestamps()


class PlacementAggregate(Base):
    __tablename__ = 'placement_aggregates'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_placement_aggregates0uuid'),)
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    created_at, updated_at = _timestamps()


class ResourceProviderAggregate(Base):
    __tablename__ = 'resource_provider_aggregates'
    __table_args__ = (
        sa.Index('resource_provider_aggregates_aggregate_id_idx',
                 'aggregate_id'),)
    resource_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id'), primary_key=True)
    aggregate_id = sa.Column(
        sa.Integer, sa.ForeignKey('placement_aggregates.id'),
        primary_key=True)
    created_at, updated_at = _timestamps()


class ResourceProviderTrait(Base):
    __tablename__ = 'resource_provider_traits'
    __table_args__ = (
        sa.Index('resource_provider_traits_resource_provider_trait_idx',
                 'resource_provider_id', 'trait_id'),)
    trait_id = sa.Column(sa.Integer, sa.ForeignKey('traits.id'),
                         primary_key=True)
    resource_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id'), primary_key=True)
    created_at, updated_at = _timestamps()


TABLES = Base.metadata.tables
