"""Inventories of a provider, one per resource class.

Every write is checked against the provider generation the caller sent and
bumps it. An inventory may not be removed while allocations use its class,
nor shrunk below what is allocated (both 409 ``placement.inventory.inuse``).
"""

import dataclasses

from oslo_db import exception as db_exc
from oslo_log import log as logging
import sqlalchemy as sa

from nova_lite.placement.db import api as db_api
from nova_lite.placement.db import models
from nova_lite.placement import exception
from nova_lite.placement.objects import common
from nova_lite.placement.objects import resource_provider as rp_obj

LOG = logging.getLogger(__name__)
INV = common.INV
ALLOC = common.ALLOC
FIELDS = ('total', 'reserved', 'min_unit', 'max_unit', 'step_size',
          'allocation_ratio')
DEFAULTS = {'reserved': 0, 'min_unit': 1, 'max_unit': 2147483647,
            'step_size': 1, 'allocation_ratio': 1.0}


def with_defaults(values):
    merged = dict(DEFAULTS)
    merged.update({k: v for k, v in values.items() if k in FIELDS})
    return merged


def capacity(inv):
    return int((inv['total'] - inv['reserved']) * inv['allocation_ratio'])


# Built once (see common._BUMP).
_ROWS = (sa.select(INV, common.RC.c.name.label('rc_name'))
         .select_from(INV.join(common.RC,
                               INV.c.resource_class_id == common.RC.c.id))
         .where(INV.c.resource_provider_id == sa.bindparam('rp_id'))
         .order_by(INV.c.resource_class_id))
_USAGE = (sa.select(common.RC.c.name, sa.func.sum(ALLOC.c.used))
          .select_from(ALLOC.join(common.RC,
                                  ALLOC.c.resource_class_id == common.RC.c.id))
          .where(ALLOC.c.resource_provider_id == sa.bindparam('rp_id'))
          .group_by(common.RC.c.name))
_INSERT = sa.insert(INV)


def _rows(context, rp_id):
    rows = context.session.execute(_ROWS, {'rp_id': rp_id}).all()
    return {r.rc_name: r for r in rows}


def _as_dict(row):
    return {f: getattr(row, f) for f in FIELDS}


def provider_inventories(context, rp_id):
    """{resource class: inventory dict} inside a transaction."""
    return {rc: _as_dict(r) for rc, r in _rows(context, rp_id).items()}


def _last_modified(rp, rows):
    stamps = [rp.last_modified] + [r.updated_at or r.created_at
                                   for r in rows]
    present = [s for s in stamps if s is not None]
    return max(present) if present else None


@db_api.reader
def get_all(context, rp_uuid):
    """(provider, {rc: inventory}, last modified)."""
    rp = rp_obj.find(context, rp_uuid)
    rows = _rows(context, rp.id)
    # NOTE(nova_lite): no rows, no last-modified (Placement sends none).
    return (rp, {rc: _as_dict(r) for rc, r in rows.items()},
            _last_modified(rp, rows.values()) if rows else None)


@db_api.reader
def get_one(context, rp_uuid, rc_name):
    rp = rp_obj.find(context, rp_uuid)
    rows = _rows(context, rp.id)
    if rc_name not in rows:
        raise exception.InventoryNotFound(resource_class=rc_name,
                                          uuid=rp_uuid)
    return rp, _as_dict(rows[rc_name]), _last_modified(rp, [rows[rc_name]])


def usage_by_class(context, rp_id):
    rows = context.session.execute(_USAGE, {'rp_id': rp_id}).all()
    return {name: int(used) for name, used in rows}


def _build_inventories_and_usage():
    used = (sa.select(ALLOC.c.resource_provider_id, ALLOC.c.resource_class_id,
                      sa.func.sum(ALLOC.c.used).label('used'))
            .where(ALLOC.c.resource_provider_id.in_(
                sa.bindparam('rp_ids', expanding=True)))
            .group_by(ALLOC.c.resource_provider_id,
                      ALLOC.c.resource_class_id).subquery())
    return (sa.select(INV, common.RC.c.name.label('rc_name'), used.c.used)
            .select_from(
                INV.join(common.RC, INV.c.resource_class_id == common.RC.c.id)
                .outerjoin(used, sa.and_(
                    used.c.resource_provider_id == INV.c.resource_provider_id,
                    used.c.resource_class_id == INV.c.resource_class_id)))
            .where(INV.c.resource_provider_id.in_(
                sa.bindparam('rp_ids', expanding=True))))


_INVENTORIES_AND_USAGE = _build_inventories_and_usage()


def inventories_and_usage(context, rp_ids):
    """{rp id: ({rc: inventory dict}, {rc: used})} of many providers, in
    one statement (the capacity check of an allocation write): each
    inventory with the sum of what is allocated of its class."""
    rows = context.session.execute(_INVENTORIES_AND_USAGE,
                                   {'rp_ids': list(rp_ids)}).all()
    result = {rp_id: ({}, {}) for rp_id in rp_ids}
    for row in rows:
        inventories, usage = result[row.resource_provider_id]
        inventories[row.rc_name] = _as_dict(row)
        if row.used is not None:
            usage[row.rc_name] = int(row.used)
    return result


def _check_new_inventory(rp_uuid, rc_name, inv, used):
    # NOTE(nova_lite): as in Placement, min_unit above max_unit (or an
    # allocation ratio of 0 or less) is accepted: nothing fits, that is all.
    if used and capacity(inv) < used:
        # NOTE(nova_lite): as in Placement, allowed: the allocations stay
        # and new ones find no room until usage drops.
        LOG.warning('Resource provider %s is now over capacity for %s: '
                    'capacity %d, usage %d.', rp_uuid, rc_name,
                    capacity(inv), used)


def _ids_and_usage(rows):
    """({rc name: inventory id}, {rc name: used}) of rows naming them as
    ``inventory_id``, ``rc_name`` and ``used`` (inventory id None: a
    provider with no inventory)."""
    return ({r.rc_name: r.inventory_id for r in rows
             if r.inventory_id is not None},
            {r.rc_name: int(r.used) for r in rows if r.used is not None})


def _rows_and_usage(context, rp_id):
    """({rc name: inventory id}, {rc name: used}) of one provider, in one
    statement: the usage of the classes it has inventory of, which are the
    classes allocations can hold (an inventory in use cannot be removed)."""
    rows = context.session.execute(_INVENTORIES_AND_USAGE,
                                   {'rp_ids': [rp_id]}).all()
    return ({r.rc_name: r.id for r in rows},
            {r.rc_name: int(r.used) for r in rows if r.used is not None})


def _build_provider_inventories():
    """The provider by uuid (:func:`rp_obj.select_providers`' columns),
    one row per inventory with its class name and usage (one row of
    NULLs there when it has none): :func:`find` and
    :func:`_rows_and_usage` in one statement."""
    used = (sa.select(sa.func.sum(ALLOC.c.used))
            .where(ALLOC.c.resource_provider_id == common.RP.c.id,
                   ALLOC.c.resource_class_id == INV.c.resource_class_id)
            .scalar_subquery())
    return (rp_obj.select_providers()
            .add_columns(INV.c.id.label('inventory_id'),
                         common.RC.c.name.label('rc_name'),
                         used.label('used'))
            .outerjoin(INV, INV.c.resource_provider_id == common.RP.c.id)
            .outerjoin(common.RC, INV.c.resource_class_id == common.RC.c.id)
            .where(common.RP.c.uuid == sa.bindparam('uuid')))


_PROVIDER_INVENTORIES = _build_provider_inventories()


def _write(context, rp, wanted, replace_all, current_and_usage=None):
    """Make the provider's inventories ``wanted`` (all or some classes);
    ``current_and_usage`` is :func:`_rows_and_usage`'s answer when the
    caller read it already."""
    current, usage = current_and_usage or _rows_and_usage(context, rp.id)
    try:
        rc_ids = common.rc_ids(context, wanted)
    except exception.ResourceClassNotFound as exc:
        # Placement names the first unknown class of the body.
        missing = exc.kwargs['name'].split(', ')
        raise exception.ResourceClassNotFound(
            name=next(rc for rc in wanted if rc in missing))
    if replace_all:
        removed = [rc for rc in current if rc not in wanted]
        in_use = [rc for rc in removed if usage.get(rc)]
        if in_use:
            raise exception.InventoryInUse(resource_classes=', '.join(in_use),
                                           uuid=rp.uuid)
        for rc in removed:
            context.session.execute(sa.delete(INV).where(
                INV.c.id == current[rc]))
    now = models.utcnow()
    inserts = []
    for rc, values in wanted.items():
        inv = with_defaults(values)
        _check_new_inventory(rp.uuid, rc, inv, usage.get(rc, 0))
        if rc in current:
            context.session.execute(sa.update(INV).where(
                INV.c.id == current[rc]).values(updated_at=now, **inv))
        else:
            inserts.append(dict(inv, resource_provider_id=rp.id,
                                resource_class_id=rc_ids[rc],
                                created_at=now))
    if inserts:
        # One INSERT ... VALUES for all the new classes (PyMySQL sends an
        # executemany INSERT as one statement).
        context.session.execute(_INSERT, inserts)


def _rows_of(context, rp_ids):
    """{rp id: {rc name: row}} of many providers, in one query."""
    rows = context.session.execute(
        sa.select(INV, common.RC.c.name.label('rc_name'))
        .select_from(INV.join(common.RC,
                              INV.c.resource_class_id == common.RC.c.id))
        .where(INV.c.resource_provider_id.in_(rp_ids))
        .order_by(INV.c.resource_provider_id,
                  INV.c.resource_class_id)).all()
    result = {rp_id: {} for rp_id in rp_ids}
    for row in rows:
        result[row.resource_provider_id][row.rc_name] = row
    return result


def _usage_of(context, rp_ids):
    """{rp id: {rc name: used}} of many providers, in one query."""
    rows = context.session.execute(
        sa.select(ALLOC.c.resource_provider_id, common.RC.c.name,
                  sa.func.sum(ALLOC.c.used))
        .select_from(ALLOC.join(common.RC,
                                ALLOC.c.resource_class_id == common.RC.c.id))
        .where(ALLOC.c.resource_provider_id.in_(rp_ids))
        .group_by(ALLOC.c.resource_provider_id, common.RC.c.name)).all()
    result = {rp_id: {} for rp_id in rp_ids}
    for rp_id, name, used in rows:
        result[rp_id][name] = int(used)
    return result


def _first_unknown_class(context, order, wanted):
    """ResourceClassNotFound naming the class :func:`_write`, provider by
    provider in ``order``, would have named first; None if all known."""
    try:
        return common.rc_ids(context, set().union(*wanted.values())), None
    except exception.ResourceClassNotFound as exc:
        missing = set(exc.kwargs['name'].split(', '))
    for rp_uuid in order:
        for rc in wanted[rp_uuid]:
            if rc in missing:
                return None, exception.ResourceClassNotFound(name=rc)
    raise AssertionError('unknown classes %s not wanted' % missing)


# Rows one UPDATE ... WHERE id IN (...) names at most.
UPDATE_CHUNK = 1000


def _update_grouped(context, updates, now):
    """Write ``updates`` ({field values: [row id]}): one statement per
    distinct set of values (the nodes of a compute share theirs), where
    an executemany is one round trip per row on PyMySQL."""
    for key, row_ids in updates.items():
        values = dict(zip(FIELDS, key, strict=True))
        row_ids = sorted(row_ids)
        for i in range(0, len(row_ids), UPDATE_CHUNK):
            context.session.execute(
                sa.update(INV)
                .where(INV.c.id.in_(row_ids[i:i + UPDATE_CHUNK]))
                .values(updated_at=now, **values))


def write_many(context, providers, wanted, replace_all):
    """:func:`_write` for many providers in a handful of statements (the
    reshaper's inventories), checked in the order of their uuids, so the
    error raised is the one a provider-by-provider write would raise.

    :param providers: {uuid: ResourceProvider}.
    :param wanted: {uuid: {rc: inventory dict}}.
    """
    order = sorted(wanted)
    rp_ids = [providers[u].id for u in order]
    current = _rows_of(context, rp_ids)
    usage = _usage_of(context, rp_ids)
    ids, error = _first_unknown_class(context, order, wanted)
    if error is not None:
        raise error
    now = models.utcnow()
    deletes, inserts, updates = [], [], {}
    for rp_uuid in order:
        rp = providers[rp_uuid]
        rows, used = current[rp.id], usage[rp.id]
        if replace_all:
            removed = [rc for rc in rows if rc not in wanted[rp_uuid]]
            in_use = [rc for rc in removed if used.get(rc)]
            if in_use:
                raise exception.InventoryInUse(
                    resource_classes=', '.join(in_use), uuid=rp.uuid)
            deletes.extend(rows[rc].id for rc in removed)
        for rc, values in wanted[rp_uuid].items():
            inv = with_defaults(values)
            _check_new_inventory(rp.uuid, rc, inv, used.get(rc, 0))
            if rc in rows:
                key = tuple(inv[f] for f in FIELDS)
                updates.setdefault(key, []).append(rows[rc].id)
            else:
                inserts.append(dict(inv, resource_provider_id=rp.id,
                                    resource_class_id=ids[rc],
                                    created_at=now))
    if deletes:
        context.session.execute(sa.delete(INV).where(INV.c.id.in_(deletes)))
    _update_grouped(context, updates, now)
    if inserts:
        context.session.execute(sa.insert(INV), inserts)


@common.write_transaction
@db_api.writer
def set_all(context, rp_uuid, generation, inventories):
    """Replace every inventory of a provider (PUT .../inventories)."""
    rows = context.session.execute(_PROVIDER_INVENTORIES,
                                   {'uuid': rp_uuid}).all()
    if not rows:
        raise exception.ResourceProviderNotFound(uuid=rp_uuid)
    rp = rp_obj.from_row(rows[0])
    now = models.utcnow()
    rp = dataclasses.replace(rp, updated_at=now, generation=(
        common.increment_generation(context, rp.id, rp.uuid, generation,
                                    now=now)))
    _write(context, rp, inventories, replace_all=True,
           current_and_usage=_ids_and_usage(rows))
    # Nothing is read back, as in Placement, which answers with the values
    # as sent (defaults filled in): this transaction wrote the provider's
    # generation and stamp and every inventory row (each stamped now).
    return (rp, {rc: with_defaults(v) for rc, v in inventories.items()},
            rp.last_modified if inventories else None)


def _duplicate(context, rp, rc_name, values):
    """Refuse a second inventory of a class with the database's own
    duplicate-entry error, which Placement quotes (statement and all: an
    oddity matched on purpose, see doc/placement-compat.md)."""
    try:
        context.session.execute(sa.insert(INV).values(
            resource_provider_id=rp.id,
            resource_class_id=common.rc_ids(context, [rc_name])[rc_name],
            created_at=models.utcnow(), **with_defaults(values)))
    except db_exc.DBDuplicateEntry as exc:
        raise exception.Exists(message=str(exc))
    # NOTE(nova_lite): unreachable while the unique constraint holds.
    raise exception.Exists(what='Inventory for %s on resource provider %s'
                                % (rc_name, rp.uuid))


@common.write_transaction
@db_api.writer
def set_one(context, rp_uuid, generation, rc_name, values, must_exist):
    """Create (POST) or update (PUT) one inventory of a provider; a
    ``generation`` of None bumps the current one unchecked (POST)."""
    rp = rp_obj.find(context, rp_uuid)
    if generation is not None and generation != rp.generation:
        # A stale generation is a 409 before anything else, as in Placement.
        raise exception.ConcurrentUpdateDetected(uuid=rp_uuid)
    exists = rc_name in _rows(context, rp.id)
    if must_exist and not exists:
        common.rc_ids(context, [rc_name])  # an unknown class first
        raise exception.InventoryNotFound(resource_class=rc_name,
                                          uuid=rp_uuid)
    if not must_exist and exists:
        _duplicate(context, rp, rc_name, values)
    if generation is None:
        common.bump_internal(context, rp.id, rp.uuid, rp.generation)
    else:
        common.increment_generation(context, rp.id, rp.uuid, generation)
    _write(context, rp, {rc_name: values}, replace_all=False)
    return get_one(context, rp_uuid, rc_name)


@common.write_transaction
@db_api.writer
def delete_one(context, rp_uuid, rc_name):
    rp = rp_obj.find(context, rp_uuid)
    rows = _rows(context, rp.id)
    if rc_name not in rows:
        common.rc_ids(context, [rc_name])  # an unknown class first
        raise exception.InventoryNotFound(resource_class=rc_name,
                                          uuid=rp_uuid)
    if usage_by_class(context, rp.id).get(rc_name):
        raise exception.InventoryInUse(resource_classes=rc_name,
                                       uuid=rp_uuid)
    common.bump_internal(context, rp.id, rp.uuid, rp.generation)
    context.session.execute(sa.delete(INV).where(
        INV.c.id == rows[rc_name].id))


@common.write_transaction
@db_api.writer
def delete_all(context, rp_uuid):
    rp = rp_obj.find(context, rp_uuid)
    usage = usage_by_class(context, rp.id)
    in_use = [rc for rc in _rows(context, rp.id) if usage.get(rc)]
    if in_use:
        raise exception.InventoryInUse(resource_classes=', '.join(in_use),
                                       uuid=rp_uuid)
    common.bump_internal(context, rp.id, rp.uuid, rp.generation)
    context.session.execute(sa.delete(INV).where(
        INV.c.resource_provider_id == rp.id))
