"""Reading the trees of allocation candidates: providers, inventories
with usage, traits and aggregates, by the prebuilt statements of
:mod:`tree_statements`, into :class:`Provider` objects the candidate
builder combines.

Split from :mod:`research_context` (which decides which trees to read)
because this is the per-provider half of the request's cost: the rows
read here are what a large answer spends most of its SQL time on.
"""

import functools
import json

import sqlalchemy as sa

from nova_lite.placement.objects import common
from nova_lite.placement.objects import packed_rows
from nova_lite.placement.objects import provider_states
from nova_lite.placement.objects import tree_statements as stmts

RP = common.RP
RP_AGG = common.RP_AGG

# Above this many roots the trees are read without an IN list.
IN_LIST_MAX = 500
# SQLite reads the inventories of a list of providers (see
# stmts.INVENTORIES_BY_ID_LIST) when they are at most this share
# of the providers the range or whole-table read would cover.
NARROW_SHARE = 0.75
# A read whose providers provider_states knows but for at most this share
# reads the others by id, one statement more; more unknown (a small
# lab's two nodes, one of them just claimed), it reads every tree again.
UNKNOWN_SHARE = 0.1


class Provider:
    """One provider as the candidate builder needs it."""

    __slots__ = ('id', 'uuid', 'parent_id', 'root_id', 'version',
                 'traits', 'aggs', 'inv', 'sharing')

    def __init__(self, rp_id, uuid, parent_id, root_id, version=None):
        self.id = rp_id
        self.uuid = uuid
        self.parent_id = parent_id
        self.root_id = root_id
        # (generation, updated_at as text): what provider_states keys on
        self.version = version
        self.traits = set()
        self.aggs = set()
        # {rc id: (capacity, min_unit, max_unit, step, used)}, capacity
        # the float (total - reserved) * allocation_ratio (see
        # stmts.CAPACITY_READS)
        self.inv = {}
        self.sharing = False

    def capacity(self, rc_id):
        return int(self.inv[rc_id][0])

    def used(self, rc_id):
        return self.inv[rc_id][4]

    def fits(self, rc_id, amount, already=0):
        """Room for ``amount`` more (on top of ``already`` in this
        request) within the unit constraints."""
        inv = self.inv.get(rc_id)
        if inv is None:
            return False
        capacity, min_unit, max_unit, step, used = inv
        if amount < min_unit or amount > max_unit or amount % step:
            return False
        if already and amount + already > max_unit:
            return False
        return capacity - used >= amount + already


def _provider(row):
    return Provider(row[0], row[1], row[2], row[3], (row[4], row[5]))


def _with_capacity(rows):
    """Inventory rows of nine columns as the capacity reads give them:
    the capacity computed as Python computes it from the values read."""
    return [(r[0], r[1], (r[2] - r[3]) * r[4], r[5], r[6], r[7], r[8])
            for r in rows]


def on_sqlite(session):
    """Whether ``session`` reads from SQLite, where a statement is a
    function call and a row's values cost their conversion: the reads
    narrowed by id list and the providers read with the root query are
    SQLite's (measured there; MariaDB's packed reads are its own)."""
    return session.get_bind().dialect.name == 'sqlite'


def _params(roots, by):
    if roots is None:
        return {}
    if by in (stmts.BY_RANGE, stmts.BY_ID_RANGE):
        return {'lo': roots[0], 'hi': roots[-1]}
    return {'ids': roots}


def _execute_tree_reads(context, names, roots, by=stmts.BY_ROOT):
    """{name: rows} of the reads ``names`` for the providers of the
    trees ``roots`` (a sorted list of ids; with ``by=BY_ID`` the providers
    of those ids), or of every provider when ``roots`` is None.

    The rows are the driver's own tuples, fetched from the DB-API cursor
    of the result: every column read here is an integer, a string or a
    float the drivers return as is (no type processing to apply), and a
    result row object per row was about a quarter of the read's CPU.

    On MariaDB the reads are packed (:mod:`packed_rows`), all of them in
    one statement; a read the packed form cannot give exactly is read
    plainly."""
    key = None if roots is None else by
    params = _params(roots, by)
    found = {}
    if packed_rows.applies(context.session):
        found = _packed_reads(context, key, names, params)
    sqlite = on_sqlite(context.session)
    for name in names:
        if found.get(name) is not None:
            continue
        if name != 'inventories':
            found[name] = _plain_read(
                context, stmts.TREES[key][name], params)
        elif sqlite:
            found[name] = _plain_read(context, stmts.CAPACITY_READS[key],
                                      params)
        else:
            found[name] = _with_capacity(_plain_read(
                context, stmts.TREES[key][name], params))
    return found


def _plain_read(context, statement, params):
    result = context.session.execute(statement, params)
    try:
        return result.cursor.fetchall()
    finally:
        result.close()


@functools.lru_cache(maxsize=None)
def _packed_statement(key, names):
    """The packed form of the tree reads ``names`` of ``key``, built on
    first use (a handful of sets in all)."""
    return packed_rows.packed_union(
        [stmts.TREES[key][name] for name in names])


def _packed_reads(context, key, names, params):
    """{name: rows or None} of the tree reads ``names`` through
    :func:`packed_rows.packed_union`, as the plain reads give them (the
    inventories' ratio a float); None for a read that cannot be read so
    exactly."""
    names = tuple(names)
    statement = _packed_statement(key, names)
    found = dict(zip(names, packed_rows.unpack_union(
        _plain_read(context, statement, params), len(names)), strict=True))
    rows = found.get('inventories')
    if rows:
        # A ratio written without a fraction is a JSON integer.
        found['inventories'] = [
            (r[0], r[1], (r[2] - r[3]) * float(r[4]), r[5], r[6], r[7],
             r[8])
            for r in rows]
    return found


def _read_providers(context, roots, keep=None, by=stmts.BY_ROOT, also=()):
    """({id: Provider}, rows read, {name: rows} of ``also``) of the trees
    of ``roots`` (None: every tree); only those with a root in ``keep``
    when given (every tree is read when the list of roots is too long
    for ``IN``: the other trees' rows are then dropped here, before any
    object is built, and their inventories, traits and aggregates
    skipped). ``also`` names more reads of the same trees made in the
    same statement (packed reads only)."""
    found = _execute_tree_reads(context, ('providers',) + also, roots, by)
    rows = found.pop('providers')
    if keep is None:
        return {r[0]: _provider(r) for r in rows}, len(rows), found
    return ({r[0]: _provider(r) for r in rows if r[3] in keep}, len(rows),
            found)


def _read_ahead(context, with_aggs):
    """The reads :func:`_load_known` will make, read with the providers
    on MariaDB, where they are one packed statement with it: one round
    trip and one statement's overhead fewer when the providers are known
    at their version (the common case), a usage read (a cheap grouped
    index range) wasted when they are not."""
    if not packed_rows.applies(context.session):
        return ()
    return ('usage', 'aggs') if with_aggs is True else ('usage',)


def _fill_inventories(providers, rows):
    """{rc id: (capacity, min_unit, max_unit, step, used)} of each
    provider: the tail of the row, sliced (no tuple rebuilt from the
    unpacked values per row)."""
    get = providers.get
    for row in rows:
        provider = get(row[0])
        if provider is not None:
            provider.inv[row[1]] = row[2:]


def _fill_links(providers, name, rows):
    get = providers.get
    if name == 'traits':
        for rp_id, value in rows:
            provider = get(rp_id)
            if provider is not None:
                provider.traits.add(value)
        return
    for rp_id, value in rows:
        provider = get(rp_id)
        if provider is not None:
            provider.aggs.add(value)


# ``with_aggs``: read the providers' aggregates (True), not (False), or
# only when some tree read has more than one provider (NESTED_AGGS: the
# unnumbered group's member_of, which the root query already decides
# exactly for a tree of one provider).
NESTED_AGGS = 'nested'


def _load(context, roots, with_aggs=True, keep=None, by=stmts.BY_ROOT,
          usable=None, rows=None, ahead=None):
    """{id: Provider} of the trees ``roots`` as :func:`_read_providers`
    reads them (or of the provider ``rows`` already read), their
    inventories, traits and (see ``NESTED_AGGS``) aggregates filled in.

    A root id range (BY_RANGE) whose providers' own ids are dense (the
    span from the first to the last at most twice as long as their
    number: flat trees, and nested trees created one after the other)
    has the rest read by that id span on each table's own provider id
    column, without the join with the providers table that filtering by
    root needs (a third of the traits read's time on SQLite); the rows of
    providers outside the trees are dropped like the range's.

    On SQLite the inventories are read last, and only for the providers
    that may be used (see :func:`_inventories_wanted`) when they are few
    enough: ``usable`` (a provider -> bool check of its traits) tells
    whether a tree of that provider alone may have a candidate; such a
    tree that may not is left without inventories (its provider then
    fits nothing), every other tree's providers get theirs."""
    ahead = ahead or {}
    if rows is None:
        providers, scanned, ahead = _read_providers(
            context, roots, keep, by, _read_ahead(context, with_aggs))
    else:
        # Read with the root query (exactly the trees' providers): the
        # reads below would cover the span of their ids.
        providers = {r[0]: _provider(r) for r in rows}
        scanned = max(providers) - min(providers) + 1 if providers else 0
    if with_aggs == NESTED_AGGS:
        with_aggs = any(p.parent_id is not None
                        for p in providers.values())
    if by == stmts.BY_RANGE and providers:
        lo, hi = min(providers), max(providers)
        if hi - lo < 2 * len(providers):
            roots, by = [lo, hi], stmts.BY_ID_RANGE
    states = provider_states.of(context.session)
    known, unknown = states.recall(providers, usable)
    if known and len(unknown) <= UNKNOWN_SHARE * len(providers):
        return _load_known(context, states, providers, known, unknown,
                           with_aggs, roots, by, ahead)
    names = ('inventories', 'traits', 'aggs')[:3 if with_aggs else 2]
    narrow = (providers and (usable is not None or
                             len(providers) <= NARROW_SHARE * scanned) and
              on_sqlite(context.session))
    if narrow:
        names = names[1:]
    # The aggregates read ahead with the providers are not read again.
    rows = {name: ahead[name] for name in names if name in ahead}
    rows.update(_execute_tree_reads(
        context, tuple(name for name in names if name not in rows), roots,
        by))
    _fill_links(providers, 'traits', rows['traits'])
    if with_aggs:
        _fill_links(providers, 'aggs', rows['aggs'])
    read = None
    if narrow:
        wanted = _inventories_wanted(providers, usable)
        if len(wanted) <= NARROW_SHARE * scanned:
            read = set(wanted)
            rows['inventories'] = _plain_read(
                context, stmts.INVENTORIES_BY_ID_LIST,
                {'ids_json': json.dumps(wanted)}) if wanted else []
        else:
            rows.update(_execute_tree_reads(context, ('inventories',),
                                            roots, by))
    _fill_inventories(providers, rows['inventories'])
    states.remember(providers, read)
    return providers


def _load_known(context, states, providers, known, unknown, with_aggs,
                roots, by, ahead=None):
    """:func:`_load`'s providers when :mod:`provider_states` knows the
    inventories and traits of most of them at their version: the usage
    (and the aggregates, when wanted) read of the same providers, and
    the inventories and traits of the ``unknown`` ones read by id (a
    claim bumped their generation, say), then remembered.

    A provider without allocations gets the remembered inventories as
    they are (no tuple built), the others theirs with the usage read;
    ``ahead``: reads already made with the providers (see
    :func:`_read_ahead`)."""
    names = ('usage', 'aggs') if with_aggs else ('usage',)
    rows = dict(ahead or {})
    missing = tuple(name for name in names if name not in rows)
    if missing:
        rows.update(_execute_tree_reads(context, missing, roots, by))
    if with_aggs:
        _fill_links(providers, 'aggs', rows['aggs'])
    if unknown:
        fresh = _execute_tree_reads(context, ('inventories', 'traits'),
                                    sorted(unknown), stmts.BY_ID)
        _fill_links(unknown, 'traits', fresh['traits'])
        _fill_inventories(unknown, fresh['inventories'])
        states.remember(unknown, None)
    usage = {}
    for rp_id, rc_id, used in rows['usage']:
        usage.setdefault(rp_id, {})[rc_id] = used
    for provider, inventories, traits in known:
        provider.traits = traits
        if not inventories:
            continue
        used = usage.get(provider.id)
        if used is None:
            provider.inv = inventories
        else:
            provider.inv = {
                rc: values if rc not in used else values[:4] + (used[rc],)
                for rc, values in inventories.items()}
    return providers


def _inventories_wanted(providers, usable):
    """Ids (ascending) of the providers whose inventories are needed:
    all of them, but for the one-provider trees whose provider ``usable``
    rejects (traits it has or lacks rule out any candidate of the tree).
    A tree of several providers is kept whole: any of them may serve, and
    from 1.29 every provider of a tree with a candidate is summarised."""
    if usable is None:
        return sorted(providers)
    nested = {p.root_id for p in providers.values()
              if p.parent_id is not None}
    return sorted(rp_id for rp_id, p in providers.items()
                  if p.root_id in nested or usable(p))


def load_trees(context, root_ids, with_aggs=True, usable=None,
               provider_rows=None, ahead=None):
    """{root id: [Provider, ...]} for ``root_ids`` (a list; None: every
    tree, in root id order); aggregates only ``with_aggs`` (member_of or
    sharing providers need them; ``NESTED_AGGS``: only if a tree has
    more than one provider); ``usable`` as :func:`_load` takes it;
    ``provider_rows``: the trees' providers, already read, and
    ``ahead`` ({'usage': rows}) their usage when it was read with them."""
    if root_ids is None:
        providers = _load(context, None, with_aggs, usable=usable)
        root_ids = sorted(p.id for p in providers.values()
                          if p.parent_id is None)
    else:
        providers = _read_trees(context, root_ids, with_aggs, usable,
                                provider_rows, ahead)
    trees = {root_id: [] for root_id in root_ids}
    for provider in providers.values():
        tree = trees.get(provider.root_id)
        if tree is not None:
            tree.append(provider)
    for tree in trees.values():
        if len(tree) > 1:
            tree.sort(key=_provider_id)
    return trees


def _provider_id(provider):
    return provider.id


def _read_trees(context, root_ids, with_aggs, usable=None, rows=None,
                ahead=None):
    """The providers of the trees ``root_ids``. Dense ids (the range from
    the first to the last root at most twice as long as the list, as a
    limited search's batch of flat trees usually is) are read as that
    range, the other trees' rows dropped before any object is built: an
    ``IN`` list of 64 ids costs SQLAlchemy a rendered parameter per id
    and statement, more than the rows the range may add (at most as many
    as asked for), however many ids there are: the scheduler's batch of
    1,000 trees out of 10,000 is one range, not the whole table. Sparse
    lists of more than ``IN_LIST_MAX`` ids read everything (no join with
    the providers table for the filter), other lists are an ``IN`` list."""
    wanted = set(root_ids)
    ordered = sorted(wanted)
    if ordered and ordered[-1] - ordered[0] < 2 * len(ordered):
        return _load(context, ordered, with_aggs, keep=wanted,
                     by=stmts.BY_RANGE, usable=usable, rows=rows,
                     ahead=ahead)
    if len(wanted) > IN_LIST_MAX:
        return _load(context, None, with_aggs, keep=wanted, usable=usable,
                     rows=rows, ahead=ahead)
    return _load(context, ordered, with_aggs, usable=usable, rows=rows,
                 ahead=ahead)


def load_sharing(context, request, ids):
    """{id: Provider} of sharing providers with a requested class (their
    ids found by :func:`research_context.resolve`)."""
    if not ids.sharing:
        return {}
    sharing = _load(context, sorted(ids.sharing), by=stmts.BY_ID)
    for provider in sharing.values():
        provider.sharing = True
    return sharing


def anchors(context, sharing, root_ids=None):
    """{root id: {sharing provider id}}: which sharing providers each tree
    may use (a provider of the tree shares one of their aggregates)."""
    if not sharing:
        return {}
    shared, mine = RP_AGG.alias(), RP_AGG.alias()
    query = sa.select(shared.c.resource_provider_id,
                      RP.c.root_provider_id).select_from(
        shared.join(mine, mine.c.aggregate_id == shared.c.aggregate_id)
        .join(RP, RP.c.id == mine.c.resource_provider_id)).where(
            shared.c.resource_provider_id.in_(sorted(sharing))).distinct()
    if root_ids is not None and len(root_ids) <= IN_LIST_MAX:
        query = query.where(RP.c.root_provider_id.in_(sorted(root_ids)))
    result = {}
    for sharing_id, root_id in context.session.execute(query).all():
        result.setdefault(root_id, set()).add(sharing_id)
    for provider in sharing.values():
        result.setdefault(provider.root_id, set()).add(provider.id)
    return result
