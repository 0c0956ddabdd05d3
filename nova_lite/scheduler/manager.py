"""Server side of the scheduler RPC API (filters and weighers come later)."""

import oslo_messaging as messaging

from nova_lite import manager


class SchedulerManager(manager.Manager):
    """Scheduler endpoint (API version 1.0)."""

    target = messaging.Target(version='1.0')
