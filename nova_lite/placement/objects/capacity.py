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


def _providers(session):
    parent = RP.alias('parent')
    root = RP.alias('root')
    rows = session.execute(sa.select(
        RP.c.id, RP.c.uuid, RP.c.name, RP.c.generation,
        parent.c.uuid.label('parent_uuid'), root.c.uuid.label('root_uuid'))
        .select_from(RP.outerjoin(parent, RP.c.parent_provider_id ==
                                  parent.c.id)
                     .outerjoin(root, RP.c.root_provider_id == root.c.id))
        .order_by(RP.c.id))
    return {row.id: {'uuid': row.uuid, 'name': row.name,
                     'generation': row.generation,
                     'parent_provider_uuid': row.parent_uuid,
                     'root_provider_uuid': row.root_uuid or row.uuid,
                     'inventories': {}, 'usages': {}, 'traits': [],
                     'aggregates': []}
            for row in rows}


@db_api.reader
def get_all(context):
    """``[provider dict]`` of every provider, by id."""
    session = context.session
    by_id = _providers(session)
    for row in session.execute(sa.select(
            INV.c.resource_provider_id, RC.c.name, INV.c.total,
            INV.c.reserved, INV.c.allocation_ratio, INV.c.max_unit)
            .select_from(INV.join(RC, INV.c.resource_class_id == RC.c.id))):
        rp = by_id.get(row.resource_provider_id)
        if rp is not None:
            rp['inventories'][row.name] = {
                'total': row.total, 'reserved': row.reserved,
                'allocation_ratio': row.allocation_ratio,
                'max_unit': row.max_unit}
            rp['usages'].setdefault(row.name, 0)
    for row in session.execute(sa.select(
            ALLOC.c.resource_provider_id, RC.c.name,
            sa.func.sum(ALLOC.c.used).label('used'))
            .select_from(ALLOC.join(RC, ALLOC.c.resource_class_id == RC.c.id))
            .group_by(ALLOC.c.resource_provider_id, RC.c.name)):
        rp = by_id.get(row.resource_provider_id)
        if rp is not None:
            rp['usages'][row.name] = int(row.used)
    for row in session.execute(sa.select(
            common.RP_TRAIT.c.resource_provider_id, common.TRAIT.c.name)
            .select_from(common.RP_TRAIT.join(
                common.TRAIT,
                common.RP_TRAIT.c.trait_id == common.TRAIT.c.id))):
        rp = by_id.get(row.resource_provider_id)
        if rp is not None:
            rp['traits'].append(row.name)
    for row in session.execute(sa.select(
            common.RP_AGG.c.resource_provider_id, common.AGG.c.uuid)
            .select_from(common.RP_AGG.join(
                common.AGG,
                common.RP_AGG.c.aggregate_id == common.AGG.c.id))):
        rp = by_id.get(row.resource_provider_id)
        if rp is not None:
            rp['aggregates'].append(row.uuid)
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
