"""Request context: who asks, under which request id, and in which cell.

A context travels with every RPC message (see ``nova_lite.rpc``) and shows
in every log line through oslo.log. API-level code reaches a cell by
*targeting* a context at a cell mapping (``nova_lite.cells.target_cell``):
the context then carries that cell's database handle (``db_connection``)
and bus (``mq_connection``), which are local to the process and never
serialized.

This module imports neither the database nor the RPC layer (an import
rule checks it): every process builds contexts, a compute included, and
what a context holds of a cell is set from outside.
"""

import copy
import time

from oslo_context import context as oslo_context
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade


@enginefacade.transaction_context_provider
class RequestContext(oslo_context.RequestContext):
    """A request's identity plus the cell it is targeted at, if any."""

    def __init__(self, user_id=None, project_id=None, is_admin=None,
                 roles=None, read_deleted='no', **kwargs):
        kwargs.setdefault('user_id', user_id)
        kwargs.setdefault('project_id', project_id)
        super().__init__(is_admin=bool(is_admin), roles=roles or [], **kwargs)
        self.read_deleted = read_deleted
        self.cell_uuid = None
        self.db_connection = None
        self.mq_connection = None
        # When the caller of an RPC call stops waiting for its answer
        # (seconds since the epoch); see with_reply_deadline.
        self.reply_deadline = None

    def to_dict(self):
        values = super().to_dict()
        values['read_deleted'] = self.read_deleted
        if self.reply_deadline is not None:
            values['reply_deadline'] = self.reply_deadline
        return values

    @classmethod
    def from_dict(cls, values):
        context = super().from_dict(
            values, read_deleted=values.get('read_deleted', 'no'))
        context.reply_deadline = values.get('reply_deadline')
        return context

    def with_reply_deadline(self, timeout):
        """A copy of this context for an RPC call that waits ``timeout``
        seconds for its answer: it tells the server when the caller gives
        up, so a server still working then can undo what it did (the
        scheduler's claims). Wall-clock time: hosts' clocks are assumed
        in step, as service liveness already assumes. A server that does
        not know the key ignores it."""
        ctxt = copy.copy(self)
        ctxt.reply_deadline = time.time() + timeout
        return ctxt

    def elevated(self):
        """Return an admin copy of this context (same request id)."""
        ctx = copy.copy(self)
        ctx.roles = list(set(self.roles) | {'admin'})
        ctx.is_admin = True
        return ctx


def _session_or_connection(context):
    """``context.session``: the transaction's ORM session, or the
    connection of a transaction begun in connection mode
    (``writer.connection.using(context)``), where oslo.db's own property
    raises. Placement's transactions are in that mode (all its SQL is
    Core statements, run with ``execute(statement, parameters)``, which a
    Connection runs as a Session does): it skips the ORM session's
    set-up, bookkeeping and commit, about a third of a small write
    transaction's CPU (doc/benchmarks.md)."""
    transaction = context.transaction_ctx
    found = transaction.session
    if found is None:
        found = transaction.connection
    if found is None:
        raise db_exc.ContextNotRequestedError(
            "The 'session' context attribute was requested but it has not "
            "been established for this context.")
    return found


# NOTE(nova_lite): set after the class statement, because
# transaction_context_provider sets ``session`` on the class it decorates.
RequestContext.session = property(_session_or_connection)


def get_admin_context(read_deleted='no'):
    """An admin context for service-internal work (periodic tasks, manage)."""
    return RequestContext(user_id=None, project_id=None, is_admin=True,
                          roles=['admin'], read_deleted=read_deleted,
                          overwrite=False)


def run_as(executor, context, func, *args, **kwargs):
    """Submit ``func(*args, **kwargs)`` to ``executor``, run logging as
    ``context``'s request (oslo.log takes the request id from the
    thread's context: a pool thread's is otherwise the last task's, or
    none); its future."""
    def run():
        context.update_store()
        return func(*args, **kwargs)
    return executor.submit(run)
