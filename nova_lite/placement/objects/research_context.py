"""The SQL half of allocation candidates: which trees may satisfy a
request, and everything about those trees in a handful of queries.

Why it is shaped this way: the candidate query is placement's hottest, so
the database does the coarse filtering and Python only combines what
survives.

1. :func:`resolve` turns names (classes, traits, aggregates, in_tree
   uuids) into ids once;
2. :func:`load_sharing` reads the few providers carrying
   ``MISC_SHARES_VIA_AGGREGATE`` that offer a requested class, and
   :func:`anchors` which trees each one shares with (any provider of the
   tree in one of its aggregates);
3. :func:`viable_roots` is one query over root providers: for every
   requested class, some provider of the tree (or an anchored sharing
   provider) has room for the amount (inventory joined with the usage sum),
   the root has the ``root_required`` traits, and ``in_tree`` holds. It is
   a necessary condition, ordered by root id and cut by ``LIMIT``, so a
   ``limit`` on the request bounds the work (its conditions are built
   in :mod:`root_query`);
4. :func:`tree_reads.load_trees` (its own module) reads providers,
   inventories with usage, traits and aggregates of the chosen trees only
   (by root id, or everything when the list of roots is long, which is
   cheaper than a huge ``IN``).
"""

import sqlalchemy as sa

from nova_lite.placement import exception
from nova_lite.placement.objects import common
from nova_lite.placement.objects import packed_rows
from nova_lite.placement.objects import root_query
from nova_lite.placement.objects import tree_reads
from nova_lite.placement.objects import tree_statements

RP = common.RP
INV = common.INV
RP_TRAIT = common.RP_TRAIT
SHARES_TRAIT = 'MISC_SHARES_VIA_AGGREGATE'


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


def _lookup(key, value):
    """``SELECT key, value WHERE key IN :keys``, built once at import:
    the name lookups run on every request, and a prebuilt statement
    spares their construction and SQLAlchemy's cache key walk."""
    return sa.select(key, value).where(
        key.in_(sa.bindparam('keys', expanding=True)))


_TREE_ROOTS = _lookup(RP.c.uuid, RP.c.root_provider_id)
_NAMES_BY_ID = {common.RC.name: _lookup(common.RC.c.id, common.RC.c.name),
                common.TRAIT.name: _lookup(common.TRAIT.c.id,
                                           common.TRAIT.c.name)}


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


def _root_query(request, ids, sharing, after, limit, room):
    """(statement, parameters) of the root query :func:`viable_roots` and
    :func:`viable_trees` run, or None when, without ``room``, nothing
    narrows the trees and there is no ``limit`` (every tree)."""
    plan = root_query.plan(request, ids, sharing,
                           correlated=limit is not None, room=room)
    if not room and limit is None and not any(plan):
        return None
    params = {'after': after} if after is not None else {}
    return root_query.build(plan, after is not None, limit), params


def viable_roots(context, request, ids, sharing, after=None, limit=None,
                 room=True):
    """Ids of root providers whose tree may satisfy ``request``, ascending.

    :param sharing: {id: Provider} of the sharing providers (see
        :func:`load_sharing`).
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
    found = _root_query(request, ids, sharing, after, limit, room)
    if found is None:
        return None
    query, params = found
    if packed_rows.applies(context.session):
        roots = packed_rows.unpack(context.session.execute(
            root_query.packed(query), params).all())
        if roots is not None:
            return sorted(roots)
    return [r[0] for r in context.session.execute(query, params).all()]


def viable_trees(context, request, ids, sharing, after=None, limit=None,
                 room=True):
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
    together = not room and limit is not None and packed_rows.applies(
        context.session)
    if not together and not tree_reads.on_sqlite(context.session):
        return viable_roots(context, request, ids, sharing, after, limit,
                            room), None, None
    found = _root_query(request, ids, sharing, after, limit, room)
    if found is None:
        return None, None, None
    query, params = found
    if together:
        statement = tree_statements.providers_and_usage_of(query)
        rows, usage = packed_rows.unpack_union(
            context.session.execute(statement, params).all(), 2)
        if rows is None or usage is None:
            return viable_roots(context, request, ids, sharing, after,
                                limit, room), None, None
        return sorted({row[3] for row in rows}), rows, {'usage': usage}
    result = context.session.execute(
        tree_statements.providers_of(query), params)
    try:
        rows = result.cursor.fetchall()
    finally:
        result.close()
    return sorted({row[3] for row in rows}), rows, None


def names_by_id(context, table, id_values):
    """{id: name} of rows of ``table`` (traits, resource classes)."""
    return _names_to_ids(context, _NAMES_BY_ID[table.name], id_values)
