"""The root query of allocation candidates: the SQL conditions a tree's
root must meet for the tree to be worth reading.

A request's classes and amounts become capacity conditions (some
provider of the tree, or a sharing provider anchored to it, has room),
its traits, root_required, member_of and in_tree become link-table
lookups. :func:`plan` turns them into one hashable value, :func:`build`
the statement, kept per plan. Split from :mod:`research_context`, which
decides when to run this query and what to read after it.
"""

import functools

import sqlalchemy as sa

from nova_lite.placement.objects import common
from nova_lite.placement.objects import packed_rows

RP = common.RP
INV = common.INV
ALLOC = common.ALLOC
RP_TRAIT = common.RP_TRAIT
RP_AGG = common.RP_AGG


# -- capacity in SQL ---------------------------------------------------------

def _used(inv):
    return (sa.select(sa.func.coalesce(sa.func.sum(ALLOC.c.used), 0))
            .where(ALLOC.c.resource_provider_id == inv.c.resource_provider_id,
                   ALLOC.c.resource_class_id == inv.c.resource_class_id)
            .scalar_subquery())


def _fits(inv, rc_id, amount, indexed=True, forbidden=()):
    """``inv`` has room for ``amount`` of ``rc_id`` and its provider has
    none of the ``forbidden`` trait ids (it could not serve the group).
    ``amount`` may be an SQL expression (see :func:`_tree_has_rooms`)."""
    capacity = (inv.c.total - inv.c.reserved) * inv.c.allocation_ratio
    rc_clause = (inv.c.resource_class_id == rc_id if indexed
                 else sa.true())
    if isinstance(amount, int):
        amount = sa.literal(amount)
    clauses = [rc_clause,
               inv.c.min_unit <= amount, inv.c.max_unit >= amount,
               amount % inv.c.step_size == 0,
               capacity - _used(inv) >= amount]
    if forbidden:
        # Uncorrelated: the database computes the few providers carrying
        # the traits once, not a lookup per inventory row.
        clauses.append(inv.c.resource_provider_id.not_in(
            sa.select(RP_TRAIT.c.resource_provider_id).where(
                RP_TRAIT.c.trait_id.in_(sorted(forbidden)))))
    return sa.and_(*clauses)


def _tree_has_room(root, rc_id, amount, sharing_ids, correlated,
                   forbidden=()):
    """Some provider of ``root``'s tree, or a sharing provider of
    ``sharing_ids`` anchored to it, has room for ``amount``.

    Two forms of one condition. ``root IN (subquery)`` lets the database
    compute the set of roots once per class: the cheapest way to answer
    for every tree. ``correlated`` is an EXISTS probed per root, so with
    ``LIMIT`` the scan stops after enough roots and a limited query costs
    the same at 1,000 and 10,000 providers; ``class_id + 0`` keeps the
    planner from driving it by the class index (a scan of every inventory
    of that class per root) instead of the tree's own rows.
    """
    provider, inv = RP.alias(), INV.alias()
    if correlated:
        # NOTE(nova_lite): a scalar subquery, not EXISTS: MariaDB turns
        # EXISTS into a semi-join over every tree, which LIMIT cannot cut.
        # STRAIGHT_JOIN: MariaDB otherwise scans every inventory row per
        # root (the tree's providers are only found through them), so a
        # limited query grew with the square of its limit (the
        # scheduler's limit=1,000 at 10,000 providers took seconds; with
        # STRAIGHT_JOIN each probe is two index lookups).
        condition = sa.select(sa.literal(1)).prefix_with(
            'STRAIGHT_JOIN', dialect='mysql').select_from(
            provider.join(inv, inv.c.resource_provider_id == provider.c.id)
        ).where(
            provider.c.root_provider_id == root.c.id,
            inv.c.resource_class_id + 0 == rc_id,
            _fits(inv, rc_id, amount, indexed=False, forbidden=forbidden)
        ).limit(1).scalar_subquery().is_not(None)
    else:
        roots = sa.select(provider.c.root_provider_id).select_from(
            inv.join(provider, provider.c.id == inv.c.resource_provider_id)
        ).where(_fits(inv, rc_id, amount, forbidden=forbidden))
        condition = root.c.id.in_(roots)
    if sharing_ids:
        member, shared, mine = RP.alias(), RP_AGG.alias(), RP_AGG.alias()
        anchored = sa.select(member.c.root_provider_id).select_from(
            shared.join(mine, mine.c.aggregate_id == shared.c.aggregate_id)
            .join(member, member.c.id == mine.c.resource_provider_id)
        ).where(shared.c.resource_provider_id.in_(sorted(sharing_ids)))
        condition = sa.or_(condition, root.c.id.in_(anchored))
    return condition


def _tree_has_rooms(root, amounts, forbidden):
    """The correlated form of :func:`_tree_has_room` for several classes
    at once (``amounts``: ((rc_id, amount), ...), distinct classes, no
    sharing provider): the tree's inventories of those classes with room
    for their amount (a ``CASE`` on the class) count every class. One
    probe of the tree's rows per root instead of one per class, which
    makes a limited request's root query cheaper on MariaDB (a third
    less with perfload's three classes) and no dearer on SQLite. ``class_id
    + 0`` as in :func:`_tree_has_room`: the tree's rows, not the class
    index."""
    provider, inv = RP.alias(), INV.alias()
    amount = sa.case(dict(amounts), value=inv.c.resource_class_id)
    return sa.select(
        sa.func.count(sa.distinct(inv.c.resource_class_id))
    ).prefix_with('STRAIGHT_JOIN', dialect='mysql').select_from(
        provider.join(inv, inv.c.resource_provider_id == provider.c.id)
    ).where(
        provider.c.root_provider_id == root.c.id,
        (inv.c.resource_class_id + 0).in_([rc for rc, _ in amounts]),
        _fits(inv, None, amount, indexed=False, forbidden=forbidden)
    ).scalar_subquery() == len(amounts)


def _classes_have_room(root, conditions):
    """Every ``(rc_id, amount, forbidden)`` of ``conditions`` has room on
    some provider of ``root``'s tree without a ``forbidden`` trait, as one
    grouped subquery.

    Why not one ``root IN (subquery)`` per class: MariaDB flattens each
    into a semi-join and searches join orders exhaustively over all of
    their tables; planning grows exponentially with the number of
    classes (measured: 0.1 s with 3, 4.8 s with 7, minutes with 9 on a
    22-provider database). A grouped subquery is one table to it, and one
    scan of the requested classes' inventories for every backend.
    """
    provider, inv = RP.alias(), INV.alias()
    checks = [sa.func.max(sa.case(
        (_fits(inv, rc_id, amount, forbidden=forbidden), 1), else_=0)) == 1
        for rc_id, amount, forbidden in conditions]
    roots = sa.select(provider.c.root_provider_id).select_from(
        inv.join(provider, provider.c.id == inv.c.resource_provider_id)
    ).where(inv.c.resource_class_id.in_(
        sorted({c[0] for c in conditions}))).group_by(
        provider.c.root_provider_id).having(sa.and_(*checks))
    return root.c.id.in_(roots)


# -- the root query, planned then built once per plan -----------------------
#
# What the root query says depends on the request, on the ids its names
# resolved to and on which sharing providers have room; the plan is all
# of that as one hashable value, and the statement is built from the plan
# alone. Equal plans give equal statements, so the statement object is
# kept per plan (an LRU of the recent ones): a repeated request shape
# (every scheduling request of one flavor) pays neither the expression
# building nor SQLAlchemy's cache key walk (memoized on the object),
# about a quarter of a limited request's CPU. Only ``after`` (paging
# through the roots) is a bound parameter.

PLAN_CACHE_SIZE = 256


def _room_plan(request, ids, sharing, correlated):
    """The capacity conditions: per class ``('tree', rc_id, amount,
    fitting sharing ids, correlated, forbidden trait ids)``, or, for the
    classes no sharing provider offers, folded into one ``('classes',
    ((rc_id, amount, forbidden), ...))`` when the whole tree is scanned
    anyway (no ``limit``). A provider with one of the group's forbidden
    traits does not count."""
    conditions, plain = [], []
    for group in request.groups.values():
        forbidden = frozenset(ids.trait_ids(group.forbidden_traits))
        for rc, amount in group.resources.items():
            rc_id = ids.rcs[rc]
            fitting = frozenset(p.id for p in sharing.values()
                                if p.fits(rc_id, amount)
                                and not p.traits & forbidden)
            if fitting or correlated:
                conditions.append(('tree', rc_id, amount, fitting,
                                   correlated, forbidden))
            else:
                plain.append((rc_id, amount, forbidden))
    if len(plain) == 1:
        conditions.append(('tree', plain[0][0], plain[0][1], frozenset(),
                           False, plain[0][2]))
    elif plain:
        conditions.append(('classes', tuple(plain)))
    return tuple(_fused(conditions))


def _fused(conditions):
    """The correlated per-class probes without sharing providers, one
    ``('trees', ((rc_id, amount), ...), forbidden)`` per forbidden set
    when its classes are distinct (:func:`_tree_has_rooms`); the other
    conditions as they are."""
    probes = {}
    for entry in conditions:
        if entry[0] == 'tree' and entry[4] and not entry[3]:
            probes.setdefault(entry[5], []).append(entry)
    fused = {}
    for forbidden, entries in probes.items():
        classes = [e[1] for e in entries]
        if len(entries) > 1 and len(set(classes)) == len(classes):
            fused[forbidden] = ('trees', tuple(sorted(
                (e[1], e[2]) for e in entries)), forbidden)
    result = []
    for entry in conditions:
        if entry[0] == 'tree' and entry[4] and not entry[3] and (
                entry[5] in fused):
            if fused[entry[5]] is not None:
                result.append(fused[entry[5]])
                fused[entry[5]] = None
            continue
        result.append(entry)
    return result


def _traits_plan(request, ids, sharing):
    """The required any-of entries of every group, as sorted tuples of
    trait ids; none when sharing providers (from outside the tree) may
    bring the traits."""
    if sharing:
        return ()
    return tuple(sorted({tuple(sorted(ids.trait_ids(names)))
                         for group in request.groups.values()
                         for names in group.required_any_of}))


def plan(request, ids, sharing, correlated, room=True):
    """Everything :func:`build` needs, hashable; without the
    capacity conditions unless ``room``."""
    unnumbered = request.groups.get('')
    member_of = ()
    in_tree = ()
    if unnumbered is not None:
        member_of = tuple((tuple(sorted(ids.agg_ids(uuids))), forbidden)
                          for uuids, forbidden in unnumbered.member_of)
        if unnumbered.in_tree:
            in_tree = (ids.tree_roots.get(unnumbered.in_tree),)
    return (_room_plan(request, ids, sharing, correlated) if room else (),
            _traits_plan(request, ids, sharing),
            tuple((tuple(sorted(ids.trait_ids(names))), forbidden)
                  for names, forbidden in request.root_required),
            member_of, in_tree)


def _room_conditions(root, room):
    conditions = []
    for entry in room:
        if entry[0] == 'classes':
            conditions.append(_classes_have_room(root, entry[1]))
        elif entry[0] == 'trees':
            conditions.append(_tree_has_rooms(root, entry[1], entry[2]))
        else:
            _, rc_id, amount, fitting, correlated, forbidden = entry
            conditions.append(_tree_has_room(root, rc_id, amount, fitting,
                                             correlated, forbidden))
    return conditions


def _tree_has_traits(root, entries):
    """Every required entry (any-of) of every group is on some provider
    of the tree, as one grouped subquery: the providers a candidate uses
    are the tree's, so a tree without them cannot serve.

    One entry is a plain semi-join: its ``WHERE`` already is the check,
    and without the grouping MariaDB reads the matching rows once
    instead of sorting them into groups."""
    if not entries:
        return []
    member = RP.alias()
    roots = sa.select(member.c.root_provider_id).select_from(
        RP_TRAIT.join(member, member.c.id == RP_TRAIT.c.resource_provider_id)
    ).where(RP_TRAIT.c.trait_id.in_(sorted(set().union(*entries))))
    if len(entries) == 1:
        return [root.c.id.in_(roots)]
    checks = [sa.func.max(sa.case(
        (RP_TRAIT.c.trait_id.in_(list(entry)), 1), else_=0)) == 1
        for entry in entries]
    return [root.c.id.in_(roots.group_by(
        member.c.root_provider_id).having(sa.and_(*checks)))]


def _root_has_traits(root, trait_ids):
    return sa.exists().where(RP_TRAIT.c.resource_provider_id == root.c.id,
                             RP_TRAIT.c.trait_id.in_(list(trait_ids)))


def _root_required(root, entries):
    conditions = []
    for trait_ids, forbidden in entries:
        has = _root_has_traits(root, trait_ids)
        conditions.append(sa.not_(has) if forbidden else has)
    return conditions


def _tree_member_of(root, entries):
    """The unnumbered group's member_of as conditions on the tree: a
    provider counts as a member through its own aggregates or its root's,
    so a member tree has some provider in the aggregates, and a tree whose
    root is in a forbidden aggregate has no usable provider at all."""
    conditions = []
    for agg_ids, forbidden in entries:
        if forbidden:
            if agg_ids:
                conditions.append(root.c.id.not_in(
                    sa.select(RP_AGG.c.resource_provider_id).where(
                        RP_AGG.c.aggregate_id.in_(list(agg_ids)))))
            continue
        if not agg_ids:
            conditions.append(sa.false())
            continue
        member = RP.alias()
        conditions.append(root.c.id.in_(
            sa.select(member.c.root_provider_id).select_from(
                RP_AGG.join(member,
                            member.c.id == RP_AGG.c.resource_provider_id))
            .where(RP_AGG.c.aggregate_id.in_(list(agg_ids)))))
    return conditions


@functools.lru_cache(maxsize=PLAN_CACHE_SIZE)
def build(plan, paged, limit):
    """The root query of ``plan``; ``paged`` adds ``id > :after``."""
    room, traits, root_required, member_of, in_tree = plan
    root = RP.alias('root')
    query = sa.select(root.c.id).where(root.c.parent_provider_id.is_(None))
    query = query.where(*_room_conditions(root, room))
    query = query.where(*_tree_has_traits(root, traits))
    query = query.where(*_root_required(root, root_required))
    query = query.where(*_tree_member_of(root, member_of))
    if in_tree:
        query = query.where(root.c.id == in_tree[0])
    if paged:
        query = query.where(root.c.id > sa.bindparam('after'))
    query = query.order_by(root.c.id)
    if limit is not None:
        query = query.limit(limit)
    return query


@functools.lru_cache(maxsize=PLAN_CACHE_SIZE)
def packed(query):
    """The root query ``query``'s ids as one packed row (see
    :mod:`packed_rows`), kept per statement like the statement itself: on
    MariaDB a row per root was most of the query's cost on the client
    (PyMySQL reads each as a packet)."""
    return packed_rows.packed_ids(query)
