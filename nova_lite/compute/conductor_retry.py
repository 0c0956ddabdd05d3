"""Conductor calls a build cannot do without, retried for a bounded time.

A compute records a build's progress through its cell conductor. While
that conductor restarts, its database restarts or the bus reconnects, a
call fails with ``MessagingTimeout`` or with the conductor's database error
(``RemoteError`` naming ``DBConnectionError``): neither says anything about
the instance, and the same call a few seconds later succeeds. So the calls
of the build path are retried with a doubling back-off for ``[compute]
conductor_retry_timeout`` seconds; an answer about the instance (not
found, unexpected state) is final at once. What still fails after that is
the caller's to undo (see :mod:`nova_lite.compute.build`).
"""

import functools
import time

from oslo_log import log as logging
from oslo_db import exception as db_exc
import oslo_messaging as messaging

from nova_lite import conf as nl_conf

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

# Errors of the conductor's database that say nothing about the request.
TRANSIENT_REMOTE_TYPES = frozenset([
    'DBConnectionError', 'DBDeadlock', 'CantStartEngineError',
    'OperationalError', 'DisconnectionError', 'ServiceUnavailable'])
# First pause between two attempts and the largest one, in seconds.
FIRST_INTERVAL = 0.5
MAX_INTERVAL = 10.0


def is_transient(error):
    """True for a failure that a later attempt of the same call may not
    meet: the bus or the conductor's database was away."""
    if isinstance(error, (messaging.MessagingTimeout,
                          messaging.MessageDeliveryFailure,
                          # NOTE(nova_lite): what fake:// hands back as is
                          # arrives as a RemoteError over RabbitMQ.
                          db_exc.DBConnectionError, db_exc.DBDeadlock,
                          db_exc.CantStartEngineError)):
        return True
    return (isinstance(error, messaging.RemoteError) and
            error.exc_type in TRANSIENT_REMOTE_TYPES)


def call_with_retries(func, *args, timeout=None, what=None, **kwargs):
    """``func(*args, **kwargs)``, retried on transient failures for
    ``timeout`` seconds (``[compute] conductor_retry_timeout``)."""
    timeout = (CONF.compute.conductor_retry_timeout if timeout is None
               else timeout)
    deadline = time.monotonic() + timeout
    interval = FIRST_INTERVAL
    attempt = 1
    while True:
        try:
            return func(*args, **kwargs)
        except Exception as error:
            if not is_transient(error):
                raise
            left = deadline - time.monotonic()
            if left <= 0:
                LOG.error('%s failed %d times over %d s, giving up: %s',
                          what or func.__name__, attempt, timeout, error)
                raise
            pause = min(interval, left)
            LOG.warning('%s failed (%s); retry %d in %.1f s',
                        what or func.__name__, error, attempt, pause)
            time.sleep(pause)
            interval = min(interval * 2, MAX_INTERVAL)
            attempt += 1


class RetryingConductor:
    """The conductor API with every call retried (see the module)."""

    def __init__(self, conductor, timeout=None):
        self._conductor = conductor
        self._timeout = timeout

    def __getattr__(self, name):
        method = getattr(self._conductor, name)
        if not callable(method):
            return method

        @functools.wraps(method)
        def retried(*args, **kwargs):
            return call_with_retries(method, *args, timeout=self._timeout,
                                     what='conductor ' + name, **kwargs)
        return retried
