"""API database API: cell, host and instance mappings, flavors.

Every function takes a :class:`nova_lite.context.RequestContext` and uses
the ``[api_database]`` transaction context. Write functions are whole
transactions, retried on deadlocks and SQLite lock timeouts; call them
outside any transaction of your own. Rows come back detached, with their
columns (and mappings' ``cell_mapping``) loaded; change them through the
``*_update`` functions.

Build requests, request specs, aggregates, server groups, key pairs and
quotas are in :mod:`nova_lite.db.api.build_api` and friends as they are
needed.
"""

from oslo_utils import uuidutils
import sqlalchemy as sa
from sqlalchemy.orm import exc as orm_exc

from nova_lite.db.api import models
from nova_lite.db import rows
from nova_lite.db import session
from nova_lite import exception

CELL0_UUID = '00000000-0000-0000-0000-000000000000'


def _writer(context):
    return session.get_api_context_manager().writer.using(context)


def _reader(context):
    return session.get_api_context_manager().reader.using(context)


# -- cell mappings ----------------------------------------------------------

@session.retry_on_transient
def cell_mapping_create(context, values):
    """Insert a cell mapping (raises CellMappingExists on a taken uuid)."""
    values = dict(values)
    values.setdefault('uuid', uuidutils.generate_uuid())
    cell = models.CellMapping()
    cell.update(values)
    return rows.insert(_writer(context), cell, exception.CellMappingExists(
        name=values.get('name')))


def _cell_get(s, column, value):
    return rows.first_or_raise(
        s, sa.select(models.CellMapping).where(column == value),
        exception.CellMappingNotFound(uuid=value))


@session.retry_on_transient
def cell_mapping_get_by_uuid(context, cell_uuid):
    with _reader(context) as s:
        return _cell_get(s, models.CellMapping.uuid, cell_uuid)


@session.retry_on_transient
def cell_mapping_get_by_name(context, name):
    """The first cell named ``name`` (CellMappingNotFound)."""
    with _reader(context) as s:
        return _cell_get(s, models.CellMapping.name, name)


@session.retry_on_transient
def cell_mapping_get_all(context):
    """Every cell, cell0 first, then by id (the order nova lists them)."""
    query = sa.select(models.CellMapping).order_by(
        models.CellMapping.uuid != CELL0_UUID, models.CellMapping.id)
    with _reader(context) as s:
        return list(s.scalars(query))


@session.retry_on_transient
def cell_mapping_update(context, cell_uuid, values):
    with _writer(context) as s:
        cell = _cell_get(s, models.CellMapping.uuid, cell_uuid)
        cell.update(values)
        s.flush()
    return cell


@session.retry_on_transient
def cell_mapping_delete(context, cell_uuid):
    """Delete a cell mapping; its host and instance mappings must be gone."""
    with _writer(context) as s:
        s.delete(_cell_get(s, models.CellMapping.uuid, cell_uuid))


# -- host mappings ----------------------------------------------------------

@session.retry_on_transient
def host_mapping_create(context, host, cell_id):
    """Map ``host`` to the cell with primary key ``cell_id``.

    Raises HostMappingExists when the host is mapped already.
    """
    return rows.insert(_writer(context),
                       models.HostMapping(host=host, cell_id=cell_id),
                       exception.HostMappingExists(name=host), refresh=True)


@session.retry_on_transient
def host_mapping_get_by_host(context, host):
    """The mapping of ``host``, with ``cell_mapping`` (HostMappingNotFound)."""
    with _reader(context) as s:
        return rows.first_or_raise(
            s, sa.select(models.HostMapping).where(
                models.HostMapping.host == host),
            exception.HostMappingNotFound(name=host))


@session.retry_on_transient
def host_mapping_get_all(context, cell_id=None):
    """Every host mapping, or those of the cell with primary key cell_id."""
    query = sa.select(models.HostMapping).order_by(models.HostMapping.id)
    if cell_id is not None:
        query = query.where(models.HostMapping.cell_id == cell_id)
    with _reader(context) as s:
        return list(s.scalars(query))


@session.retry_on_transient
def host_mapping_delete(context, host):
    with _writer(context) as s:
        count = s.execute(sa.delete(models.HostMapping).where(
            models.HostMapping.host == host)).rowcount
    if not count:
        raise exception.HostMappingNotFound(name=host)


# -- instance mappings ------------------------------------------------------

@session.retry_on_transient
def instance_mapping_create(context, values):
    """Insert an instance mapping (``cell_id`` None while building)."""
    mapping = models.InstanceMapping()
    mapping.update(values)
    return rows.insert(_writer(context), mapping,
                       exception.InstanceMappingExists(
                           uuid=values.get('instance_uuid')), refresh=True)


@session.retry_on_transient
def instance_mappings_create(context, values):
    """Insert instance mappings (dicts as :func:`instance_mapping_create`
    takes) with one statement; nothing is returned."""
    rows.insert_many(_writer(context), models.InstanceMapping, values,
                     exception.InstanceMappingExists(uuid=', '.join(
                         v['instance_uuid'] for v in values)))


def _instance_mapping_get(s, instance_uuid):
    return rows.first_or_raise(
        s, sa.select(models.InstanceMapping).where(
            models.InstanceMapping.instance_uuid == instance_uuid),
        exception.InstanceMappingNotFound(uuid=instance_uuid))


@session.retry_on_transient
def instance_mapping_get_by_instance_uuid(context, instance_uuid):
    with _reader(context) as s:
        return _instance_mapping_get(s, instance_uuid)


@session.retry_on_transient
def instance_mapping_get_by_project(context, project_id=None, cell_id=None,
                                    limit=None):
    """Instance mappings, filtered by project and/or cell, oldest first."""
    query = sa.select(models.InstanceMapping).order_by(
        models.InstanceMapping.id)
    if project_id is not None:
        query = query.where(models.InstanceMapping.project_id == project_id)
    if cell_id is not None:
        query = query.where(models.InstanceMapping.cell_id == cell_id)
    if limit is not None:
        query = query.limit(limit)
    with _reader(context) as s:
        return list(s.scalars(query))


@session.retry_on_transient
def instance_mapping_update(context, instance_uuid, values):
    """InstanceMappingNotFound also when the mapping is deleted between
    this read and this write (a user's delete racing the conductor's
    burial or build: on MariaDB the read takes no lock, and the ORM's
    UPDATE then matches no row)."""
    try:
        with _writer(context) as s:
            mapping = _instance_mapping_get(s, instance_uuid)
            mapping.update(values)
            s.flush()
            s.refresh(mapping)
    except orm_exc.StaleDataError:
        raise exception.InstanceMappingNotFound(uuid=instance_uuid)
    return mapping


@session.retry_on_transient
def instance_mapping_queue_for_delete(context, instance_uuid):
    """Mark the mapping queued for delete in one UPDATE, without reading
    it first (InstanceMappingNotFound when there is none)."""
    with _writer(context) as s:
        result = s.execute(
            sa.update(models.InstanceMapping).where(
                models.InstanceMapping.instance_uuid == instance_uuid).values(
                queued_for_delete=True))
        if not result.rowcount:
            raise exception.InstanceMappingNotFound(uuid=instance_uuid)


@session.retry_on_transient
def instance_mapping_delete(context, instance_uuid):
    with _writer(context) as s:
        s.delete(_instance_mapping_get(s, instance_uuid))


@session.retry_on_transient
def instance_mapping_count_by_cell(context, cell_id):
    """How many instances are mapped to the cell (not queued for delete)."""
    with _reader(context) as s:
        return s.scalar(sa.select(sa.func.count()).where(
            models.InstanceMapping.cell_id == cell_id,
            models.InstanceMapping.queued_for_delete == sa.false()))


# -- flavors ----------------------------------------------------------------

@session.retry_on_transient
def flavor_create(context, values, extra_specs=None, projects=None):
    """Insert a flavor with its extra specs and (private) projects.

    ``flavorid`` defaults to a new uuid. Raises FlavorExists on a taken
    name or flavorid.
    """
    values = dict(values)
    values.setdefault('flavorid', uuidutils.generate_uuid())
    flavor = models.Flavor()
    flavor.update(values)
    flavor.extra_specs_rows = [
        models.FlavorExtraSpec(key=k, value=v)
        for k, v in (extra_specs or {}).items()]
    flavor.project_rows = [models.FlavorProject(project_id=p)
                           for p in projects or ()]
    return rows.insert(_writer(context), flavor, exception.FlavorExists(
        name=values.get('name'), flavor_id=values['flavorid']))


def _flavor_get(s, column, value):
    return rows.first_or_raise(
        s, sa.select(models.Flavor).where(column == value),
        exception.FlavorNotFound(flavor_id=value))


@session.retry_on_transient
def flavor_get(context, flavor_pk):
    """The flavor with primary key ``flavor_pk``."""
    with _reader(context) as s:
        return _flavor_get(s, models.Flavor.id, flavor_pk)


@session.retry_on_transient
def flavor_get_by_flavor_id(context, flavorid):
    """The flavor whose public id is ``flavorid`` (FlavorNotFound)."""
    with _reader(context) as s:
        return _flavor_get(s, models.Flavor.flavorid, flavorid)


@session.retry_on_transient
def flavor_get_by_name(context, name):
    with _reader(context) as s:
        return _flavor_get(s, models.Flavor.name, name)


@session.retry_on_transient
def flavor_get_all(context, is_public=None, project_id=None,
                   include_disabled=True, min_memory_mb=None,
                   min_root_gb=None):
    """Flavors sorted by flavorid's natural order (memory, then id).

    With ``project_id``, private flavors appear only to their projects
    (``is_public`` None means "public ones plus this project's private").
    """
    query = sa.select(models.Flavor).order_by(models.Flavor.memory_mb,
                                              models.Flavor.flavorid)
    if not include_disabled:
        query = query.where(models.Flavor.disabled == sa.false())
    if min_memory_mb is not None:
        query = query.where(models.Flavor.memory_mb >= min_memory_mb)
    if min_root_gb is not None:
        query = query.where(models.Flavor.root_gb >= min_root_gb)
    if is_public is not None:
        query = query.where(models.Flavor.is_public == is_public)
    if project_id is not None:
        allowed = sa.select(models.FlavorProject.flavor_id).where(
            models.FlavorProject.project_id == project_id)
        query = query.where(sa.or_(models.Flavor.is_public == sa.true(),
                                   models.Flavor.id.in_(allowed)))
    with _reader(context) as s:
        return list(s.scalars(query))


@session.retry_on_transient
def flavor_update(context, flavorid, values):
    """Update a flavor's own columns (description, disabled, ...)."""
    with _writer(context) as s:
        flavor = _flavor_get(s, models.Flavor.flavorid, flavorid)
        flavor.update(values)
        s.flush()
    return flavor


@session.retry_on_transient
def flavor_extra_specs_update(context, flavorid, extra_specs):
    """Add or replace extra specs; returns the flavor's full spec dict."""
    with _writer(context) as s:
        flavor = _flavor_get(s, models.Flavor.flavorid, flavorid)
        rows = {row.key: row for row in flavor.extra_specs_rows}
        for key, value in extra_specs.items():
            if key in rows:
                rows[key].value = value
            else:
                flavor.extra_specs_rows.append(
                    models.FlavorExtraSpec(key=key, value=value))
        s.flush()
        return flavor.extra_specs


@session.retry_on_transient
def flavor_extra_spec_delete(context, flavorid, key):
    with _writer(context) as s:
        flavor = _flavor_get(s, models.Flavor.flavorid, flavorid)
        count = s.execute(sa.delete(models.FlavorExtraSpec).where(
            models.FlavorExtraSpec.flavor_id == flavor.id,
            models.FlavorExtraSpec.key == key)).rowcount
    if not count:
        raise exception.NotFound(
            'Flavor %s has no extra spec %s.' % (flavorid, key))


@session.retry_on_transient
def flavor_add_project(context, flavorid, project_id):
    taken = exception.Conflict(
        reason='project %s already has access to flavor %s' % (
            project_id, flavorid))
    with rows.duplicate_raises(taken), _writer(context) as s:
        flavor = _flavor_get(s, models.Flavor.flavorid, flavorid)
        s.add(models.FlavorProject(flavor_id=flavor.id,
                                   project_id=project_id))
        s.flush()


@session.retry_on_transient
def flavor_remove_project(context, flavorid, project_id):
    with _writer(context) as s:
        flavor = _flavor_get(s, models.Flavor.flavorid, flavorid)
        count = s.execute(sa.delete(models.FlavorProject).where(
            models.FlavorProject.flavor_id == flavor.id,
            models.FlavorProject.project_id == project_id)).rowcount
    if not count:
        raise exception.NotFound(
            'Project %s has no access to flavor %s.' % (project_id, flavorid))


@session.retry_on_transient
def flavor_destroy(context, flavorid):
    """Delete a flavor with its extra specs and project access."""
    with _writer(context) as s:
        s.delete(_flavor_get(s, models.Flavor.flavorid, flavorid))
