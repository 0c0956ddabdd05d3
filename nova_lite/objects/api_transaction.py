"""One API database transaction around several objects' reads or writes.

Each object method opens its own enginefacade transaction on the request
context; inside one of these blocks they join it instead (one BEGIN and
COMMIT, one snapshot; all or nothing for writes). Cell database reads
keep their own transactions: a cell context is a copy of the request
context, with none open.
"""

from nova_lite.db import session

# Retry a whole function (a transaction) on a transient database error;
# a call already inside a transaction is not retried on its own.
retry_on_transient = session.retry_on_transient


def reading(context):
    """A reader transaction on the API database for ``context``."""
    return session.get_api_context_manager().reader.using(context)


def writing(context):
    """A writer transaction on the API database for ``context``."""
    return session.get_api_context_manager().writer.using(context)
