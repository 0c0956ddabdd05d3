"""Lab faults a service applies to itself: heartbeats stopped, host
partitioned from its bus, database slow or failing.

They reach the services as the RPC rules do, over the bus
(:mod:`nova_lite.baserpc` ``chaos_fault``, fanout), and each service acts
only on a fault naming its host, so no firewall or traffic shaping is
needed and ``nova-lite-manage chaos clear`` undoes them the same way:

* ``heartbeats``: the service stops writing its heartbeat (it still
  consumes and works), so the API and the scheduler see it down after
  ``service_down_time``, as a hung heartbeat thread would look.
* ``partition`` for ``seconds``: nothing the service sends reaches the
  bus (a call times out, a cast fails: an RPC rule ``fail`` at send in
  this process only) and what is sent to it waits (a rule ``delay`` at
  dispatch of ``seconds``), as messages wait in a queue while their
  consumer is cut off. Both rules expire with the window, so the host
  comes back by itself; ``chaos clear`` ends it sooner (the control
  methods are never matched by a rule).
* ``database`` with ``delay`` and/or ``error_rate``: every statement of
  the service's process waits ``delay`` seconds and a fraction
  ``error_rate`` fails as a lost connection does
  (:mod:`nova_lite.db.lab_faults`), so its own retries run. Host ``*``
  names every service.

The faults live in the process: a restarted service, and so
``unstack.sh``, has none.
"""

import threading

from oslo_log import log as logging

from nova_lite.db import lab_faults as db_faults
from nova_lite import rpc_rules

LOG = logging.getLogger(__name__)

FAULTS = ('heartbeats', 'partition', 'database')
# The host of a fault every service applies.
EVERY_HOST = '*'

_LOCK = threading.Lock()
_ACTIVE = []


def apply(service, fault):
    """Apply ``fault`` (``{'fault', 'host', ...}``) when it names
    ``service``'s host; what was applied, or None."""
    kind, host = fault.get('fault'), fault.get('host')
    if kind not in FAULTS:
        raise ValueError('fault must be one of %s' % ', '.join(FAULTS))
    if host != service.host and not (kind == 'database' and
                                     host == EVERY_HOST):
        return None
    if kind == 'database':
        applied = dict(db_faults.set_fault(service, fault), fault=kind,
                       host=host)
    elif kind == 'heartbeats':
        service.stop_heartbeats()
        applied = {'fault': kind, 'host': host}
    else:
        seconds = float(fault.get('seconds', 30))
        if seconds <= 0:
            raise ValueError('a partition lasts a positive number of '
                             'seconds')
        rules = [rpc_rules.add('fail', at='send', window=seconds),
                 rpc_rules.add('delay', at='dispatch', window=seconds,
                               seconds=seconds)]
        applied = {'fault': kind, 'host': host, 'seconds': seconds,
                   'rules': rules}
    with _LOCK:
        _ACTIVE.append((service, applied))
    LOG.warning('Lab fault applied to %s on %s: %s', service.binary,
                service.host, applied)
    return applied


def active(service):
    """The faults ``service`` applied and did not clear (a partition
    stays listed until cleared, though its rules expire)."""
    with _LOCK:
        return [dict(f) for s, f in _ACTIVE if s is service]


def clear(service):
    """Undo every fault ``service`` applied (in functional tests several
    services share a process); how many there were."""
    with _LOCK:
        undone = [f for s, f in _ACTIVE if s is service]
        _ACTIVE[:] = [(s, f) for s, f in _ACTIVE if s is not service]
    for fault in undone:
        if fault['fault'] == 'heartbeats':
            service.resume_heartbeats()
        elif fault['fault'] == 'database':
            db_faults.unset_fault(service)
        else:
            for rule_id in fault['rules']:
                rpc_rules.remove(rule_id)
    return len(undone)
