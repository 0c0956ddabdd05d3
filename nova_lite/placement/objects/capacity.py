"""Every provider with its inventories, usages, traits and aggregates, in
a handful of queries: what a capacity view of a whole cloud needs (the
dashboard of nova-lite-api), where Placement's API has one request per
provider and resource. Read-only; a nova_lite extension of placement.
"""

import sqlalchemy as sa

from nova_lite.placement.db import api as db_api
from nova_lite.placement.objects import common

RP = common.RP
INV = common.INV
ALLOC = common.ALLOC
RC = common.RC


def _rc_names(session):
    return dict(session.execute(sa.select(RC.c.id, RC.c.name)).all())


def _providers(session, uuids=None):
    parent = RP.alias('parent')
    root = RP.alias('root')
    query = (sa.select(
        RP.c.id, RP.c.uuid, RP.c.name, RP.c.generation,
        parent.c.uuid, root.c.uuid)
        .select_from(RP.outerjoin(parent, RP.c.parent_provider_id ==
                                  parent.c.id)
                     .outerjoin(root, RP.c.root_provider_id == root.c.id))
        .order_by(RP.c.id))
    if uuids is not None:
        query = query.where(RP.c.uuid.in_(uuids))
    return {rp_id: {'uuid': uuid, 'name': name, 'generation': generation,
                    'parent_provider_uuid': parent_uuid,
                    'root_provider_uuid': root_uuid or uuid,
                    'inventories': {}, 'usages': {}, 'traits': [],
                    'aggregates': []}
            for rp_id, uuid, name, generation, parent_uuid, root_uuid
            in session.execute(query).all()}


def _of(column, ids):
    """Rows of the providers ``ids`` only (None: every provider)."""
    return True if ids is None else column.in_(ids)


@db_api.reader
def get_all(context, uuids=None):
    """``[provider dict]`` of every provider (or of those of ``uuids``),
    by id: one query per table, usages summed in SQL, rows read as
    tuples."""
    session = context.session
    by_id = _providers(session, uuids)
    ids = None if uuids is None else list(by_id)
    if ids == []:
        return []
    rc_names = _rc_names(session)
    for rp_id, rc_id, total, reserved, ratio, max_unit in session.execute(
            sa.select(INV.c.resource_provider_id, INV.c.resource_class_id,
                      INV.c.total, INV.c.reserved, INV.c.allocation_ratio,
                      INV.c.max_unit)
            .where(_of(INV.c.resource_provider_id, ids))).all():
        rp = by_id.get(rp_id)
        if rp is not None:
            rc = rc_names[rc_id]
            rp['inventories'][rc] = {
                'total': total, 'reserved': reserved,
                'allocation_ratio': ratio, 'max_unit': max_unit}
            rp['usages'].setdefault(rc, 0)
    for rp_id, rc_id, used in session.execute(sa.select(
            ALLOC.c.resource_provider_id, ALLOC.c.resource_class_id,
            sa.func.sum(ALLOC.c.used))
            .where(_of(ALLOC.c.resource_provider_id, ids))
            .group_by(ALLOC.c.resource_provider_id,
                      ALLOC.c.resource_class_id)).all():
        rp = by_id.get(rp_id)
        if rp is not None:
            rp['usages'][rc_names[rc_id]] = int(used)
    _append_linked(session, by_id, ids, 'traits', common.RP_TRAIT,
                   common.RP_TRAIT.c.trait_id, common.TRAIT.c.id,
                   common.TRAIT.c.name)
    _append_linked(session, by_id, ids, 'aggregates', common.RP_AGG,
                   common.RP_AGG.c.aggregate_id, common.AGG.c.id,
                   common.AGG.c.uuid)
    return list(by_id.values())


@db_api.reader
def get_usages(context):
    """``[[uuid, generation, {rc: used}]]`` of every provider: what
    changes without a provider's generation moving (allocations that
    leave a provider or are deleted do not bump it, as in Placement).
    A reader that knows each provider's inventories, traits and
    aggregates by generation re-reads only the providers whose
    generation moved."""
    session = context.session
    rc_names = _rc_names(session)
    by_id = {rp_id: [uuid, generation, {}] for rp_id, uuid, generation
             in session.execute(sa.select(
                 RP.c.id, RP.c.uuid, RP.c.generation)).all()}
    for rp_id, rc_id, used in session.execute(sa.select(
            ALLOC.c.resource_provider_id, ALLOC.c.resource_class_id,
            sa.func.sum(ALLOC.c.used))
            .group_by(ALLOC.c.resource_provider_id,
                      ALLOC.c.resource_class_id)).all():
        entry = by_id.get(rp_id)
        if entry is not None:
            entry[2][rc_names[rc_id]] = int(used)
    return list(by_id.values())


@db_api.reader
def fingerprint(context):
    """A short text that changes whenever any provider, inventory,
    allocation, trait or aggregate does (provider generations move with
    each of them; allocations are counted too)."""
    session = context.session
    rps = session.execute(sa.select(
        sa.func.count(RP.c.id), sa.func.coalesce(
            sa.func.sum(RP.c.generation), 0),
        sa.func.coalesce(sa.func.max(RP.c.id), 0))).one()
    allocs = session.execute(sa.select(
        sa.func.count(ALLOC.c.id), sa.func.coalesce(
            sa.func.sum(ALLOC.c.used), 0),
        sa.func.coalesce(sa.func.max(ALLOC.c.id), 0))).one()
    return '%d-%d-%d:%d-%d-%d' % (tuple(rps) + tuple(allocs))


def _append_linked(session, by_id, ids, key, link, link_fk, target_id,
                   value):
    """Append to each provider's ``key`` list the ``value`` column of the
    rows ``link`` (a provider-to-target table) joins it to: its traits'
    names or its aggregates' uuids, one query for all providers."""
    for rp_id, item in session.execute(
            sa.select(link.c.resource_provider_id, value)
            .select_from(link.join(target_id.table, link_fk == target_id))
            .where(_of(link.c.resource_provider_id, ids))).all():
        rp = by_id.get(rp_id)
        if rp is not None:
            rp[key].append(item)
