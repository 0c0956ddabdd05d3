"""Filters of GET /resource_providers, each turned into a set of ids.

``matching_ids`` intersects the sets of the filters present; None means
"no filter given" (every provider). Inputs arrive parsed by the handler:

* ``name``, ``uuid``: exact match;
* ``member_of``: list of (aggregate uuids, forbidden) - any-of per entry,
  AND across entries, forbidden entries exclude;
* ``resources``: {resource class: amount} each with enough free capacity,
  within ``min_unit``..``max_unit`` and a multiple of ``step_size``;
* ``in_tree``: a provider uuid, whose whole tree matches;
* ``required``: list of (trait names, forbidden) - any-of per entry, AND
  across entries, forbidden entries exclude.
"""

import sqlalchemy as sa

from nova_lite.placement import exception
from nova_lite.placement.objects import common

RP = common.RP


def _ids(context, query):
    return {r[0] for r in context.session.execute(query)}


def _by_column(context, column, value):
    return _ids(context, sa.select(RP.c.id).where(column == value))


def _in_tree(context, uuid):
    root = context.session.execute(sa.select(RP.c.root_provider_id).where(
        RP.c.uuid == uuid)).scalar()
    if root is None:
        # NOTE(nova_lite): as in Placement, an unknown tree matches nothing.
        return set()
    return _by_column(context, RP.c.root_provider_id, root)


def _in_aggregates(context, agg_uuids):
    return _ids(context, sa.select(common.RP_AGG.c.resource_provider_id)
                .select_from(common.RP_AGG.join(
                    common.AGG,
                    common.RP_AGG.c.aggregate_id == common.AGG.c.id))
                .where(common.AGG.c.uuid.in_(agg_uuids)))


def _with_traits(context, names):
    return _ids(context, sa.select(common.RP_TRAIT.c.resource_provider_id)
                .select_from(common.RP_TRAIT.join(
                    common.TRAIT,
                    common.RP_TRAIT.c.trait_id == common.TRAIT.c.id))
                .where(common.TRAIT.c.name.in_(names)))


def _check_traits_exist(context, entries):
    """400 naming the first unknown trait, in Placement's words."""
    names = [n for group, _ in entries for n in group]
    found = _ids(context, sa.select(common.TRAIT.c.name).where(
        common.TRAIT.c.name.in_(set(names))))
    missing = [n for n in names if n not in found]
    if missing:
        raise exception.Invalid(
            'Invalid trait(s) in "required" parameter: %s'
            % exception.TraitNotFound(names=missing[0]))


def _apply_entries(context, entries, lookup, every_id):
    """AND over entries of any-of groups; forbidden groups subtract."""
    result = None
    for names, forbidden in entries:
        ids = lookup(context, names)
        if forbidden:
            ids = every_id - ids
        result = ids if result is None else result & ids
    return result


def _with_capacity(context, resources):
    inv, alloc = common.INV, common.ALLOC
    result = None
    try:
        rc_ids = common.rc_ids(context, resources)
    except exception.ResourceClassNotFound as exc:
        raise exception.Invalid('Invalid resource class in resources '
                                'parameter: %s' % exc)
    for name, amount in resources.items():
        rc_id = rc_ids[name]
        used = (sa.select(sa.func.coalesce(sa.func.sum(alloc.c.used), 0))
                .where(alloc.c.resource_provider_id ==
                       inv.c.resource_provider_id,
                       alloc.c.resource_class_id == rc_id)
                .scalar_subquery())
        capacity = (inv.c.total - inv.c.reserved) * inv.c.allocation_ratio
        ids = _ids(context, sa.select(inv.c.resource_provider_id).where(
            inv.c.resource_class_id == rc_id,
            inv.c.min_unit <= amount, inv.c.max_unit >= amount,
            sa.literal(amount) % inv.c.step_size == 0,
            capacity - used >= amount))
        result = ids if result is None else result & ids
    return result


def matching_ids(context, filters):
    """Set of provider ids matching every filter, or None if none given."""
    sets = []
    if filters.get('name') is not None:
        sets.append(_by_column(context, RP.c.name, filters['name']))
    if filters.get('uuid') is not None:
        sets.append(_by_column(context, RP.c.uuid, filters['uuid']))
    if filters.get('in_tree') is not None:
        sets.append(_in_tree(context, filters['in_tree']))
    every_id = None
    if filters.get('member_of') or filters.get('required'):
        every_id = _ids(context, sa.select(RP.c.id))
    if filters.get('member_of'):
        sets.append(_apply_entries(context, filters['member_of'],
                                   _in_aggregates, every_id))
    if filters.get('required'):
        _check_traits_exist(context, filters['required'])
        sets.append(_apply_entries(context, filters['required'],
                                   _with_traits, every_id))
    if filters.get('resources'):
        sets.append(_with_capacity(context, filters['resources']))
    if not sets:
        return None
    return set.intersection(*sets)
