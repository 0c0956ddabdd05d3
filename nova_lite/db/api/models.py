"""Schema of the API database, as SQLAlchemy declarative models.

The API database holds what is global to the deployment: where each cell
is (cell mappings), which cell each host and instance lives in (host and
instance mappings), builds not yet in a cell (build requests, request
specs), flavors, aggregates, server groups, key pairs and quota limits.
Nothing here is soft-deleted.

The alembic migrations in ``migrations/versions`` must produce exactly this
schema; ``tests/functional/db/test_migrations.py`` checks it.
"""

import sqlalchemy as sa
from sqlalchemy import orm

from nova_lite.db import types

Mapped = orm.Mapped
mapped_column = orm.mapped_column
Str = sa.String(255)


class Base(orm.DeclarativeBase, types.ModelMixin):
    """Declarative base of the API database."""


class _Row(types.TimestampMixin):
    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)


class CellMapping(Base, _Row):
    """Where a cell's database and message bus are."""

    __tablename__ = 'cell_mappings'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_cell_mappings0uuid'),
    )

    uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    name: Mapped[str | None] = mapped_column(Str)
    transport_url: Mapped[str] = mapped_column(sa.Text, nullable=False)
    database_connection: Mapped[str] = mapped_column(sa.Text, nullable=False)
    disabled: Mapped[bool] = mapped_column(
        sa.Boolean, nullable=False, default=False, server_default=sa.false())


class HostMapping(Base, _Row):
    """Which cell a compute host belongs to."""

    __tablename__ = 'host_mappings'
    __table_args__ = (
        sa.UniqueConstraint('host', name='uniq_host_mappings0host'),
        sa.Index('host_mappings_cell_id_idx', 'cell_id'),
    )

    host: Mapped[str] = mapped_column(Str, nullable=False)
    cell_id: Mapped[int] = mapped_column(
        sa.Integer, sa.ForeignKey('cell_mappings.id'), nullable=False)
    cell_mapping: Mapped['CellMapping'] = orm.relationship(lazy='joined')


class InstanceMapping(Base, _Row):
    """Which cell an instance lives in (none yet while it is being built)."""

    __tablename__ = 'instance_mappings'
    __table_args__ = (
        sa.UniqueConstraint('instance_uuid',
                            name='uniq_instance_mappings0instance_uuid'),
        sa.Index('instance_mappings_project_id_idx', 'project_id'),
        sa.Index('instance_mappings_cell_id_idx', 'cell_id'),
    )

    instance_uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    cell_id: Mapped[int | None] = mapped_column(
        sa.Integer, sa.ForeignKey('cell_mappings.id'))
    cell_mapping: Mapped['CellMapping | None'] = orm.relationship(
        lazy='joined')
    project_id: Mapped[str] = mapped_column(Str, nullable=False)
    user_id: Mapped[str | None] = mapped_column(Str)
    queued_for_delete: Mapped[bool] = mapped_column(
        sa.Boolean, nullable=False, default=False, server_default=sa.false())


class RequestSpec(Base, _Row):
    """The scheduling request of an instance, kept for moves (JSON)."""

    __tablename__ = 'request_specs'
    __table_args__ = (
        sa.UniqueConstraint('instance_uuid',
                            name='uniq_request_specs0instance_uuid'),
    )

    instance_uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    spec: Mapped[dict] = mapped_column(types.JSONEncoded, nullable=False)


class BuildRequest(Base, _Row):
    """An instance accepted by the API and not yet created in a cell."""

    __tablename__ = 'build_requests'
    __table_args__ = (
        sa.UniqueConstraint('instance_uuid',
                            name='uniq_build_requests0instance_uuid'),
        sa.Index('build_requests_project_id_idx', 'project_id'),
    )

    instance_uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    project_id: Mapped[str] = mapped_column(Str, nullable=False)
    instance: Mapped[dict | None] = mapped_column(types.JSONEncoded)
    block_device_mappings: Mapped[list | None] = mapped_column(
        types.JSONEncoded)
    tags: Mapped[list | None] = mapped_column(types.JSONEncoded)


class Flavor(Base, _Row):
    """A size of server."""

    __tablename__ = 'flavors'
    __table_args__ = (
        sa.UniqueConstraint('flavorid', name='uniq_flavors0flavorid'),
        sa.UniqueConstraint('name', name='uniq_flavors0name'),
    )

    name: Mapped[str] = mapped_column(Str, nullable=False)
    flavorid: Mapped[str] = mapped_column(Str, nullable=False)
    memory_mb: Mapped[int] = mapped_column(sa.Integer, nullable=False)
    vcpus: Mapped[int] = mapped_column(sa.Integer, nullable=False)
    root_gb: Mapped[int | None] = mapped_column(sa.Integer)
    ephemeral_gb: Mapped[int | None] = mapped_column(sa.Integer)
    swap: Mapped[int] = mapped_column(
        sa.Integer, nullable=False, default=0, server_default='0')
    rxtx_factor: Mapped[float | None] = mapped_column(sa.Float, default=1.0)
    vcpu_weight: Mapped[int | None] = mapped_column(sa.Integer)
    disabled: Mapped[bool] = mapped_column(
        sa.Boolean, nullable=False, default=False, server_default=sa.false())
    is_public: Mapped[bool] = mapped_column(
        sa.Boolean, nullable=False, default=True, server_default=sa.true())
    description: Mapped[str | None] = mapped_column(sa.Text)
    extra_specs_rows: Mapped[list['FlavorExtraSpec']] = orm.relationship(
        lazy='selectin', cascade='all, delete-orphan', passive_deletes=True)
    project_rows: Mapped[list['FlavorProject']] = orm.relationship(
        lazy='selectin', cascade='all, delete-orphan', passive_deletes=True)

    @property
    def extra_specs(self):
        return {row.key: row.value for row in self.extra_specs_rows}

    @property
    def projects(self):
        return [row.project_id for row in self.project_rows]


class FlavorExtraSpec(Base, _Row):
    """One ``key=value`` extra spec of a flavor."""

    __tablename__ = 'flavor_extra_specs'
    __table_args__ = (
        sa.UniqueConstraint('flavor_id', 'key',
                            name='uniq_flavor_extra_specs0flavor_id0key'),
    )

    flavor_id: Mapped[int] = mapped_column(
        sa.Integer, sa.ForeignKey('flavors.id', ondelete='CASCADE'),
        nullable=False)
    key: Mapped[str] = mapped_column(Str, nullable=False)
    value: Mapped[str | None] = mapped_column(Str)


class FlavorProject(Base, _Row):
    """A project allowed to use a private flavor."""

    __tablename__ = 'flavor_projects'
    __table_args__ = (
        sa.UniqueConstraint('flavor_id', 'project_id',
                            name='uniq_flavor_projects0flavor_id0project_id'),
    )

    flavor_id: Mapped[int] = mapped_column(
        sa.Integer, sa.ForeignKey('flavors.id', ondelete='CASCADE'),
        nullable=False)
    project_id: Mapped[str] = mapped_column(Str, nullable=False)


class Aggregate(Base, _Row):
    """A host aggregate; availability zones are its metadata."""

    __tablename__ = 'aggregates'
    __table_args__ = (
        sa.UniqueConstraint('name', name='uniq_aggregate0name'),
        sa.Index('aggregate_uuid_idx', 'uuid'),
    )

    uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    name: Mapped[str] = mapped_column(Str, nullable=False)
    host_rows: Mapped[list['AggregateHost']] = orm.relationship(
        lazy='selectin', cascade='all, delete-orphan', passive_deletes=True)
    metadata_rows: Mapped[list['AggregateMetadata']] = orm.relationship(
        lazy='selectin', cascade='all, delete-orphan', passive_deletes=True)

    @property
    def hosts(self):
        return [row.host for row in self.host_rows]

    @property
    def metadetails(self):
        return {row.key: row.value for row in self.metadata_rows}


class AggregateHost(Base, _Row):
    """Membership of a host in an aggregate."""

    __tablename__ = 'aggregate_hosts'
    __table_args__ = (
        sa.UniqueConstraint('host', 'aggregate_id',
                            name='uniq_aggregate_hosts0host0aggregate_id'),
    )

    host: Mapped[str] = mapped_column(Str, nullable=False)
    aggregate_id: Mapped[int] = mapped_column(
        sa.Integer, sa.ForeignKey('aggregates.id', ondelete='CASCADE'),
        nullable=False)


class AggregateMetadata(Base, _Row):
    """One ``key=value`` of an aggregate (``availability_zone`` included)."""

    __tablename__ = 'aggregate_metadata'
    __table_args__ = (
        sa.UniqueConstraint('aggregate_id', 'key',
                            name='uniq_aggregate_metadata0aggregate_id0key'),
        sa.Index('aggregate_metadata_key_idx', 'key'),
    )

    aggregate_id: Mapped[int] = mapped_column(
        sa.Integer, sa.ForeignKey('aggregates.id', ondelete='CASCADE'),
        nullable=False)
    key: Mapped[str] = mapped_column(Str, nullable=False)
    value: Mapped[str] = mapped_column(Str, nullable=False)


class InstanceGroup(Base, _Row):
    """A server group."""

    __tablename__ = 'instance_groups'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_instance_groups0uuid'),
    )

    uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    name: Mapped[str | None] = mapped_column(Str)
    user_id: Mapped[str | None] = mapped_column(Str)
    project_id: Mapped[str | None] = mapped_column(Str)
    policy_rows: Mapped[list['InstanceGroupPolicy']] = orm.relationship(
        lazy='selectin', cascade='all, delete-orphan', passive_deletes=True)
    member_rows: Mapped[list['InstanceGroupMember']] = orm.relationship(
        lazy='selectin', cascade='all, delete-orphan', passive_deletes=True)

    @property
    def members(self):
        return [row.instance_uuid for row in self.member_rows]


class InstanceGroupPolicy(Base, _Row):
    """The policy of a server group, with its rules (JSON)."""

    __tablename__ = 'instance_group_policy'
    __table_args__ = (
        sa.Index('instance_group_policy_policy_idx', 'policy'),
    )

    policy: Mapped[str | None] = mapped_column(Str)
    rules: Mapped[dict | None] = mapped_column(types.JSONEncoded)
    group_id: Mapped[int] = mapped_column(
        sa.Integer, sa.ForeignKey('instance_groups.id', ondelete='CASCADE'),
        nullable=False)


class InstanceGroupMember(Base, _Row):
    """An instance that belongs to a server group."""

    __tablename__ = 'instance_group_member'
    __table_args__ = (
        sa.Index('instance_group_member_instance_idx', 'instance_uuid'),
    )

    instance_uuid: Mapped[str | None] = mapped_column(sa.String(36))
    group_id: Mapped[int] = mapped_column(
        sa.Integer, sa.ForeignKey('instance_groups.id', ondelete='CASCADE'),
        nullable=False)


class KeyPair(Base, _Row):
    """A user's SSH (or x509) public key."""

    __tablename__ = 'key_pairs'
    __table_args__ = (
        sa.UniqueConstraint('user_id', 'name',
                            name='uniq_key_pairs0user_id0name'),
    )

    name: Mapped[str] = mapped_column(Str, nullable=False)
    user_id: Mapped[str] = mapped_column(Str, nullable=False)
    fingerprint: Mapped[str | None] = mapped_column(Str)
    public_key: Mapped[str | None] = mapped_column(sa.Text)
    type: Mapped[str] = mapped_column(
        sa.String(16), nullable=False, default='ssh', server_default='ssh')


class Quota(Base, _Row):
    """A project's limit on one resource."""

    __tablename__ = 'quotas'
    __table_args__ = (
        sa.UniqueConstraint('project_id', 'resource',
                            name='uniq_quotas0project_id0resource'),
    )

    project_id: Mapped[str | None] = mapped_column(Str)
    resource: Mapped[str] = mapped_column(Str, nullable=False)
    hard_limit: Mapped[int | None] = mapped_column(sa.Integer)


class ProjectUserQuota(Base, _Row):
    """A user's limit on one resource within a project."""

    __tablename__ = 'project_user_quotas'
    __table_args__ = (
        sa.UniqueConstraint(
            'user_id', 'project_id', 'resource',
            name='uniq_project_user_quotas0user_id0project_id0resource'),
        sa.Index('project_user_quotas_project_id_idx', 'project_id'),
    )

    project_id: Mapped[str] = mapped_column(Str, nullable=False)
    user_id: Mapped[str] = mapped_column(Str, nullable=False)
    resource: Mapped[str] = mapped_column(Str, nullable=False)
    hard_limit: Mapped[int | None] = mapped_column(sa.Integer)


class QuotaClass(Base, _Row):
    """A quota class's limit on one resource; the class ``default``
    overrides the ``[quota]`` defaults of every project."""

    __tablename__ = 'quota_classes'
    __table_args__ = (
        sa.Index('quota_classes_class_name_idx', 'class_name'),
    )

    class_name: Mapped[str | None] = mapped_column(Str)
    resource: Mapped[str | None] = mapped_column(Str)
    hard_limit: Mapped[int | None] = mapped_column(sa.Integer)


class Image(Base, _Row):
    """An image of the image service (Glance v2's fields); the extra
    properties and the tags are JSON, the data a file of the store."""

    __tablename__ = 'images'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_images0uuid'),
        sa.Index('images_owner_idx', 'owner'),
    )

    uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    name: Mapped[str | None] = mapped_column(Str)
    status: Mapped[str] = mapped_column(sa.String(30), nullable=False)
    visibility: Mapped[str] = mapped_column(sa.String(20), nullable=False)
    protected: Mapped[bool] = mapped_column(sa.Boolean, nullable=False,
                                            default=False)
    os_hidden: Mapped[bool] = mapped_column(sa.Boolean, nullable=False,
                                            default=False)
    owner: Mapped[str | None] = mapped_column(Str)
    size: Mapped[int | None] = mapped_column(sa.BigInteger)
    virtual_size: Mapped[int | None] = mapped_column(sa.BigInteger)
    disk_format: Mapped[str | None] = mapped_column(sa.String(20))
    container_format: Mapped[str | None] = mapped_column(sa.String(20))
    min_disk: Mapped[int] = mapped_column(sa.Integer, nullable=False,
                                          default=0)
    min_ram: Mapped[int] = mapped_column(sa.Integer, nullable=False,
                                         default=0)
    checksum: Mapped[str | None] = mapped_column(sa.String(32))
    os_hash_algo: Mapped[str | None] = mapped_column(sa.String(64))
    os_hash_value: Mapped[str | None] = mapped_column(sa.String(128))
    properties: Mapped[dict | None] = mapped_column(types.JSONEncoded)
    tags: Mapped[list | None] = mapped_column(types.JSONEncoded)


class ImageMember(Base, _Row):
    """A project an image is shared with, and its answer (status)."""

    __tablename__ = 'image_members'
    __table_args__ = (
        sa.UniqueConstraint('image_uuid', 'member',
                            name='uniq_image_members0image_uuid0member'),
        sa.Index('image_members_member_idx', 'member'),
    )

    image_uuid: Mapped[str] = mapped_column(
        sa.String(36), sa.ForeignKey('images.uuid', ondelete='CASCADE'),
        nullable=False)
    member: Mapped[str] = mapped_column(Str, nullable=False)
    status: Mapped[str] = mapped_column(sa.String(20), nullable=False,
                                        default='pending')


class NetworkResource(Base, _Row):
    """A resource of the network service (Neutron v2.0's shapes): a
    network, subnet, port, security group or rule, or floating IP.
    ``kind`` says which; ``body`` holds its API fields (JSON), the
    columns what the service looks resources up by."""

    __tablename__ = 'network_resources'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_network_resources0uuid'),
        sa.Index('network_resources_kind_project_idx', 'kind',
                 'project_id'),
        sa.Index('network_resources_device_idx', 'device_id'),
    )

    uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    kind: Mapped[str] = mapped_column(sa.String(32), nullable=False)
    project_id: Mapped[str | None] = mapped_column(Str)
    # A port's ``device_id`` (the server it is bound to), so a server's
    # ports are read through an index, not by scanning every port.
    device_id: Mapped[str | None] = mapped_column(Str)
    body: Mapped[dict | None] = mapped_column(types.JSONEncoded)


class NetworkIPAllocation(Base, _Row):
    """A fixed IP address held by a port (or a floating IP) on a
    network: unique per network, so two ports never get one address."""

    __tablename__ = 'network_ip_allocations'
    __table_args__ = (
        sa.UniqueConstraint(
            'network_uuid', 'ip_address',
            name='uniq_network_ip_allocations0network_uuid0ip_address'),
        sa.Index('network_ip_allocations_owner_idx', 'owner_uuid'),
    )

    network_uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    subnet_uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    ip_address: Mapped[str] = mapped_column(sa.String(64), nullable=False)
    owner_uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
