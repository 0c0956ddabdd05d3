"""A real oslo.messaging notification listener, for people and tests.

``nova-lite-manage notifications listen`` prints what it receives; the
functional tests' :class:`~nova_lite.testing.fixtures.NotificationFixture`
and the integration tests record it. Both listen as any consumer of Nova's
notifications does: on the notification transport, on the topics
(``versioned_notifications`` by default), every priority.

Without a ``pool`` the listener consumes the topics' own queues (RabbitMQ
keeps them from the first notification sent, so what was queued before
the listener started comes first); with a ``pool`` name it gets its own
copy of every notification sent from then on, beside other consumers.
"""

import threading

import oslo_messaging as messaging
from oslo_log import log as logging

LOG = logging.getLogger(__name__)

PRIORITIES = ('audit', 'debug', 'info', 'warn', 'error', 'critical',
              'sample')


class Notification(dict):
    """One notification as received: ``priority``, ``publisher_id``,
    ``event_type``, ``payload``, ``context`` (the sender's request context
    as a dict, its ``request_id`` included) and ``metadata``."""


class _Endpoint:
    """Receives every priority and hands each notification on."""

    def __init__(self, callback):
        self._callback = callback
        for priority in PRIORITIES:
            setattr(self, priority, self._receiver(priority))

    def _receiver(self, priority):
        def receive(ctxt, publisher_id, event_type, payload, metadata):
            self._callback(Notification(
                priority=priority.upper(), publisher_id=publisher_id,
                event_type=event_type, payload=payload, context=ctxt,
                metadata=metadata))
            return messaging.NotificationResult.HANDLED
        return receive


def start(transport, topics, callback, pool=None):
    """Start listening on ``topics`` of ``transport``; ``callback(n)`` is
    called with each :class:`Notification`. Returns the listener (call
    ``stop()`` then ``wait()`` on it)."""
    targets = [messaging.Target(topic=topic) for topic in topics]
    # NOTE(nova_lite): oslo.messaging's default executor, as the RPC
    # servers (green threads when eventlet has patched the process).
    listener = messaging.get_notification_listener(
        transport, targets, [_Endpoint(callback)], pool=pool)
    listener.start()
    LOG.info('Listening for notifications on %s', ', '.join(topics))
    return listener


class Recorder:
    """Keeps what a listener receives, in order, and waits for it."""

    def __init__(self):
        self._received = []
        self._changed = threading.Condition()

    def __call__(self, notification):
        with self._changed:
            self._received.append(notification)
            self._changed.notify_all()

    @property
    def received(self):
        with self._changed:
            return list(self._received)

    def clear(self):
        with self._changed:
            self._received = []

    def matching(self, predicate=None):
        """What was received and matches ``predicate`` (all by default)."""
        return [n for n in self.received
                if predicate is None or predicate(n)]

    def wait_for(self, event_type, predicate=None, timeout=30.0,
                 count=1):
        """The notifications received so far once ``count`` of
        ``event_type`` (matching ``predicate``) have arrived; raises
        TimeoutError with what did arrive otherwise."""
        def arrived():
            return [n for n in self._received
                    if n['event_type'] == event_type and (
                        predicate is None or predicate(n))]
        with self._changed:
            if not self._changed.wait_for(
                    lambda: len(arrived()) >= count, timeout=timeout):
                raise TimeoutError(
                    '%d x %s not received in %.0f s; received: %s'
                    % (count, event_type, timeout,
                       [n['event_type'] for n in self._received]))
            return list(self._received)
