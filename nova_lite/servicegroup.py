"""Service liveness: is a service up, judged from its ``services`` row.

Every service heartbeats into its cell's ``services`` table every
``[DEFAULT] report_interval`` seconds; each heartbeat stamps
``last_seen_up``. A service is up when it is not forced down and its last
heartbeat (or, before the first one, its creation) is at most
``[DEFAULT] service_down_time`` seconds old.

:func:`compute_is_up` answers the question the API and the conductors ask
before they hand an instance's work to its compute: a cast to a compute
that does not heartbeat would never be handled, a call would block until
its RPC timeout.
"""

import datetime

from oslo_utils import timeutils

from nova_lite import conf as nl_conf
from nova_lite import exception
from nova_lite import objects

CONF = nl_conf.CONF

COMPUTE_BINARY = 'nova-lite-compute'


def _aware(moment):
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=datetime.UTC)
    return moment


def _field(service, name):
    if isinstance(service, dict):
        return service.get(name)
    if hasattr(service, 'obj_attr_is_set') and not service.obj_attr_is_set(
            name):
        return None
    return getattr(service, name, None)


def last_heartbeat(service):
    """When ``service`` last proved alive (its creation before any beat)."""
    return _aware(_field(service, 'last_seen_up') or
                  _field(service, 'created_at'))


def is_up(service, now=None, down_time=None):
    """True when ``service`` (an object, DB row or dict) is alive.

    :param now: the current time (tests); timezone-naive means UTC.
    :param down_time: seconds; ``[DEFAULT] service_down_time`` by default.
    """
    if _field(service, 'forced_down'):
        return False
    seen = last_heartbeat(service)
    if seen is None:
        return False
    now = _aware(now) or timeutils.utcnow(with_timezone=True)
    if down_time is None:
        down_time = CONF.service_down_time
    return abs((now - seen).total_seconds()) <= down_time


def compute_is_up(context, host):
    """True when the compute service of ``host`` is known and up.

    :param context: a context targeted at the cell database of ``host``
        (the ``services`` row of a compute lives in its cell).
    """
    if not host:
        return False
    try:
        service = objects.Service.heartbeat_of(context, host,
                                               COMPUTE_BINARY)
    except exception.NotFound:
        return False
    return is_up(service)
