"""A lab fault of the database: statements delayed or failing.

:mod:`nova_lite.service_faults` sets it in a service's process (``chaos
fault database``); a SQLAlchemy ``before_cursor_execute`` listener on
every engine of the process then waits ``delay`` seconds before each
statement and fails a fraction ``error_rate`` of them with the error a
lost connection gives (``DBConnectionError``), so the service's own
retries (:func:`nova_lite.db.session.retry_on_transient`, the conductor's
retry of compute calls) run as in a database outage. Several services of
one process (functional tests) share the fault. It lives in the process:
a restarted service has none.
"""

import random
import threading
import time

from oslo_db import exception as db_exc
from sqlalchemy import engine as sa_engine
from sqlalchemy import event
from sqlalchemy import exc as sa_exc

_LOCK = threading.Lock()
# {owner: {'delay', 'error_rate'}}: the last one set applies.
_FAULTS = {}
_CURRENT = None
_LISTENING = False

# Replaced in tests.
sleep = time.sleep
rand = random.random


def check(fault):
    """``{'delay', 'error_rate'}`` of ``fault`` (ValueError if wrong)."""
    delay = float(fault.get('delay') or 0)
    rate = float(fault.get('error_rate') or 0)
    if delay < 0 or not 0 <= rate <= 1:
        raise ValueError('a database fault has a delay >= 0 and an '
                         'error_rate between 0 and 1')
    if not delay and not rate:
        raise ValueError('a database fault needs a delay or an error rate')
    return {'delay': delay, 'error_rate': rate}


def set_fault(owner, fault):
    """Delay or fail this process's statements (``owner``: who set it,
    for :func:`unset_fault`)."""
    global _CURRENT, _LISTENING
    fault = check(fault)
    with _LOCK:
        if not _LISTENING:
            event.listen(sa_engine.Engine, 'before_cursor_execute',
                         _before_cursor_execute)
            _LISTENING = True
        _FAULTS.pop(owner, None)
        _FAULTS[owner] = fault
        _CURRENT = fault
    return fault


def unset_fault(owner):
    global _CURRENT
    with _LOCK:
        _FAULTS.pop(owner, None)
        _CURRENT = list(_FAULTS.values())[-1] if _FAULTS else None


def current():
    return _CURRENT


def _before_cursor_execute(conn, cursor, statement, parameters, context,
                           executemany):
    fault = _CURRENT
    if fault is None:
        return
    if fault['delay']:
        sleep(fault['delay'])
    if fault['error_rate'] and rand() < fault['error_rate']:
        raise db_exc.DBConnectionError(sa_exc.OperationalError(
            statement, parameters,
            Exception('lab fault: database connection lost')))
