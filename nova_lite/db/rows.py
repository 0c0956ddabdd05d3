"""Row helpers every DB API module shares.

Each DB API function is one small transaction; two things recur in all of
them and live here once: a unique-key clash must surface as the module's
own "already exists" error (never as oslo.db's ``DBDuplicateEntry``, which
the API layers would turn into a 500), and a missing row as its own "not
found" error.
"""

import contextlib

from oslo_db import exception as db_exc
import sqlalchemy as sa


@contextlib.contextmanager
def duplicate_raises(error):
    """Raise ``error`` (an exception instance) instead of a unique-key
    clash inside the block."""
    try:
        yield
    except db_exc.DBDuplicateEntry:
        raise error


def insert(writer, row, duplicate, refresh=False):
    """Add ``row`` in the ``writer`` transaction and return it.

    :param duplicate: the exception to raise when a unique key is taken.
    :param refresh: re-read the row after the insert (server defaults).
    """
    with duplicate_raises(duplicate), writer as s:
        s.add(row)
        s.flush()
        if refresh:
            s.refresh(row)
    return row


def insert_many(writer, model, values, duplicate):
    """Insert the rows ``values`` (dicts) of ``model`` in the ``writer``
    transaction with one statement (no row objects built or re-read).

    :param duplicate: the exception to raise when a unique key is taken.
    """
    if not values:
        return
    with duplicate_raises(duplicate), writer as s:
        s.execute(sa.insert(model.__table__), values)


def first_or_raise(s, query, missing):
    """The first object (or value) of ``query`` in session ``s``;
    ``missing`` (an exception instance) raised when there is none."""
    return _present(s.scalars(query).first(), missing)


def first_row_or_raise(s, query, missing):
    """The first row (named columns) of ``query`` in session ``s``, for
    a read of a few columns; ``missing`` raised when there is none."""
    return _present(s.execute(query).first(), missing)


def _present(row, missing):
    if row is None:
        raise missing
    return row
