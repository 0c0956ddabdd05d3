"""Schema of a cell database (and of cell0), as SQLAlchemy declarative models.

A cell database holds what lives inside one cell: its services, the compute
nodes of its hypervisors, its instances with their faults, actions and
migrations. Compute nodes and instances are soft-deleted (``deleted`` = row
id) as in Nova, so a node that comes back is restored with the same row and
provider uuid; services are hard-deleted.

Structured values (flavor, metadata, stats) are JSON columns on the row
itself instead of Nova's ``instance_extra`` and key/value side tables.

The alembic migrations in ``migrations/versions`` must produce exactly this
schema; ``tests/functional/db/test_migrations.py`` checks it.
"""

import datetime

import sqlalchemy as sa
from sqlalchemy import orm

from nova_lite.db import types

Mapped = orm.Mapped
mapped_column = orm.mapped_column
Str = sa.String(255)


class Base(orm.DeclarativeBase, types.ModelMixin):
    """Declarative base of the cell database."""


class Service(Base, types.TimestampMixin):
    """A service process of the cell (conductor, compute) and its heartbeat."""

    __tablename__ = 'services'
    __table_args__ = (
        sa.UniqueConstraint('host', 'binary',
                            name='uniq_services0host0binary'),
        sa.UniqueConstraint('host', 'topic', name='uniq_services0host0topic'),
        sa.UniqueConstraint('uuid', name='uniq_services0uuid'),
        # The scheduler's incremental refresh reads rows changed since t.
        sa.Index('services_updated_at_idx', 'updated_at'),
        sa.Index('services_created_at_idx', 'created_at'),
    )

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    host: Mapped[str] = mapped_column(Str, nullable=False)
    binary: Mapped[str] = mapped_column(Str, nullable=False)
    topic: Mapped[str | None] = mapped_column(Str)
    report_count: Mapped[int] = mapped_column(
        sa.Integer, nullable=False, default=0, server_default='0')
    disabled: Mapped[bool] = mapped_column(
        sa.Boolean, nullable=False, default=False, server_default=sa.false())
    disabled_reason: Mapped[str | None] = mapped_column(Str)
    last_seen_up: Mapped[datetime.datetime | None] = mapped_column(
        types.DateTime)
    forced_down: Mapped[bool] = mapped_column(
        sa.Boolean, nullable=False, default=False, server_default=sa.false())
    version: Mapped[int] = mapped_column(
        sa.Integer, nullable=False, default=0, server_default='0')


class ComputeNode(Base, types.TimestampMixin, types.SoftDeleteMixin):
    """A hypervisor node; its uuid is also its placement provider's uuid."""

    __tablename__ = 'compute_nodes'
    __table_args__ = (
        sa.UniqueConstraint(
            'host', 'hypervisor_hostname', 'deleted',
            name='uniq_compute_nodes0host0hypervisor_hostname0deleted'),
        sa.UniqueConstraint('uuid', name='uniq_compute_nodes0uuid'),
        sa.Index('compute_nodes_mapped_idx', 'mapped'),
        sa.Index('compute_nodes_updated_at_idx', 'updated_at'),
        sa.Index('compute_nodes_created_at_idx', 'created_at'),
        sa.Index('compute_nodes_deleted_at_idx', 'deleted_at'),
    )

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    service_id: Mapped[int | None] = mapped_column(sa.Integer)
    host: Mapped[str] = mapped_column(Str, nullable=False)
    hypervisor_hostname: Mapped[str] = mapped_column(Str, nullable=False)
    vcpus: Mapped[int] = mapped_column(sa.Integer, nullable=False, default=0)
    memory_mb: Mapped[int] = mapped_column(
        sa.Integer, nullable=False, default=0)
    local_gb: Mapped[int] = mapped_column(
        sa.Integer, nullable=False, default=0)
    vcpus_used: Mapped[int] = mapped_column(
        sa.Integer, nullable=False, default=0)
    memory_mb_used: Mapped[int] = mapped_column(
        sa.Integer, nullable=False, default=0)
    local_gb_used: Mapped[int] = mapped_column(
        sa.Integer, nullable=False, default=0)
    running_vms: Mapped[int] = mapped_column(
        sa.Integer, nullable=False, default=0)
    free_ram_mb: Mapped[int | None] = mapped_column(sa.Integer)
    free_disk_gb: Mapped[int | None] = mapped_column(sa.Integer)
    disk_available_least: Mapped[int | None] = mapped_column(sa.Integer)
    hypervisor_type: Mapped[str | None] = mapped_column(Str)
    hypervisor_version: Mapped[int | None] = mapped_column(sa.Integer)
    cpu_info: Mapped[str | None] = mapped_column(sa.Text)
    cpu_allocation_ratio: Mapped[float | None] = mapped_column(sa.Float)
    ram_allocation_ratio: Mapped[float | None] = mapped_column(sa.Float)
    disk_allocation_ratio: Mapped[float | None] = mapped_column(sa.Float)
    mapped: Mapped[int] = mapped_column(
        sa.Integer, nullable=False, default=0, server_default='0')
    failed_builds: Mapped[int] = mapped_column(
        sa.Integer, nullable=False, default=0, server_default='0')
    stats: Mapped[dict | None] = mapped_column(types.JSONEncoded)


class Instance(Base, types.TimestampMixin, types.SoftDeleteMixin):
    """A server of the cell; the flavor is embedded as JSON (cur/old/new)."""

    __tablename__ = 'instances'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_instances0uuid'),
        sa.Index('instances_host_node_deleted_idx', 'host', 'node',
                 'deleted'),
        # A project's quota count reads this index alone (migration
        # 0007).
        sa.Index('instances_project_id_deleted_user_id_usage_idx',
                 'project_id', 'deleted', 'user_id', 'vm_state', 'vcpus',
                 'memory_mb'),
        sa.Index('instances_compute_id_deleted_idx', 'compute_id',
                 'deleted'),
        sa.Index('instances_reservation_id_idx', 'reservation_id'),
        sa.Index('instances_updated_at_idx', 'updated_at'),
        sa.Index('instances_created_at_idx', 'created_at'),
        sa.Index('instances_deleted_at_idx', 'deleted_at'),
        # The server list's order (newest first, then uuid), of all
        # projects and of one.
        sa.Index('instances_deleted_created_at_uuid_idx', 'deleted',
                 'created_at', 'uuid'),
        sa.Index('instances_project_id_deleted_created_at_uuid_idx',
                 'project_id', 'deleted', 'created_at', 'uuid'),
    )

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    user_id: Mapped[str | None] = mapped_column(Str)
    project_id: Mapped[str | None] = mapped_column(Str)
    image_ref: Mapped[str | None] = mapped_column(Str)
    hostname: Mapped[str | None] = mapped_column(Str)
    display_name: Mapped[str | None] = mapped_column(Str)
    display_description: Mapped[str | None] = mapped_column(sa.Text)
    vm_state: Mapped[str | None] = mapped_column(Str)
    task_state: Mapped[str | None] = mapped_column(Str)
    power_state: Mapped[int | None] = mapped_column(sa.Integer)
    memory_mb: Mapped[int | None] = mapped_column(sa.Integer)
    vcpus: Mapped[int | None] = mapped_column(sa.Integer)
    root_gb: Mapped[int | None] = mapped_column(sa.Integer)
    ephemeral_gb: Mapped[int | None] = mapped_column(sa.Integer)
    host: Mapped[str | None] = mapped_column(Str)
    node: Mapped[str | None] = mapped_column(Str)
    compute_id: Mapped[int | None] = mapped_column(sa.Integer)
    instance_type_id: Mapped[int | None] = mapped_column(sa.Integer)
    flavor: Mapped[dict | None] = mapped_column(types.JSONEncoded)
    reservation_id: Mapped[str | None] = mapped_column(Str)
    launch_index: Mapped[int | None] = mapped_column(sa.Integer)
    launched_at: Mapped[datetime.datetime | None] = mapped_column(
        types.DateTime)
    terminated_at: Mapped[datetime.datetime | None] = mapped_column(
        types.DateTime)
    availability_zone: Mapped[str | None] = mapped_column(Str)
    launched_on: Mapped[str | None] = mapped_column(sa.Text)
    locked: Mapped[bool] = mapped_column(
        sa.Boolean, nullable=False, default=False, server_default=sa.false())
    locked_by: Mapped[str | None] = mapped_column(sa.String(16))
    key_name: Mapped[str | None] = mapped_column(Str)
    key_data: Mapped[str | None] = mapped_column(types.LargeText)
    user_data: Mapped[str | None] = mapped_column(types.LargeText)
    config_drive: Mapped[str | None] = mapped_column(Str)
    # OS-DCF:diskConfig: AUTO (true) or MANUAL.
    auto_disk_config: Mapped[bool] = mapped_column(
        sa.Boolean, nullable=False, default=False, server_default=sa.false())
    metadata_: Mapped[dict | None] = mapped_column(
        'metadata', types.JSONEncoded)
    system_metadata: Mapped[dict | None] = mapped_column(types.JSONEncoded)
    extra: Mapped[dict | None] = mapped_column(types.JSONEncoded)
    progress: Mapped[int | None] = mapped_column(sa.Integer)
    cleaned: Mapped[bool] = mapped_column(
        sa.Boolean, nullable=False, default=False, server_default=sa.false())
    hidden: Mapped[bool] = mapped_column(
        sa.Boolean, nullable=False, default=False, server_default=sa.false())


class InstanceFault(Base, types.TimestampMixin, types.SoftDeleteMixin):
    """Why an instance went wrong (shown in the server's ``fault``)."""

    __tablename__ = 'instance_faults'
    __table_args__ = (
        sa.Index('instance_faults_instance_uuid_deleted_created_at_idx',
                 'instance_uuid', 'deleted', 'created_at'),
    )

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    instance_uuid: Mapped[str] = mapped_column(
        sa.String(36), nullable=False)
    code: Mapped[int] = mapped_column(sa.Integer, nullable=False)
    message: Mapped[str | None] = mapped_column(Str)
    details: Mapped[str | None] = mapped_column(types.LargeText)
    host: Mapped[str | None] = mapped_column(Str)


class InstanceAction(Base, types.TimestampMixin, types.SoftDeleteMixin):
    """A user-visible action on an instance (os-instance-actions)."""

    __tablename__ = 'instance_actions'
    __table_args__ = (
        sa.Index('instance_uuid_idx', 'instance_uuid'),
        sa.Index('request_id_idx', 'request_id'),
    )

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    action: Mapped[str | None] = mapped_column(Str)
    instance_uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    request_id: Mapped[str | None] = mapped_column(Str)
    user_id: Mapped[str | None] = mapped_column(Str)
    project_id: Mapped[str | None] = mapped_column(Str)
    start_time: Mapped[datetime.datetime | None] = mapped_column(
        types.DateTime)
    finish_time: Mapped[datetime.datetime | None] = mapped_column(
        types.DateTime)
    message: Mapped[str | None] = mapped_column(Str)


class InstanceActionEvent(Base, types.TimestampMixin, types.SoftDeleteMixin):
    """One step of an action, as recorded by the service that ran it."""

    __tablename__ = 'instance_actions_events'

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    event: Mapped[str | None] = mapped_column(Str)
    action_id: Mapped[int] = mapped_column(
        sa.Integer, sa.ForeignKey('instance_actions.id'), nullable=False)
    start_time: Mapped[datetime.datetime | None] = mapped_column(
        types.DateTime)
    finish_time: Mapped[datetime.datetime | None] = mapped_column(
        types.DateTime)
    result: Mapped[str | None] = mapped_column(Str)
    traceback: Mapped[str | None] = mapped_column(sa.Text)
    host: Mapped[str | None] = mapped_column(Str)
    details: Mapped[str | None] = mapped_column(sa.Text)


class Migration(Base, types.TimestampMixin, types.SoftDeleteMixin):
    """A move of an instance (migration, resize, live-migration, evacuation).

    Its uuid is the placement consumer that holds the source allocation
    while the move is in progress.
    """

    __tablename__ = 'migrations'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_migrations0uuid'),
        sa.Index('migrations_instance_uuid_and_status_idx', 'deleted',
                 'instance_uuid', 'status'),
        sa.Index('migrations_by_source_compute_and_status_idx', 'deleted',
                 'source_compute', 'status'),
        sa.Index('migrations_by_dest_compute_and_status_idx', 'deleted',
                 'dest_compute', 'status'),
    )

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    source_compute: Mapped[str | None] = mapped_column(Str)
    dest_compute: Mapped[str | None] = mapped_column(Str)
    source_node: Mapped[str | None] = mapped_column(Str)
    dest_node: Mapped[str | None] = mapped_column(Str)
    dest_compute_id: Mapped[int | None] = mapped_column(sa.Integer)
    dest_host: Mapped[str | None] = mapped_column(Str)
    old_instance_type_id: Mapped[int | None] = mapped_column(sa.Integer)
    new_instance_type_id: Mapped[int | None] = mapped_column(sa.Integer)
    instance_uuid: Mapped[str | None] = mapped_column(sa.String(36))
    status: Mapped[str | None] = mapped_column(Str)
    migration_type: Mapped[str] = mapped_column(
        sa.String(32), nullable=False, default='migration')
    hidden: Mapped[bool] = mapped_column(
        sa.Boolean, nullable=False, default=False, server_default=sa.false())
    cross_cell_move: Mapped[bool] = mapped_column(
        sa.Boolean, nullable=False, default=False, server_default=sa.false())
    user_id: Mapped[str | None] = mapped_column(Str)
    project_id: Mapped[str | None] = mapped_column(Str)
    memory_total: Mapped[int | None] = mapped_column(sa.BigInteger)
    memory_processed: Mapped[int | None] = mapped_column(sa.BigInteger)
    memory_remaining: Mapped[int | None] = mapped_column(sa.BigInteger)
    disk_total: Mapped[int | None] = mapped_column(sa.BigInteger)
    disk_processed: Mapped[int | None] = mapped_column(sa.BigInteger)
    disk_remaining: Mapped[int | None] = mapped_column(sa.BigInteger)


class TaskLog(Base, types.TimestampMixin):
    """One run of a periodic audit task on a host for a period (the
    instance usage audit that os-instance_usage_audit_log reports)."""

    __tablename__ = 'task_log'
    __table_args__ = (
        sa.UniqueConstraint(
            'task_name', 'host', 'period_beginning', 'period_ending',
            name='uniq_task_log0task_name0host0period_beginning0'
                 'period_ending'),
        sa.Index('ix_task_log_period_beginning', 'period_beginning'),
        sa.Index('ix_task_log_host', 'host'),
        sa.Index('ix_task_log_period_ending', 'period_ending'),
    )

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    task_name: Mapped[str] = mapped_column(Str, nullable=False)
    state: Mapped[str] = mapped_column(Str, nullable=False)
    host: Mapped[str] = mapped_column(Str, nullable=False)
    period_beginning: Mapped[datetime.datetime] = mapped_column(
        types.DateTime, nullable=False)
    period_ending: Mapped[datetime.datetime] = mapped_column(
        types.DateTime, nullable=False)
    message: Mapped[str] = mapped_column(Str, nullable=False)
    task_items: Mapped[int | None] = mapped_column(sa.Integer, default=0)
    errors: Mapped[int | None] = mapped_column(sa.Integer, default=0)


class SchedulingDecision(Base, types.TimestampMixin):
    """Why an instance landed where it did: the scheduler's decision for
    one action (boot, resize, ...) and the reschedules that followed, as
    JSON (``nova_lite.scheduler.decision``), pruned by age."""

    __tablename__ = 'scheduling_decisions'
    __table_args__ = (
        sa.Index('scheduling_decisions_instance_uuid_idx', 'instance_uuid'),
        sa.Index('scheduling_decisions_created_at_idx', 'created_at'),
    )

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    instance_uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    action_id: Mapped[int | None] = mapped_column(sa.Integer)
    request_id: Mapped[str | None] = mapped_column(Str)
    kind: Mapped[str | None] = mapped_column(Str)
    summary: Mapped[str | None] = mapped_column(Str)
    record: Mapped[str | None] = mapped_column(types.LargeText)
