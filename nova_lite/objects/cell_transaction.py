"""One cell database transaction around several objects' reads or writes.

The cell side of :mod:`nova_lite.objects.api_transaction`: each object
method opens its own enginefacade transaction on the (cell-targeted)
context; inside one of these blocks they join it instead (one BEGIN and
COMMIT, all or nothing). The API database keeps its own transactions:
enginefacade opens a new one for another database's factory.
"""

from nova_lite.db import session

# Retry a whole function (a transaction) on a transient database error;
# a call already inside a transaction is not retried on its own.
retry_on_transient = session.retry_on_transient


def writing(cctxt):
    """A writer transaction on the cell database ``cctxt`` targets."""
    return session.cell_context_manager_for(cctxt).writer.using(cctxt)
