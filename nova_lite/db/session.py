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
* writers of one SQLite file in one process queue on a lock of the
  process before ``BEGIN IMMEDIATE`` (see :func:`_serialize_writers`);
* transient errors (deadlock, lost or refused connection, SQLite's
  "database is locked") are retried by :func:`retry_on_transient` around
  whole transactions, reads and writes, for ``[database]
  transient_retry_timeout`` seconds (a database restart), never silently
  dropped; then the error reaches the caller (503 at the REST APIs).
"""

import contextlib
import functools
import os
import random
import re
import sqlite3
import threading
import time

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
import sqlalchemy
from sqlalchemy.engine import url as sa_url
from sqlalchemy import exc as sa_exc
from oslo_log import log as logging
from sqlalchemy import pool as sa_pool

from nova_lite import conf as nl_conf

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

_LOCK = threading.Lock()
_CELL_CONTEXT_MANAGERS = {}
_WRITER_LOCKS = {}
_API_CONTEXT_MANAGER = None


def is_sqlite_file(connection):
    url = sa_url.make_url(connection)
    return url.get_backend_name() == 'sqlite' and url.database not in (
        None, '', ':memory:')


def is_mysql(connection):
    return sa_url.make_url(connection).get_backend_name() == 'mysql'


def _trim_mysql_round_trips(engine):
    """Two round trips per one-statement transaction instead of four.

    oslo.db's engine pings every connection it checks out
    (``pool_pre_ping``) and the pool rolls every connection back when it
    is returned, even after the session committed or rolled back: a
    ping, the statement, COMMIT and a ROLLBACK for one write. Both go:

    * a connection the server dropped (a MariaDB restart) fails its
      first statement instead of its ping; SQLAlchemy then invalidates
      the whole pool (every connection older than the failure is
      replaced at its next checkout) and :func:`retry_on_transient`,
      around every transaction, runs it again on a new connection: one
      retried transaction per engine and restart instead of none (the
      fault suite's ``mariadb_restart`` covers it);
    * the reset rolls back only a connection that sent a statement after
      its last successful COMMIT or ROLLBACK: one the garbage collector
      or a raw DB-API user returned, or whose commit or rollback failed
      without dropping it. Not the server's ``IN_TRANS`` flag: InnoDB
      keeps a reader's snapshot (REPEATABLE READ) until the transaction
      ends without flagging a transaction that only read, so the
      connection's next user would have read that old snapshot.
    """
    pool = engine.pool
    # NOTE(nova_lite): oslo.db hard-codes pool_pre_ping and offers no
    # pool_reset_on_return; these are the pool's settings as
    # create_engine(pool_pre_ping=False, pool_reset_on_return=None)
    # stores them.
    pool._pre_ping = False
    pool._reset_on_return = sa_pool.base.reset_none

    dialect = engine.dialect
    for name in ('do_commit', 'do_rollback'):
        setattr(dialect, name, _marking_ended(getattr(dialect, name)))

    # Open from its checkout (a raw DB-API user sends statements no event
    # sees) and from any statement after its last commit or rollback.
    @sqlalchemy.event.listens_for(pool, 'checkout')
    def _mark_checked_out(dbapi_con, con_record, con_proxy):
        dbapi_con._nova_lite_ended = False

    @sqlalchemy.event.listens_for(engine, 'before_cursor_execute')
    def _mark_open(conn, cursor, statement, parameters, context, many):
        cursor.connection._nova_lite_ended = False

    @sqlalchemy.event.listens_for(pool, 'reset')
    def _rollback_open_transaction(dbapi_con, con_record, reset_state):
        if reset_state.terminate_only:
            return
        if not getattr(dbapi_con, '_nova_lite_ended', False):
            dbapi_con.rollback()
            dbapi_con._nova_lite_ended = True


def _marking_ended(end):
    """The dialect's ``do_commit`` or ``do_rollback`` ``end``, noting on
    the DB-API connection that its transaction ended (see
    :func:`_trim_mysql_round_trips`)."""
    def wrapper(connection):
        end(connection)
        # SQLAlchemy passes the pool's proxy of the DB-API connection.
        raw = getattr(connection, 'dbapi_connection', connection)
        raw._nova_lite_ended = True
    return wrapper


def _regexp(pattern, value):
    """SQLite's ``value REGEXP pattern``: Python's ``re.search``."""
    if pattern is None or value is None:
        return None
    return re.search(pattern, value) is not None


def _pool_sqlite_engine(engine, busy_timeout_ms, writer):
    """Give a SQLite file engine a connection pool and our PRAGMAs.

    oslo.db puts SQLite files on a NullPool, which opens a connection (and
    re-runs every PRAGMA) per transaction: many times the cost of a
    transaction on a pooled connection. A pooled connection is safe
    across threads (``check_same_thread=False``; a connection serves one
    checkout at a time) and is never reused across a fork (checked at
    checkout).
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
        # NOTE(nova_lite): REGEXP (the server list's name filter), as
        # SQLAlchemy's own SQLite connections define it.
        dbapi_con.create_function('regexp', 2, _regexp,
                                  deterministic=True)

    @sqlalchemy.event.listens_for(engine, 'checkout')
    def _on_checkout(dbapi_con, con_record, con_proxy):
        if con_record.info.get('pid') != os.getpid():
            raise sa_exc.DisconnectionError(
                'connection was opened by process %s'
                % con_record.info.get('pid'))

    if writer:
        _serialize_writers(engine, path, busy_timeout_ms)


def _writer_lock(path):
    with _LOCK:
        return _WRITER_LOCKS.setdefault(path, threading.Lock())


def _serialize_writers(engine, path, busy_timeout_ms):
    """One writer transaction at a time per SQLite file in this process.

    SQLite has one write lock per file. Threads of one process that race
    for it through ``BEGIN IMMEDIATE`` wait in SQLite's busy handler,
    which sleeps and polls, and under 8 concurrent writers some still gave
    up with "database is locked". Queued on a lock of the process they
    wait their turn instead; other processes still meet the busy timeout
    (and the transaction retry). The lock is taken when the transaction
    begins and given back when its connection returns to the pool; a wait
    longer than the busy timeout goes on without it rather than deadlock.
    """
    lock = _writer_lock(path)

    def release(info):
        held = info.pop('nl_writer_lock', None)
        if held is not None:
            held.release()

    # NOTE(nova_lite): oslo.db's own "begin" hook emits a deferred BEGIN
    # and runs before this one whatever the order of registration
    # (measured: 440 of 440 transactions under 8 writers began deferred,
    # and a deferred transaction that comes to write after another writer
    # committed fails at once with "database is locked", without waiting
    # for the busy timeout). It is taken off this engine, so a transaction
    # is one BEGIN IMMEDIATE; should it still be there (another oslo.db),
    # nothing ran in its BEGIN yet: it is rolled back and begun again,
    # IMMEDIATE, holding the process's writer lock.
    for listener in list(engine.dispatch.begin):
        if getattr(listener, '__name__', None) == '_sqlite_emit_begin':
            sqlalchemy.event.remove(engine, 'begin', listener)

    @sqlalchemy.event.listens_for(engine, 'begin', insert=True)
    def _begin_immediate(conn):
        if conn.info.get('nl_immediate'):
            return
        if 'in_transaction' in conn.info:
            conn.exec_driver_sql('ROLLBACK')
        if 'nl_writer_lock' not in conn.info and lock.acquire(
                timeout=busy_timeout_ms / 1000.0):
            conn.info['nl_writer_lock'] = lock
        conn.exec_driver_sql('BEGIN IMMEDIATE')
        conn.info['in_transaction'] = True
        conn.info['nl_immediate'] = True

    @sqlalchemy.event.listens_for(engine, 'commit')
    @sqlalchemy.event.listens_for(engine, 'rollback')
    def _end(conn):
        conn.info.pop('nl_immediate', None)

    # NOTE(nova_lite): released when the connection goes back to the
    # pool, after the COMMIT or ROLLBACK itself ran (the engine's
    # "commit" event fires before it).
    @sqlalchemy.event.listens_for(engine.pool, 'checkin')
    def _checkin(dbapi_con, con_record):
        if con_record is not None:
            con_record.info.pop('nl_immediate', None)
            release(con_record.info)


def create_context_manager(connection, busy_timeout_ms=30000, **engine_kw):
    """Return a new enginefacade transaction context for ``connection``.

    Use it as oslo.db intends: ``@cm.writer`` / ``@cm.reader`` on functions
    taking a context, or ``with cm.writer.using(context) as session``.
    """
    cm = enginefacade.transaction_context()
    # NOTE(nova_lite): thread_checkin=False: oslo.db otherwise sleeps(0)
    # on every connection check-in, a yield meant for C drivers under
    # eventlet. PyMySQL's socket I/O yields under eventlet by itself, and
    # with native threads the sleep only gives the core away at the end
    # of every transaction (a loaded placement worker's profile showed
    # it on every request).
    cfg = dict(connection=connection, sqlite_fk=True, thread_checkin=False,
               **engine_kw)
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
    elif is_mysql(connection):
        factory = cm._factory
        original_start = factory._start

        def _start(*args, **kwargs):
            original_start(*args, **kwargs)
            for engine in {factory._writer_engine, factory._reader_engine}:
                _trim_mysql_round_trips(engine)
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
    """True for errors worth retrying the whole transaction for: a lost
    or refused connection (a database restarting), a deadlock, SQLite's
    lock."""
    if isinstance(exc, (db_exc.DBConnectionError, db_exc.DBDeadlock)):
        return True
    text = str(exc).lower()
    return 'database is locked' in text or 'database table is locked' in text


_RETRYING = threading.local()
_RETRY_DEADLINE = threading.local()


@contextlib.contextmanager
def retries_until(deadline):
    """Transient retries of this thread end by ``deadline`` (a
    ``time.monotonic()`` value) in the body, even when ``[database]
    transient_retry_timeout`` would go on: a read whose caller stops
    waiting then (a cell's part of a scatter-gather) gives up with it."""
    outer = getattr(_RETRY_DEADLINE, 'value', None)
    _RETRY_DEADLINE.value = (deadline if outer is None
                             else min(outer, deadline))
    try:
        yield
    finally:
        _RETRY_DEADLINE.value = outer


def _in_transaction(args):
    """True when this thread already runs inside a retried function, or
    the first argument (a request context) is already inside an
    enginefacade transaction: the outermost function retries, never an
    inner one, which would replay part of a transaction rolled back (or
    multiply the time spent retrying)."""
    if getattr(_RETRYING, 'depth', 0):
        return True
    context = args[0] if args else None
    local = getattr(context, '_enginefacade_context', None)
    return getattr(local, 'current', None) is not None


def _retry_budget():
    group = CONF.database
    return group.transient_retry_timeout, group.transient_retry_max_interval


def retry_on_transient(func=None, max_retries=None):
    """Retry a whole transaction while the database is away or locked.

    Wrap the outermost function that opens the transaction (reads too: a
    read during a restart fails the same way). Attempts go on, with a
    doubling pause from :data:`FIRST_RETRY_INTERVAL` up to ``[database]
    transient_retry_max_interval``, for ``[database]
    transient_retry_timeout`` seconds (or ``max_retries`` attempts when
    given); then the last error is raised, which the web layer answers
    with 503. A call made inside another transaction is not retried here.
    """
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if _in_transaction(args):
                return fn(*args, **kwargs)
            return _run_with_retries(fn, args, kwargs, max_retries)
        return wrapper
    if func is not None:
        return decorate(func)
    return decorate


# Seconds of the first pause between two attempts.
FIRST_RETRY_INTERVAL = 0.05


def after_lost_connection():
    """True inside a retried function's attempt that follows one which
    lost its database connection: that attempt's COMMIT may have gone
    through, its answer lost (a Galera node, a proxy or a VIP going away
    during the COMMIT). A writer whose rows then already exist (a
    duplicate key) or whose guarded UPDATE finds its own result checks
    for what the earlier attempt stored instead of failing the work."""
    return getattr(_RETRYING, 'lost_connection', False)


def _run_with_retries(fn, args, kwargs, max_retries):
    timeout, max_interval = _retry_budget()
    deadline = time.monotonic() + timeout
    limit = getattr(_RETRY_DEADLINE, 'value', None)
    if limit is not None:
        deadline = min(deadline, limit)
    interval = FIRST_RETRY_INTERVAL
    attempt = 0
    lost_connection = False
    while True:
        _RETRYING.depth = getattr(_RETRYING, 'depth', 0) + 1
        _RETRYING.lost_connection = lost_connection
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            attempt += 1
            left = deadline - time.monotonic()
            if (not _is_transient(exc) or left <= 0 or
                    (max_retries is not None and attempt > max_retries)):
                raise
            # Once lost, a connection's COMMIT stays in doubt for every
            # later attempt (a deadlock after it proves nothing).
            lost_connection = (lost_connection or
                               isinstance(exc, db_exc.DBConnectionError))
            if attempt == 1 or attempt % 10 == 0:
                LOG.warning('%s failed (%s); retrying for %.0f s more',
                            fn.__name__, exc, left)
            time.sleep(min(interval * random.uniform(0.5, 1.0), left))
            interval = min(interval * 2, max_interval)
        finally:
            _RETRYING.depth -= 1
            _RETRYING.lost_connection = False
