"""One database transaction around several objects' reads or writes.

Each object method opens its own enginefacade transaction on the context
it is given; inside one of these blocks they join it instead (one BEGIN
and COMMIT, one snapshot; all or nothing for writes). Each database
keeps its own transactions: enginefacade opens a new one for another
database's factory, and a cell context is a copy of the request context
with none open, so an API block does not hold a cell transaction open
(or the other way round).
"""

from nova_lite.db import session

# Retry a whole function (a transaction) on a transient database error;
# a call already inside a transaction is not retried on its own.
retry_on_transient = session.retry_on_transient
# True in a retried attempt whose predecessor lost its connection (its
# COMMIT may have gone through).
after_lost_connection = session.after_lost_connection


def api_reading(context):
    """A reader transaction on the API database for ``context``."""
    return session.get_api_context_manager().reader.using(context)


def api_writing(context):
    """A writer transaction on the API database for ``context``."""
    return session.get_api_context_manager().writer.using(context)


def cell_writing(cctxt):
    """A writer transaction on the cell database ``cctxt`` targets."""
    return session.cell_context_manager_for(cctxt).writer.using(cctxt)
