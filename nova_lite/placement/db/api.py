"""The placement database's transaction context, created lazily.

There is exactly one per process, built from ``[placement_database]`` the
first time a request needs it; :func:`reset` forgets it (tests, or after the
configuration changed). Objects decorate their SQL helpers with
``get_context_manager().writer`` / ``.reader`` through :func:`writer` and
:func:`reader`, which resolve the context manager at call time.
"""

import functools
import threading

from oslo_db import exception as db_exc

from nova_lite import conf as nl_conf
from nova_lite.db import session as db_session

CONF = nl_conf.CONF


class _Holder:
    """Owns the lazily created context manager (no module ``global``)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.manager = None

    def get(self):
        with self.lock:
            if self.manager is None:
                group = CONF.placement_database
                if not group.connection:
                    raise db_exc.CantStartEngineError(
                        'No [placement_database] connection is configured')
                self.manager = db_session.create_context_manager(
                    group.connection, group.sqlite_busy_timeout,
                    **db_session._engine_kw(group))
            return self.manager

    def reset(self):
        with self.lock:
            if self.manager is not None:
                try:
                    self.manager.dispose_pool()
                except Exception:  # noqa: BLE001 - best effort on teardown
                    pass
            self.manager = None


_HOLDER = _Holder()


def get_context_manager():
    """The placement enginefacade transaction context of this process."""
    return _HOLDER.get()


def reset():
    """Forget the engine (tests, configuration change)."""
    _HOLDER.reset()


def writer(fn):
    """Run ``fn(context, ...)`` in a writer transaction of the placement DB,
    the whole transaction retried while the database is away or locked
    (:func:`nova_lite.db.session.retry_on_transient`; a writer nested in
    another retried call is not retried twice).

    The transaction is a connection's, not an ORM session's (placement
    runs Core statements only): ``context.session`` is that connection
    (see :func:`nova_lite.context._session_or_connection`). Readers keep
    their session: the candidate reads ask it for its engine's dialect."""
    @functools.wraps(fn)
    def wrapper(context, *args, **kwargs):
        with get_context_manager().writer.connection.using(context):
            return fn(context, *args, **kwargs)
    return db_session.retry_on_transient(wrapper)


def reader(fn):
    """Run ``fn(context, ...)`` in a reader transaction of the placement DB
    (retried as :func:`writer` is)."""
    @functools.wraps(fn)
    def wrapper(context, *args, **kwargs):
        with get_context_manager().reader.using(context):
            return fn(context, *args, **kwargs)
    return db_session.retry_on_transient(wrapper)


def session(context):
    """What runs the statements of the transaction ``context`` is in (a
    writer's connection, a reader's session)."""
    return context.session
