"""Reading many small rows from MariaDB as a few packed text values.

Why: PyMySQL decodes the text protocol in Python, value by value and
packet by packet, and MariaDB writes a packet per row. The tree reads of
an allocation candidates request at 1,000 providers are ~7,000 rows
(3,000 inventories of 9 values): on MariaDB 10.11, reading them as rows
costs about ten times the client CPU and far more wall time than the
same rows as one ``GROUP_CONCAT`` value that ``json.loads`` (C) parses
(doc/benchmarks.md). So on MariaDB a tree read is
rewritten into one row: ``COUNT(*)`` and the rows as JSON arrays
(``[1,2,...],[...]``), ``group_concat_max_len`` raised for the statement.

The answer must be the rows a plain read gives, value for value:

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

import json

import sqlalchemy as sa
from sqlalchemy.ext import compiler
from sqlalchemy.sql import visitors

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


def applies(session):
    """Whether ``session`` reads from MariaDB (the only server whose
    text for floats was checked against the protocol's)."""
    return getattr(session.get_bind().dialect, 'is_mariadb', False)


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


def packed(statement):
    """``statement`` (a select of plain rows) as one row: the number of
    rows and their values as JSON arrays joined by commas, in the order
    the plain statement reads them (no ``ORDER BY``, no ``GROUP BY``:
    the rows are aggregated as the plan produces them)."""
    return _Packed(_packed_select(statement))


def packed_union(statements):
    """:func:`packed` of each of ``statements`` in one statement (``UNION
    ALL``, each part planned on its own), each row tagged by the index of
    its statement: one round trip for several reads."""
    return _Packed(sa.union_all(*[
        _packed_select(statement, sa.literal_column(str(i)))
        for i, statement in enumerate(statements)]))


def unpack_union(result, number):
    """[rows or None] of the ``number`` statements of a
    :func:`packed_union` read's ``result`` (see :func:`unpack`)."""
    parts = {tag: (count, text) for tag, count, text in result}
    return [unpack([parts[i]]) if i in parts else None
            for i in range(number)]


def packed_ids(statement):
    """``statement`` (a select of one integer column, which may have its
    own ``ORDER BY`` and ``LIMIT``) as one row: the number of ids and the
    ids joined by commas, in no particular order. The statement is a
    derived table, planned as before; its ids are short (``MAX_LENGTH``
    is not needed below ~100,000 of them: a longer value reads plainly)."""
    ids = statement.subquery('packed')
    return sa.select(sa.func.count(), sa.func.group_concat(ids.c[0]))


def unpack(result):
    """The rows of a :func:`packed` read's ``result`` (its one row) as
    lists, or None when the value was cut short or a value could not be
    packed."""
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
