"""Which trees may satisfy an allocation candidates request: the names
resolved to ids, then one query over root providers.

Why it is shaped this way: the candidate query is placement's hottest, so
the database does the coarse filtering and Python only combines what
survives (in :mod:`allocation_candidate`).

1. :func:`resolve` turns names (classes, traits, aggregates, in_tree
   uuids) into ids once, and finds the ids of the few providers carrying
   ``MISC_SHARES_VIA_AGGREGATE`` that offer a requested class (read by
   :func:`tree_reads.load_sharing`) in the same statement;
2. :func:`viable_roots` runs the root query: for every requested class,
   some provider of the tree (or an anchored sharing provider) has room
   for the amount (inventory joined with the usage sum), the tree has the
   required traits, the root has the ``root_required`` ones, and
   ``member_of`` and ``in_tree`` hold. It is a necessary condition,
   ordered by root id and cut by ``LIMIT``, so a ``limit`` on the request
   bounds the work. :func:`plan` turns the conditions into one hashable
   value, :func:`build` the statement, kept per plan;
3. :func:`viable_trees` reads the chosen trees' providers with it where
   one statement is cheaper than two; :mod:`tree_reads` reads the rest.
"""

import functools

import sqlalchemy as sa

from nova_lite.placement import exception
from nova_lite.placement.objects import common
from nova_lite.placement.objects import tree_reads
from nova_lite.placement.objects import tree_statements

RP = common.RP
INV = common.INV
ALLOC = common.ALLOC
RP_TRAIT = common.RP_TRAIT
RP_AGG = common.RP_AGG
SHARES_TRAIT = 'MISC_SHARES_VIA_AGGREGATE'


# -- names to ids -------------------------------------------------------------

class Ids:
    """Names of the request resolved to database ids."""

    def __init__(self):
        self.rcs = {}
        self.traits = {}
        self.aggs = {}
        self.tree_roots = {}
        self.shares_trait = None
        # Ids of the providers with the sharing trait and a requested
        # class (see tree_reads.load_sharing).
        self.sharing = set()

    def trait_ids(self, names):
        return {self.traits[n] for n in names}

    def agg_ids(self, uuids):
        return {self.aggs[u] for u in uuids if u in self.aggs}


# The in_tree uuids' roots, built once at import: the lookups run on
# every such request, and a prebuilt statement spares their construction
# and SQLAlchemy's cache key walk.
_TREE_ROOTS = sa.select(RP.c.uuid, RP.c.root_provider_id).where(
    RP.c.uuid.in_(sa.bindparam('keys', expanding=True)))


def _names_to_ids(context, statement, names):
    if not names:
        return {}
    rows = context.session.execute(statement, {'keys': sorted(names)}).all()
    return {r[0]: r[1] for r in rows}


# One statement for the request's class and trait names (and the sharing
# trait's), tagged 0 for a class and 1 for a trait, the providers that
# carry the sharing trait and have an inventory of a requested class,
# tagged 2, and the member_of aggregates' uuids, tagged 3: a limited
# request's lookups were a third of its statements.
_SHARING_PROVIDERS = sa.select(
    sa.literal(2), common.TRAIT.c.name, RP_TRAIT.c.resource_provider_id
).select_from(
    RP_TRAIT.join(common.TRAIT, common.TRAIT.c.id == RP_TRAIT.c.trait_id)
    .join(INV, INV.c.resource_provider_id == RP_TRAIT.c.resource_provider_id)
    .join(common.RC, common.RC.c.id == INV.c.resource_class_id)
).where(
    common.TRAIT.c.name == SHARES_TRAIT,
    common.RC.c.name.in_(sa.bindparam('classes', expanding=True))
).distinct()
_CLASS_AND_TRAIT_IDS = sa.union_all(
    sa.select(sa.literal(0), common.RC.c.name, common.RC.c.id).where(
        common.RC.c.name.in_(sa.bindparam('classes', expanding=True))),
    sa.select(sa.literal(1), common.TRAIT.c.name, common.TRAIT.c.id).where(
        common.TRAIT.c.name.in_(sa.bindparam('traits', expanding=True))),
    _SHARING_PROVIDERS,
    sa.select(sa.literal(3), common.AGG.c.uuid, common.AGG.c.id).where(
        common.AGG.c.uuid.in_(sa.bindparam('aggs', expanding=True))))


# The same answer when every class and trait name is a standard one,
# whose ids are remembered (common.standard_rc_ids): the sharing
# providers by ids, tagged 2, and the aggregates, tagged 3, without the
# name lookups and joins with the names' tables.
_SHARING_BY_IDS = sa.select(
    sa.literal(2), RP_TRAIT.c.trait_id, RP_TRAIT.c.resource_provider_id
).select_from(
    RP_TRAIT.join(INV, INV.c.resource_provider_id ==
                  RP_TRAIT.c.resource_provider_id)
).where(
    RP_TRAIT.c.trait_id == sa.bindparam('shares'),
    INV.c.resource_class_id.in_(sa.bindparam('class_ids', expanding=True))
).distinct()
_SHARING_AND_AGG_IDS = sa.union_all(
    _SHARING_BY_IDS,
    sa.select(sa.literal(3), common.AGG.c.uuid, common.AGG.c.id).where(
        common.AGG.c.uuid.in_(sa.bindparam('aggs', expanding=True))))


def _standard_ids(classes, traits):
    """({class: id}, {trait: id}) when every name is a standard one with
    a remembered id, else None."""
    rcs, trait_ids = common.standard_rc_ids(), common.standard_trait_ids()
    try:
        return ({name: rcs[name] for name in classes},
                {name: trait_ids[name] for name in traits})
    except KeyError:
        return None


def _class_and_trait_ids(context, classes, traits, aggs):
    """({class: id}, {trait: id}, {sharing provider id}, {aggregate uuid:
    id}) of the names and uuids that exist and of the sharing providers
    with one of ``classes``, in one round trip."""
    standard = _standard_ids(classes, traits)
    if standard is not None:
        found = (standard[0], standard[1], set(), {})
        statement = _SHARING_AND_AGG_IDS if aggs else _SHARING_BY_IDS
        rows = context.session.execute(
            statement, {'shares': standard[1][SHARES_TRAIT],
                        'class_ids': sorted(standard[0].values()),
                        'aggs': sorted(aggs)}).all()
    else:
        found = ({}, {}, set(), {})
        rows = context.session.execute(
            _CLASS_AND_TRAIT_IDS,
            {'classes': sorted(classes), 'traits': sorted(traits),
             'aggs': sorted(aggs)}).all()
    for kind, name, id_ in rows:
        if kind == 2:
            found[2].add(id_)
        else:
            found[kind][name] = id_
    return found


def resolve(context, request):
    """An :class:`Ids` for ``request``; Invalid for unknown classes or
    traits (the handler answers 400 naming the parameter)."""
    ids = Ids()
    classes = set(request.resource_class_names())
    names = request.trait_names()
    ids.rcs, ids.traits, ids.sharing, ids.aggs = _class_and_trait_ids(
        context, classes, names | {SHARES_TRAIT}, request.aggregate_uuids())
    missing = classes - set(ids.rcs)
    if missing:
        # As common.rc_ids words it, and before any trait is checked.
        raise exception.Invalid(
            reason='Invalid resource class in resources parameter: %s'
            % exception.ResourceClassNotFound(
                name=', '.join(sorted(missing))).message)
    ids.shares_trait = ids.traits.pop(SHARES_TRAIT, None)
    if SHARES_TRAIT in names:
        ids.traits[SHARES_TRAIT] = ids.shares_trait
    missing = names - set(ids.traits)
    if missing:
        raise exception.Invalid(reason='No such trait(s): %s.'
                                % ', '.join(sorted(missing)))
    uuids = request.in_tree_uuids()
    if uuids:
        ids.tree_roots = {u: None for u in uuids}
        ids.tree_roots.update(_names_to_ids(context, _TREE_ROOTS, uuids))
    return ids


# -- capacity in SQL ----------------------------------------------------------

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


# -- the root query, planned then built once per plan ------------------------
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


def _room_plan(request, ids, sharing_room, correlated):
    """The capacity conditions: per class ``('tree', rc_id, amount,
    fitting sharing ids, correlated, forbidden trait ids)``, or, for the
    classes no sharing provider offers, folded into one ``('classes',
    ((rc_id, amount, forbidden), ...))`` when the whole tree is scanned
    anyway (no ``limit``). A provider with one of the group's forbidden
    traits does not count (``sharing_room``: see :func:`plan`)."""
    conditions, plain = [], []
    for group in request.groups.values():
        forbidden = frozenset(ids.trait_ids(group.forbidden_traits))
        for rc, amount in group.resources.items():
            rc_id = ids.rcs[rc]
            fitting = sharing_room.get((rc_id, amount, forbidden),
                                       frozenset())
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


def _traits_plan(request, ids, sharing_room):
    """The required any-of entries of every group, as sorted tuples of
    trait ids; none when sharing providers (from outside the tree) may
    bring the traits."""
    if sharing_room:
        return ()
    return tuple(sorted({tuple(sorted(ids.trait_ids(names)))
                         for group in request.groups.values()
                         for names in group.required_any_of}))


def plan(request, ids, sharing_room, correlated, room=True):
    """Everything :func:`build` needs, hashable; without the
    capacity conditions unless ``room``.

    :param sharing_room: which sharing providers have room for each
        class of the request, as ``allocation_candidate._sharing_room``
        decides it (this module sees ids, not providers).
    """
    unnumbered = request.groups.get('')
    member_of = ()
    in_tree = ()
    if unnumbered is not None:
        member_of = tuple((tuple(sorted(ids.agg_ids(uuids))), forbidden)
                          for uuids, forbidden in unnumbered.member_of)
        if unnumbered.in_tree:
            in_tree = (ids.tree_roots.get(unnumbered.in_tree),)
    return (_room_plan(request, ids, sharing_room, correlated)
            if room else (),
            _traits_plan(request, ids, sharing_room),
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
    :mod:`tree_statements`), kept per statement like the statement
    itself: on MariaDB a row per root was most of the query's cost on
    the client (PyMySQL reads each as a packet)."""
    return tree_statements.packed_ids(query)


# -- running it ---------------------------------------------------------------

def _root_query(request, ids, sharing_room, after, limit, room):
    """(statement, parameters) of the root query :func:`viable_roots` and
    :func:`viable_trees` run, or None when, without ``room``, nothing
    narrows the trees and there is no ``limit`` (every tree)."""
    planned = plan(request, ids, sharing_room,
                   correlated=limit is not None, room=room)
    if not room and limit is None and not any(planned):
        return None
    params = {'after': after} if after is not None else {}
    return build(planned, after is not None, limit), params


def viable_roots(context, request, ids, sharing_room, after=None,
                 limit=None, room=True):
    """Ids of root providers whose tree may satisfy ``request``, ascending.

    :param sharing_room: the sharing providers with room (see
        :func:`plan`).
    :param room: check capacity in SQL too. Without it only the cheap
        conditions (traits, aggregates, in_tree, root_required: index
        lookups in small link tables) narrow the trees, and None (every
        tree) is returned when there is none of them and no ``limit``.
        Why: when every tree is read anyway (or the first ``limit`` of
        them, see ``allocation_candidate._batches``), the capacity check
        (a usage lookup per inventory row, grouped by tree) costs as much
        as reading the inventories, and the Python checks, which are
        exact, repeat it.
    """
    found = _root_query(request, ids, sharing_room, after, limit, room)
    if found is None:
        return None
    query, params = found
    if tree_reads.on_mariadb(context.session):
        roots = tree_reads.unpack(context.session.execute(
            packed(query), params).all())
        if roots is not None:
            return sorted(roots)
    return [r[0] for r in context.session.execute(query, params).all()]


def viable_trees(context, request, ids, sharing_room, after=None,
                 limit=None, room=True):
    """(root ids, provider rows, {'usage': rows}) of the trees
    :func:`viable_roots` finds.

    On SQLite one statement reads both: the providers of the trees
    (rows of ``tree_statements.providers_of``), the root query as their
    filter, the root ids taken from the rows (a root is its own tree's
    provider). One statement fewer, and less of SQLite's time than the
    two. The rows are None on MySQL, where MariaDB reads the ids alone
    (packed): a combined one cost it more server time than the two,
    and the root query as the providers' filter without a limit made
    member_of a FirstMatch semi-join per provider (hundreds of ms at
    1,000 providers).
    (None, None, None): no condition (see ``room``), every tree.

    On MariaDB a limited bite without the capacity probes (``room``
    False: see ``allocation_candidate._batches``) reads the providers and
    their usage with the root query as their filter, packed in one
    statement: a cheap root query (an index range) joins them well, and
    the plain limit=50 request is one statement and a rollback fewer.
    Otherwise the usage is None (read with the trees)."""
    together = not room and limit is not None and tree_reads.on_mariadb(
        context.session)
    if not together and not tree_reads.on_sqlite(context.session):
        return viable_roots(context, request, ids, sharing_room, after,
                            limit, room), None, None
    found = _root_query(request, ids, sharing_room, after, limit, room)
    if found is None:
        return None, None, None
    query, params = found
    if together:
        statement = tree_statements.providers_and_usage_of(query)
        rows, usage = tree_reads.unpack_union(
            context.session.execute(statement, params).all(), 2)
        if rows is None or usage is None:
            return viable_roots(context, request, ids, sharing_room,
                                after, limit, room), None, None
        return sorted({row[3] for row in rows}), rows, {'usage': usage}
    result = context.session.execute(
        tree_statements.providers_of(query), params)
    try:
        rows = result.cursor.fetchall()
    finally:
        result.close()
    return sorted({row[3] for row in rows}), rows, None
