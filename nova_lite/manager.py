"""Base class of the server side (``manager.py``) of every RPC service.

A manager is the RPC endpoint of its service (its ``target`` carries the
API version it serves) and owns the service's periodic tasks, declared
with ``oslo_service.periodic_task.periodic_task``. The hosting
:class:`nova_lite.service.Service` calls the hooks in this order:
``init_host`` (before consuming), ``pre_start_hook`` (start-up recovery,
still before consuming: a message that arrives at start must not be taken
for one a previous process left), ``post_start_hook`` (consuming),
``drain`` (at a graceful stop, after the last message was handled:
finish what the messages queued), ``cleanup_host``.

A manager learns where it lives from its service: ``self.transport`` (its
bus) and :meth:`cell_context` (a context targeted at its cell database),
so several cells can run in one test process.
"""

import copy
import time

import oslo_messaging as messaging
from oslo_service import periodic_task

from nova_lite import conf as nl_conf
from nova_lite.db import session as db_session

CONF = nl_conf.CONF


class Manager(periodic_task.PeriodicTasks):
    """Base manager: hooks, periodic tasks, access to its cell."""

    target = messaging.Target(version='1.0')

    def __init__(self, host=None):
        super().__init__(CONF)
        self.host = host or CONF.host
        self.service = None
        # Extra RPC endpoints served next to the manager (other namespaces).
        self.additional_endpoints = []
        self._last_run = {}

    @property
    def transport(self):
        """The transport of the hosting service (None: the default one)."""
        return self.service.transport if self.service else None

    def cell_context(self, context):
        """A copy of ``context`` targeted at this service's cell database.

        Without an explicit database URL on the service, the copy uses the
        process default (``[database] connection``).
        """
        url = self.service.db_connection if self.service else None
        if not url:
            return context
        cctxt = copy.copy(context)
        cctxt.db_connection = db_session.get_cell_context_manager(url)
        return cctxt

    def _due(self, name, interval):
        """True (and restart the clock) when ``name`` last ran at least
        ``interval`` seconds ago.

        Periodic tasks declared with a 1 s spacing use it to honour an
        interval read from configuration at run time, not at import.
        """
        now = time.monotonic()
        if now - self._last_run.get(name, 0) < interval:
            return False
        self._last_run[name] = now
        return True

    def run_periodic_now(self, context, name):
        """Run the periodic task ``_periodic_<name>`` now, as if every
        interval had passed (tests on a fake clock; operators' tools)."""
        task = getattr(self, '_periodic_' + name, None)
        if task is None:
            raise ValueError('%s has no periodic task %s'
                             % (type(self).__name__, name))
        self._last_run.clear()
        return task(context)

    def periodic_tasks(self, context, raise_on_error=False):
        """Run the due periodic tasks; return seconds until the next one."""
        return self.run_periodic_tasks(context, raise_on_error=raise_on_error)

    def init_host(self):
        """Prepare local state before the service consumes RPC."""

    def pre_start_hook(self):
        """Start-up recovery, run just before the service consumes RPC
        (it may call other services; nothing is delivered to it yet)."""

    def post_start_hook(self):
        """Run once the service consumes RPC."""

    def drain(self, timeout):
        """At a graceful stop, once no message is in flight: finish the
        work the messages queued, within ``timeout`` seconds (None: no
        limit)."""

    def cleanup_host(self):
        """Release local state after the service stopped consuming."""
