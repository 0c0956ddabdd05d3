"""The statements of allocation candidates' SQL reads, built once, and
their packed form for MariaDB.

The tree reads (providers, inventories with usage, traits, aggregates)
are the same few statements on every request, so they are built here, at
import, with the root ids passed as an expanding parameter: a request
pays neither their construction nor SQLAlchemy's cache key walk
(memoized on the statement object). Each read comes in the forms of
:data:`TREES`: every provider (key None), the providers of some trees
(``BY_ROOT``, ``BY_RANGE``) and some providers by id (``BY_ID``,
``BY_ID_RANGE``). :mod:`tree_reads` runs them and turns the rows into
providers; :mod:`root_query` builds the statement that picks the trees.

Packed rows. PyMySQL decodes the text protocol in Python, value by value
and packet by packet, and MariaDB writes a packet per row. The tree reads
of an allocation candidates request at 1,000 providers are ~7,000 rows
(3,000 inventories of 9 values): on MariaDB 10.11, reading them as rows
costs about ten times the client CPU and far more wall time than the
same rows as one ``GROUP_CONCAT`` value that ``json.loads`` (C) parses
(doc/benchmarks.md). So on MariaDB a read is rewritten into one row
(:func:`packed_union`, :func:`packed_ids`): ``COUNT(*)`` and the rows as
JSON arrays (``[1,2,...],[...]``), ``group_concat_max_len`` raised for
the statement. The answer must be the rows a plain read gives, value for
value (:func:`tree_reads.unpack` checks it):

* a value cut at ``group_concat_max_len`` fails to parse or to count,
  and the caller reads the rows plainly instead;
* a ``FLOAT`` as ``CONCAT`` writes it is the text the protocol sends
  (what PyMySQL's ``float()`` reads) for every value tried from 1e-11 to
  3.4e38 (11,000 values, random bit patterns among them), not below
  (MariaDB 10.11 drops a digit around 1e-13); the float columns are
  packed only at or above ``FLOAT_EXACT_MIN`` (or zero), and any other
  value makes the read plain;
* the rows keep the plain read's order (the order the plan produces
  them): a provider's inventories are a dict whose order is the
  summary's.
"""

import functools

import sqlalchemy as sa
from sqlalchemy.ext import compiler
from sqlalchemy.sql import visitors

from nova_lite.placement.objects import common

RP = common.RP
INV = common.INV
ALLOC = common.ALLOC
RP_TRAIT = common.RP_TRAIT
RP_AGG = common.RP_AGG

_IDS = sa.bindparam('ids', expanding=True)


# -- packed rows (MariaDB) ----------------------------------------------------

# Longest packed value accepted (MariaDB's own default is 1 MB: about
# 30,000 inventory rows); the rows must fit in max_allowed_packet too.
MAX_LENGTH = 1 << 26
FLOAT_EXACT_MIN = 1e-6


class _Packed(sa.sql.expression.Executable, sa.sql.expression.ClauseElement):
    """``SET STATEMENT group_concat_max_len=... FOR <select>``: the
    length raised for this statement only, without a round trip."""

    inherit_cache = True
    _traverse_internals = [
        ('select', visitors.InternalTraversal.dp_clauseelement)]

    def __init__(self, select):
        self.select = select

    @property
    def _all_selected_columns(self):
        # SQLAlchemy asks for these when an equal statement (the same
        # cache key, another object: one for another LIMIT value, which
        # the key leaves out, or two threads building one at once) runs
        # from this one's cached compiled form; Executable's own raises
        # NotImplementedError, which became a 500.
        return self.select._all_selected_columns


@compiler.compiles(_Packed)
def _compile_packed(element, sql_compiler, **kw):
    return 'SET STATEMENT group_concat_max_len=%d FOR %s' % (
        MAX_LENGTH, sql_compiler.process(element.select, **kw))




def _text(column):
    """``column`` as JSON text: NULL as ``null``, strings quoted (the
    values read here are ids, uuids and numbers: nothing to escape), and
    a float that ``CONCAT`` might not write as the protocol does as
    ``?``, which makes the whole value unparsable (the read then plain)."""
    if isinstance(column.type, sa.String):
        return sa.func.concat('"', column, '"')
    if isinstance(column.type, sa.Float):
        return sa.case((sa.or_(column == 0, sa.func.abs(column) >=
                               FLOAT_EXACT_MIN), column),
                       else_=sa.literal_column("'?'"))
    if isinstance(column, sa.Column) and not column.nullable:
        return column
    return sa.func.coalesce(column, sa.literal_column("'null'"))


def _packed_select(statement, *tag):
    values = [_text(c) for c in statement.selected_columns]
    row = sa.func.concat('[', sa.func.concat_ws(',', *values), ']')
    return statement.with_only_columns(
        *tag, sa.func.count(), sa.func.group_concat(row),
        maintain_column_froms=True)


def packed_union(statements):
    """``statements`` (selects of plain rows) as one statement (``UNION
    ALL``, each part planned on its own), a row per statement, tagged by
    its index: the number of rows and their values as JSON arrays joined
    by commas, in the order the plain statement reads them (no ``ORDER
    BY``, no ``GROUP BY``: the rows are aggregated as the plan produces
    them). One round trip for several reads."""
    return _Packed(sa.union_all(*[
        _packed_select(statement, sa.literal_column(str(i)))
        for i, statement in enumerate(statements)]))


def packed_ids(statement):
    """``statement`` (a select of one integer column, which may have its
    own ``ORDER BY`` and ``LIMIT``) as one row: the number of ids and the
    ids joined by commas, in no particular order. The statement is a
    derived table, planned as before; its ids are short (``MAX_LENGTH``
    is not needed below ~100,000 of them: a longer value reads plainly)."""
    ids = statement.subquery('packed')
    return sa.select(sa.func.count(), sa.func.group_concat(ids.c[0]))


# -- the tree reads -----------------------------------------------------------



def _usage_table():
    """Usage per provider and class, as a derived table to join once
    (cheaper than a subquery per inventory row on MariaDB)."""
    return sa.select(
        ALLOC.c.resource_provider_id.label('rp_id'),
        ALLOC.c.resource_class_id.label('rc_id'),
        sa.func.sum(ALLOC.c.used).label('used')).group_by(
            ALLOC.c.resource_provider_id,
            ALLOC.c.resource_class_id).subquery('usage')


def _provider_statement(where):
    """The providers' rows: id, uuid, parent, root, then the version
    :class:`tree_reads.ProviderStates` keys on (the generation,
    ``updated_at`` as text, '' when never updated: a string on every
    driver, packed as one on MariaDB)."""
    query = sa.select(RP.c.id, RP.c.uuid, RP.c.parent_provider_id,
                      RP.c.root_provider_id, RP.c.generation,
                      sa.func.coalesce(sa.cast(RP.c.updated_at, sa.String),
                                       sa.literal('', sa.String)))
    return query if where is None else query.where(where)


def _usage_statement(where=None, own=None):
    """Usage per provider and class alone (for providers whose
    inventories :class:`tree_reads.ProviderStates` remembers), of the
    providers ``where`` selects (a condition on the providers table) or
    ``own`` (one on the allocations' own provider id); a select of the
    grouped rows, so that MariaDB can pack it like the other reads."""
    query = sa.select(
        ALLOC.c.resource_provider_id.label('rp_id'),
        ALLOC.c.resource_class_id.label('rc_id'),
        sa.func.sum(ALLOC.c.used).label('used'))
    if where is not None:
        query = query.select_from(ALLOC.join(
            RP, RP.c.id == ALLOC.c.resource_provider_id)).where(where)
    if own is not None:
        query = query.where(own)
    usage = query.group_by(ALLOC.c.resource_provider_id,
                           ALLOC.c.resource_class_id).subquery('usage')
    return sa.select(usage.c.rp_id, usage.c.rc_id,
                     sa.cast(usage.c.used, sa.Integer))


def _inventory_statement(where, capacity=False):
    """The inventories with usage; with ``capacity`` the capacity in one
    column, ``(total - reserved) * allocation_ratio`` computed by the
    database (SQLite's, see CAPACITY_READS), else the three columns."""
    usage = _usage_table()
    joined = INV.outerjoin(usage, sa.and_(
        usage.c.rp_id == INV.c.resource_provider_id,
        usage.c.rc_id == INV.c.resource_class_id))
    if where is not None:
        joined = joined.join(RP, RP.c.id == INV.c.resource_provider_id)
    if capacity:
        amounts = [(INV.c.total - INV.c.reserved) * INV.c.allocation_ratio]
    else:
        amounts = [INV.c.total, INV.c.reserved, INV.c.allocation_ratio]
    query = sa.select(
        INV.c.resource_provider_id, INV.c.resource_class_id, *amounts,
        INV.c.min_unit, INV.c.max_unit, INV.c.step_size,
        # NOTE(nova_lite): an integer from every driver (MySQL's SUM is
        # a DECIMAL), so a row's tail is the inventory tuple as read.
        sa.cast(sa.func.coalesce(usage.c.used, 0), sa.Integer)
    ).select_from(joined)
    return query if where is None else query.where(where)


def _link_statement(table, column, where):
    query = sa.select(table.c.resource_provider_id, column)
    if where is None:
        return query
    return query.select_from(table.join(
        RP, RP.c.id == table.c.resource_provider_id)).where(where)


def _tree_statements(where):
    return {
        'providers': _provider_statement(where),
        'inventories': _inventory_statement(where),
        'traits': _link_statement(RP_TRAIT, RP_TRAIT.c.trait_id, where),
        'aggs': _link_statement(RP_AGG, RP_AGG.c.aggregate_id, where),
        'usage': _usage_statement(where),
    }


def _own_range_statements():
    """The inventories, traits and aggregates of the providers with an id
    between ``lo`` and ``hi``, by the tables' own provider id column: no
    join with the providers table (see :func:`tree_reads._load`)."""
    lo, hi = sa.bindparam('lo'), sa.bindparam('hi')
    statements = {}
    for name, table in (('inventories', INV), ('traits', RP_TRAIT),
                        ('aggs', RP_AGG)):
        query = TREES[None][name]
        statements[name] = query.where(
            table.c.resource_provider_id.between(lo, hi))
    statements['usage'] = _usage_statement(
        own=ALLOC.c.resource_provider_id.between(lo, hi))
    return statements


# BY_RANGE: the trees with a root id between the first and the last of a
# sorted list (two plain parameters; the caller drops the trees not in
# the list). BY_ID_RANGE: the providers with an id between two others
# (the rows of the other providers are dropped likewise).
BY_ROOT, BY_ID, BY_RANGE, BY_ID_RANGE = 'root', 'id', 'range', 'id-range'
TREES = {
    None: _tree_statements(None),
    BY_ROOT: _tree_statements(RP.c.root_provider_id.in_(_IDS)),
    BY_ID: _tree_statements(RP.c.id.in_(_IDS)),
    BY_RANGE: _tree_statements(RP.c.root_provider_id.between(
        sa.bindparam('lo'), sa.bindparam('hi'))),
}
TREES[BY_ID_RANGE] = _own_range_statements()


def _capacity_reads():
    """SQLite's inventories reads: the statements of TREES
    with the capacity computed in SQL. Two values fewer per row (SQLite's
    per-value conversion is most of a read),
    and the same float: SQLite's REAL is a double, ``total - reserved``
    an integer it converts exactly, the product the one Python computes.
    Not on MariaDB, whose FLOAT column is single precision: its product
    would use the float's exact value, Python the text the protocol
    sends (0.7, not 0.699999988), as Placement does."""
    lo, hi = sa.bindparam('lo'), sa.bindparam('hi')
    reads = {
        None: _inventory_statement(None, capacity=True),
        BY_ROOT: _inventory_statement(RP.c.root_provider_id.in_(_IDS),
                                      capacity=True),
        BY_ID: _inventory_statement(RP.c.id.in_(_IDS), capacity=True),
        BY_RANGE: _inventory_statement(
            RP.c.root_provider_id.between(lo, hi), capacity=True),
    }
    reads[BY_ID_RANGE] = reads[None].where(
        INV.c.resource_provider_id.between(lo, hi))
    return reads


CAPACITY_READS = _capacity_reads()

# SQLite: the inventories (with usage) of the providers whose ids are the
# JSON array ``ids_json``, one parameter expanded by the engine itself
# (``json_each``): no rendered parameter per id, and only those rows read
# and converted (SQLite's per-value conversion is most of the read; a
# filtered query at 1,000 providers would read 3,000 rows for 2,000
# used). Not on MariaDB, whose packed read of the same rows by an IN list
# is slower than by the range.
INVENTORIES_BY_ID_LIST = CAPACITY_READS[None].where(
    INV.c.resource_provider_id.in_(sa.select(
        sa.func.json_each(sa.bindparam('ids_json')).table_valued(
            'value').c.value)))


@functools.lru_cache(maxsize=256)
def providers_of(root_query):
    """The providers read of the trees whose roots ``root_query`` (a
    select of root ids, its own order and limit kept) returns, kept per
    root query statement (see :func:`root_query.viable_trees`)."""
    viable = root_query.subquery('viable')
    return _provider_statement(RP.c.root_provider_id.in_(
        sa.select(viable.c.id)))


@functools.lru_cache(maxsize=256)
def providers_and_usage_of(root_query):
    """MariaDB's :func:`providers_of` with the trees' usage, packed in one
    statement (see :func:`root_query.viable_trees`)."""
    viable = sa.select(root_query.subquery('viable').c.id)
    where = RP.c.root_provider_id.in_(viable)
    return packed_union([_provider_statement(where),
                                     _usage_statement(where)])
