"""Database sessions: one oslo.db enginefacade per database URL.

nova_lite talks to three kinds of database (API, cell, placement), each on
MySQL/MariaDB through PyMySQL or on a SQLite file, the embedded default.
Everything SQL goes through a transaction context made here, so that:

* the API DB and each cell DB get their own engine, cached per URL (a
  process such as the super conductor reaches every cell);
* SQLite files run in WAL mode with a busy timeout, writers open their
  transaction with ``BEGIN IMMEDIATE`` (so two writers queue on the lock
  instead of failing with a stale snapshot) and readers use a separate
  engine with plain deferred transactions, so several processes can share a
  file;
* transient errors (deadlock, lost connection, SQLite's "database is
  locked") are retried by :func:`retry_on_transient` around whole
  transactions, never silently dropped.
"""

import functools
import os
import sqlite3
import threading

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
import sqlalchemy
from sqlalchemy.engine import url as sa_url
from sqlalchemy import exc as sa_exc
from sqlalchemy import pool as sa_pool

from nova_lite import conf as nl_conf

CONF = nl_conf.CONF

_LOCK = threading.Lock()
_CELL_CONTEXT_MANAGERS = {}
_API_CONTEXT_MANAGER = None


def is_sqlite_file(connection):
    url = sa_url.make_url(connection)
    return url.get_backend_name() == 'sqlite' and url.database not in (
        None, '', ':memory:')


def _pool_sqlite_engine(engine, busy_timeout_ms, writer):
    """Give a SQLite file engine a connection pool and our PRAGMAs.

    oslo.db puts SQLite files on a NullPool, which opens a connection (and
    re-runs every PRAGMA) per transaction: about 5 ms against 0.2 ms on a
    pooled connection here. A pooled connection is safe across threads
    (``check_same_thread=False``; a connection serves one checkout at a
    time) and is never reused across a fork (checked at checkout).
    """
    path = engine.url.database

    def creator():
        return sqlite3.connect(path, check_same_thread=False,
                               timeout=busy_timeout_ms / 1000.0,
                               isolation_level=None)

    engine.pool = sa_pool.QueuePool(creator, pool_size=5, max_overflow=60,
                                    timeout=busy_timeout_ms / 1000.0,
                                    dialect=engine.dialect)

    @sqlalchemy.event.listens_for(engine, 'connect')
    def _on_connect(dbapi_con, con_record):
        con_record.info['pid'] = os.getpid()
        dbapi_con.execute('PRAGMA busy_timeout = %d' % busy_timeout_ms)
        dbapi_con.execute('PRAGMA journal_mode = WAL')
        dbapi_con.execute('PRAGMA synchronous = NORMAL')
        dbapi_con.execute('PRAGMA foreign_keys = ON')

    @sqlalchemy.event.listens_for(engine, 'checkout')
    def _on_checkout(dbapi_con, con_record, con_proxy):
        if con_record.info.get('pid') != os.getpid():
            raise sa_exc.DisconnectionError(
                'connection was opened by process %s'
                % con_record.info.get('pid'))

    if writer:
        # NOTE(nova_lite): inserted before oslo.db's own "begin" hook, which
        # sees the marker and leaves the transaction alone.
        @sqlalchemy.event.listens_for(engine, 'begin', insert=True)
        def _begin_immediate(conn):
            if 'in_transaction' not in conn.info:
                conn.exec_driver_sql('BEGIN IMMEDIATE')
                conn.info['in_transaction'] = True


def create_context_manager(connection, busy_timeout_ms=30000, **engine_kw):
    """Return a new enginefacade transaction context for ``connection``.

    Use it as oslo.db intends: ``@cm.writer`` / ``@cm.reader`` on functions
    taking a context, or ``with cm.writer.using(context) as session``.
    """
    cm = enginefacade.transaction_context()
    cfg = dict(connection=connection, sqlite_fk=True, **engine_kw)
    if is_sqlite_file(connection):
        cfg.update(slave_connection=connection, synchronous_reader=False)
    cm.configure(**cfg)
    if is_sqlite_file(connection):
        factory = cm._factory
        original_start = factory._start

        def _start(*args, **kwargs):
            original_start(*args, **kwargs)
            _pool_sqlite_engine(factory._writer_engine, busy_timeout_ms,
                                writer=True)
            _pool_sqlite_engine(factory._reader_engine, busy_timeout_ms,
                                writer=False)
        factory._start = _start
    return cm


def _engine_kw(group):
    return dict(
        max_pool_size=group.max_pool_size,
        max_overflow=group.max_overflow,
        pool_timeout=group.pool_timeout,
        connection_recycle_time=group.connection_recycle_time,
        connection_debug=group.connection_debug,
        mysql_sql_mode=group.mysql_sql_mode,
    )


def get_api_context_manager():
    """The API database's transaction context, from ``[api_database]``."""
    global _API_CONTEXT_MANAGER
    with _LOCK:
        if _API_CONTEXT_MANAGER is None:
            group = CONF.api_database
            if not group.connection:
                raise db_exc.CantStartEngineError(
                    'No [api_database] connection is configured')
            _API_CONTEXT_MANAGER = create_context_manager(
                group.connection, group.sqlite_busy_timeout,
                **_engine_kw(group))
        return _API_CONTEXT_MANAGER


def get_cell_context_manager(connection=None):
    """A cell database's transaction context, cached per URL.

    Without ``connection``, the cell of this process (``[database]``).
    """
    group = CONF.database
    connection = connection or group.connection
    if not connection:
        raise db_exc.CantStartEngineError(
            'No [database] connection is configured')
    with _LOCK:
        cm = _CELL_CONTEXT_MANAGERS.get(connection)
        if cm is None:
            cm = create_context_manager(
                connection, group.sqlite_busy_timeout, **_engine_kw(group))
            _CELL_CONTEXT_MANAGERS[connection] = cm
        return cm


def cell_context_manager_for(context):
    """The transaction context of the cell ``context`` is targeted at."""
    return context.db_connection or get_cell_context_manager()


def reset():
    """Forget every cached engine (tests, and after a configuration change)."""
    global _API_CONTEXT_MANAGER
    with _LOCK:
        for cm in list(_CELL_CONTEXT_MANAGERS.values()) + [
                _API_CONTEXT_MANAGER]:
            if cm is not None:
                try:
                    cm.dispose_pool()
                except Exception:  # noqa: BLE001 - best effort on teardown
                    pass
        _CELL_CONTEXT_MANAGERS.clear()
        _API_CONTEXT_MANAGER = None


def _is_transient(exc):
    """True for errors worth retrying the whole transaction for."""
    text = str(exc).lower()
    return 'database is locked' in text or 'database table is locked' in text


def retry_on_transient(func=None, max_retries=10):
    """Retry a whole transaction on deadlock, disconnect or SQLite lock.

    Wrap the outermost function that opens the transaction; retrying an
    inner one would replay statements of a transaction already rolled back.
    """
    def decorate(fn):
        wrapped = oslo_db_api.wrap_db_retry(
            max_retries=max_retries, retry_on_deadlock=True,
            retry_on_disconnect=True, retry_interval=0.05,
            max_retry_interval=1, inc_retry_interval=True,
            exception_checker=_is_transient)(fn)
        return functools.wraps(fn)(wrapped)
    if func is not None:
        return decorate(func)
    return decorate
