"""Reading the trees of allocation candidates: providers, inventories
with usage, traits and aggregates, by the prebuilt statements of
:mod:`tree_statements`, into :class:`Provider` objects the candidate
builder combines; and what a worker remembers of them between searches
(:class:`ProviderStates`), so that most searches read only the usage.

Why apart from :mod:`root_query` (which decides which trees to read):
this is the per-provider half of the request's cost, the rows read here
are what a large answer spends most of its SQL time on. Both run their
statements as the database reads them best: :func:`on_sqlite` and
:func:`on_mariadb` say which, :func:`unpack` reads MariaDB's packed rows.
"""

import functools
import json
import threading
import weakref

import sqlalchemy as sa

from nova_lite.placement.objects import common
from nova_lite.placement.objects import tree_statements as stmts


RP = common.RP
RP_AGG = common.RP_AGG

# Above this many roots the trees are read without an IN list.
IN_LIST_MAX = 500
# SQLite reads the inventories of a list of providers (see
# stmts.INVENTORIES_BY_ID_LIST) when they are at most this share
# of the providers the range or whole-table read would cover.
NARROW_SHARE = 0.75
# A read whose providers ProviderStates knows but for at most this share
# reads the others by id, one statement more; more unknown (a small
# lab's two nodes, one of them just claimed), it reads every tree again.
UNKNOWN_SHARE = 0.1


class Provider:
    """One provider as the candidate builder needs it: a record of what
    was read (the rules that use it are ``allocation_candidate``'s)."""

    __slots__ = ('id', 'uuid', 'parent_id', 'root_id', 'version',
                 'traits', 'aggs', 'inv', 'sharing')

    def __init__(self, rp_id, uuid, parent_id, root_id, version=None):
        self.id = rp_id
        self.uuid = uuid
        self.parent_id = parent_id
        self.root_id = root_id
        # (generation, updated_at as text): what ProviderStates keys on
        self.version = version
        self.traits = set()
        self.aggs = set()
        # {rc id: (capacity, min_unit, max_unit, step, used)}, capacity
        # the float (total - reserved) * allocation_ratio (see
        # stmts.CAPACITY_READS)
        self.inv = {}
        self.sharing = False


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


def on_mariadb(session):
    """Whether ``session`` reads from MariaDB, where the reads are packed
    (:mod:`tree_statements`): the only server whose text for floats was
    checked against the protocol's."""
    return getattr(session.get_bind().dialect, 'is_mariadb', False)


def unpack(result):
    """The rows of a packed read's ``result`` (its one row) as lists, or
    None when the value was cut short or a value could not be packed
    (the caller then reads the rows plainly)."""
    count, text = result[0]
    if not count:
        return []
    if text is None:
        return None
    try:
        rows = json.loads('[%s]' % text)
    except ValueError:
        return None
    return rows if len(rows) == count else None


def unpack_union(result, number):
    """[rows or None] of the ``number`` statements of a
    :func:`tree_statements.packed_union` read's ``result`` (see
    :func:`unpack`)."""
    parts = {tag: (count, text) for tag, count, text in result}
    return [unpack([parts[i]]) if i in parts else None
            for i in range(number)]


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

    On MariaDB the reads are packed (:mod:`tree_statements`), all of them in
    one statement; a read the packed form cannot give exactly is read
    plainly."""
    key = None if roots is None else by
    params = _params(roots, by)
    found = {}
    if on_mariadb(context.session):
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
    return stmts.packed_union(
        [stmts.TREES[key][name] for name in names])


def _packed_reads(context, key, names, params):
    """{name: rows or None} of the tree reads ``names`` through
    :func:`tree_statements.packed_union`, as the plain reads give them (the
    inventories' ratio a float); None for a read that cannot be read so
    exactly."""
    names = tuple(names)
    statement = _packed_statement(key, names)
    found = dict(zip(names, unpack_union(
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
    if not on_mariadb(context.session):
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
    states = states_of(context.session)
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
    """:func:`_load`'s providers when :class:`ProviderStates` knows the
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
    ids found by :func:`root_query.resolve`)."""
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


# -- provider states ----------------------------------------------------------
#
# What a placement worker remembers of providers between candidate
# searches: each provider's inventories (capacity and unit limits, not the
# usage) and traits, as they were at one version of the provider.
#
# Why: reading and converting those rows is most of a large search's SQL
# cost (thousands of inventory rows at 1,000 providers on SQLite; on
# MariaDB the packed read of inventories and traits is the slowest
# statement), and they change far less often than they are read. The
# effect on each query is in doc/benchmarks.md. The usage, which every
# claim and every delete changes, is still read on every request.
#
# Why a version is enough: every write to a provider's inventories or
# traits bumps its generation in the same transaction, and writes
# ``updated_at`` with it (``common.increment_generation``). A provider is
# known by its id and uuid; the version is its generation and that
# ``updated_at``, so a provider deleted and created again with the same
# uuid (and, on SQLite, the same reused id) is not mistaken for the old
# one when it reaches the same generation. The generation is read with
# the provider's row, before its inventories and traits are, so a write
# landing between the two reads leaves an entry under the older version,
# which no later read matches.
#
# What is not remembered: aggregates (an aggregate change before
# microversion 1.19 does not bump the generation) and usage. The states
# are per database engine (a test's fresh database is another engine) and
# per process (each worker learns them on its own first search).

# More entries than this and the states are dropped whole and learnt
# again (about 0.5 KB each: 50,000 providers ~25 MB per worker).
MAX_ENTRIES = 50000

_BY_ENGINE = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


class ProviderStates:
    """{provider id: (uuid, version, inventories or None, traits)} of
    one database, filled by full reads and used when a search's
    providers are all known."""

    def __init__(self, limit=MAX_ENTRIES):
        self.limit = limit
        self._entries = {}

    def __len__(self):
        return len(self._entries)

    def clear(self):
        self._entries.clear()

    def recall(self, providers, usable=None):
        """([(provider, inventories or None, traits)] of the providers of
        ``providers`` ({id: Provider}) known at their version, {id:
        Provider} of the others).

        An entry without inventories (its provider was left unread by a
        narrowed read) serves only when ``usable`` rejects the provider
        by its traits: that provider is then left without inventories,
        as the narrowed read leaves it; otherwise it is unknown."""
        entries = self._entries
        found, unknown = [], {}
        for rp_id, provider in providers.items():
            entry = entries.get(rp_id)
            if (entry is None or entry[0] != provider.uuid or
                    entry[1] != provider.version or
                    (entry[2] is None and (
                        usable is None or
                        _usable_with(provider, entry[3], usable)))):
                unknown[rp_id] = provider
            else:
                found.append((provider, entry[2], entry[3]))
        return found, unknown

    def remember(self, providers, read):
        """Keep the inventories and traits of ``providers`` as just read;
        ``read``: the ids whose inventories were read, None for all (the
        others are kept with their traits only). The inventories are kept
        with no usage, the tuples a provider without allocations gets
        as they are."""
        entries = self._entries
        new = sum(1 for rp_id in providers if rp_id not in entries)
        if len(entries) + new > self.limit:
            entries.clear()
        for rp_id, provider in providers.items():
            inventories = None
            if read is None or rp_id in read:
                inventories = {rc: values[:4] + (0,)
                               for rc, values in provider.inv.items()}
            entries[rp_id] = (provider.uuid, provider.version, inventories,
                              frozenset(provider.traits))


def _usable_with(provider, traits, usable):
    """``usable(provider)`` as it answers with ``traits`` filled in."""
    provider.traits = traits
    try:
        return usable(provider)
    finally:
        provider.traits = set()


def states_of(session):
    """The :class:`ProviderStates` of ``session``'s database engine."""
    bind = session.get_bind()
    engine = getattr(bind, 'engine', bind)
    states = _BY_ENGINE.get(engine)
    if states is None:
        with _LOCK:
            states = _BY_ENGINE.get(engine)
            if states is None:
                states = _BY_ENGINE[engine] = ProviderStates()
    return states


def clear_states():
    """Forget every engine's states (a test comparing cold reads)."""
    for states in list(_BY_ENGINE.values()):
        states.clear()
