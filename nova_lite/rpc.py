"""RPC plumbing: transports, clients and servers on oslo.messaging.

Every nova_lite process has one *default* transport, ``[DEFAULT]
transport_url``: the API bus for API-level services, its cell's bus for a
cell conductor or a compute. API-level code also reaches each cell's bus
through :func:`get_cell_transport` (cached per URL; cell0 has no bus and
its URL starts with ``none:``).

What travels with every message:

* the request context, as a dict, rebuilt on the server as a
  :class:`nova_lite.context.RequestContext`; building it makes it the
  thread's current context, so oslo.log prints the caller's request id on
  every line the server logs while handling the message;
* arguments and results through the versioned-objects serializer, so
  ``NovaLiteObject`` instances cross the bus as versioned primitives.

Exchanges and virtual hosts
---------------------------
Each cell has its own RabbitMQ virtual host. The in-memory transports of
tests (``fake://``, ``kombu+memory://``) ignore the virtual host, so in one
process the super conductor and every cell conductor (all on topic
``conductor``) would answer each other's messages. nova_lite therefore names
the *exchange* after the virtual host: ``nova_lite`` for the default vhost
(``/`` or none), ``nova_lite_<vhost>`` otherwise, on both server and client
targets (:func:`exchange_for`). On ``fake://`` this keeps cells apart (its
exchanges are process-global and keyed by name); on RabbitMQ each vhost has
its own exchanges anyway, so nothing changes there. ``kombu+memory://``
does not honour exchanges reliably: put multi-cell tests on ``fake://``.

Notifications
-------------
:func:`get_notifiers` returns the process's two oslo.messaging Notifiers,
versioned and legacy, on the notification transport
(``[oslo_messaging_notifications] transport_url``, else the default
transport's URL), as Nova's ``rpc.init`` builds them: which of the two
sends is ``[notifications] notification_format``; the other gets the
``noop`` driver. :mod:`nova_lite.notifications` uses them.

Rules
-----
Every cast and call leaves through the client :func:`get_client` returns,
and every server :func:`get_server` builds dispatches through one
dispatcher: the two points where :mod:`nova_lite.rpc_rules` can hold,
delay, drop, duplicate or fail a message. With no rule each costs one
test of an empty tuple.

The executor is oslo.messaging's default: native threads, or green threads
when eventlet has monkey patched the process (``NOVA_LITE_EVENTLET=1``).
"""

import re
import threading

import oslo_messaging as messaging
from oslo_log import log as logging
from oslo_messaging._drivers import amqpdriver
from oslo_messaging import opts as messaging_opts
from oslo_messaging.rpc import dispatcher
from oslo_messaging.rpc import server as rpc_server
from oslo_serialization import jsonutils

from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite.objects import base as objects_base
from nova_lite import rpc_rules

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

DEFAULT_EXCHANGE = 'nova_lite'

_LOCK = threading.Lock()
_TRANSPORTS = {}
_NOTIFIERS = {}

# Exceptions of these modules are re-raised as themselves on the caller's
# side instead of as oslo.messaging's generic RemoteError.
ALLOWED_EXMODS = ['nova_lite.exception']


def register_opts(conf):
    """Register oslo.messaging's [DEFAULT] options (``transport_url``...).

    oslo.messaging registers them only when it builds a transport; entry
    points read them before, to fail early on a bad URL.
    """
    for group, opts in messaging_opts.list_opts():
        if group is None:
            conf.register_opts(opts)


register_opts(CONF)


def _url_or_default(url):
    return url if url else CONF.transport_url


def get_cell_transport(url):
    """The transport for ``url``, created once per URL and process.

    Returns None for URLs starting with ``none`` (cell0 has no bus).
    """
    if url is not None and url.startswith('none'):
        return None
    url = _url_or_default(url)
    with _LOCK:
        transport = _TRANSPORTS.get(url)
        if transport is None:
            transport = _create_transport(url)
            transport.nova_lite_exchange = exchange_for_url(url)
            _TRANSPORTS[url] = transport
        return transport


def _create_transport(url):
    try:
        return messaging.get_rpc_transport(
            CONF, url=url, allowed_remote_exmods=ALLOWED_EXMODS)
    except (messaging.InvalidTransportURL,
            messaging.DriverLoadFailure) as exc:
        raise exception.ConfigInvalid(
            reason='transport URL %s: %s' % (_mask(url), exc))


def get_transport():
    """The default transport of this process (``[DEFAULT] transport_url``)."""
    return get_cell_transport(None)


def cleanup():
    """Close every transport (process exit, end of a test)."""
    with _LOCK:
        transports = list(_TRANSPORTS.values())
        _TRANSPORTS.clear()
        _NOTIFIERS.clear()
    for transport in transports:
        transport.cleanup()


def _mask(url):
    """``url`` without its password, for messages and logs."""
    return re.sub(r'(//[^:/@]*:)[^@]*@', r'\1***@', url or '')


def exchange_for_url(url):
    """Exchange name for a transport URL: ``nova_lite[_<vhost>]``."""
    return _exchange_for_vhost(messaging.TransportURL.parse(
        CONF, _url_or_default(url)).virtual_host)


def _exchange_for_vhost(vhost):
    vhost = (vhost or '').strip('/')
    if not vhost:
        return DEFAULT_EXCHANGE
    return '%s_%s' % (DEFAULT_EXCHANGE,
                      re.sub(r'[^A-Za-z0-9_.-]', '_', vhost))


def exchange_for(transport):
    """Exchange name for ``transport`` (see the module docstring)."""
    exchange = getattr(transport, 'nova_lite_exchange', None)
    if exchange is None:
        # NOTE(nova_lite): a transport made outside this module (a test's
        # own); its driver keeps the parsed URL.
        url = getattr(getattr(transport, '_driver', None), '_url', None)
        exchange = _exchange_for_vhost(getattr(url, 'virtual_host', None))
    return exchange


def _with_exchange(target, transport):
    if target.exchange:
        return target
    return messaging.Target(
        exchange=exchange_for(transport), topic=target.topic,
        namespace=target.namespace, version=target.version,
        server=target.server, fanout=target.fanout)


class RequestContextSerializer(messaging.Serializer):
    """Carry the request context as a dict; delegate entities to ``base``.

    The server side rebuilds a :class:`~nova_lite.context.RequestContext`,
    which becomes the handling thread's current context.
    """

    def __init__(self, base=None):
        self._base = base

    def serialize_entity(self, context, entity):
        if self._base is None:
            return jsonutils.to_primitive(entity, convert_instances=True)
        return self._base.serialize_entity(context, entity)

    def deserialize_entity(self, context, entity):
        if self._base is None:
            return entity
        return self._base.deserialize_entity(context, entity)

    def serialize_context(self, context):
        return context.to_dict()

    def deserialize_context(self, context):
        return nl_context.RequestContext.from_dict(context)


def _serializer():
    return RequestContextSerializer(objects_base.NovaLiteObjectSerializer())


def bus_of(transport):
    """The name rules know a bus by: its virtual host ('' by default)."""
    exchange = exchange_for(transport)
    return exchange[len(DEFAULT_EXCHANGE) + 1:]


class RuledClient:
    """An oslo.messaging client (or prepared client context) whose casts
    and calls pass the RPC rules (:mod:`nova_lite.rpc_rules`) on the way
    out. The same methods as oslo.messaging's: ``prepare``, ``cast``,
    ``call``, ``can_send_version``, ``target``.
    """

    def __init__(self, client, bus):
        self._client = client
        self._bus = bus

    @property
    def target(self):
        return self._client.target

    def prepare(self, **kwargs):
        return RuledClient(self._client.prepare(**kwargs), self._bus)

    def can_send_version(self, version=None):
        return self._client.can_send_version(version)

    def _message(self, kind, method, kwargs):
        target = self._client.target
        if kind == 'cast' and target.fanout:
            kind = 'fanout'
        return rpc_rules.Message('send', self._bus, target.topic,
                                 target.server, method, kind, kwargs)

    def cast(self, ctxt, method, **kwargs):
        if not rpc_rules.RULES:
            return self._client.cast(ctxt, method, **kwargs)
        return rpc_rules.on_send(
            self._message('cast', method, kwargs),
            lambda: self._client.cast(ctxt, method, **kwargs))

    def call(self, ctxt, method, **kwargs):
        if not rpc_rules.RULES:
            return self._client.call(ctxt, method, **kwargs)
        return rpc_rules.on_send(
            self._message('call', method, kwargs),
            lambda: self._client.call(ctxt, method, **kwargs))


def get_client(target, transport=None):
    """An RPC client for ``target`` on ``transport`` (default: this process's).

    The exchange is derived from the transport URL (see module docstring);
    its casts and calls pass the RPC rules (:class:`RuledClient`).
    """
    transport = transport or get_transport()
    client = messaging.get_rpc_client(
        transport, _with_exchange(target, transport),
        serializer=_serializer())
    return RuledClient(client, bus_of(transport))


def open_reply_queue(transport):
    """Declare ``transport``'s reply queue now rather than at its first call.

    oslo.messaging creates a process's reply queue (``reply_<uuid>``) and
    its consumer lazily, at the first RPC call on a transport. With
    ``rabbit_transient_quorum_queue`` that is a quorum queue, and RabbitMQ
    (3.10 seen) does not always recover a quorum queue declared a moment
    before the broker dies (``kill -9``, power loss): the queue record
    comes back but its Raft member does not ("leader not known"), so every
    reply published to it waits for a confirm forever (holding the
    replying server's threads and pooled connections) and every call of
    the process times out until it restarts. Declaring the queue when the
    service starts leaves that window only at process start; the fault
    suite's ``rabbit_kill9`` hit it when the super conductor's first
    ``select_destinations`` (its first call) ran just before the kill.

    A no-op on drivers without reply queues (``fake://``). Returns the
    queue's name or None.
    """
    driver = getattr(transport, '_driver', None)
    # NOTE(nova_lite): oslo.messaging has no public way to open the reply
    # queue; the AMQP driver's _get_reply_q is what its first call runs.
    get_reply_q = getattr(driver, '_get_reply_q', None)
    if get_reply_q is None:
        return None
    return get_reply_q()


def get_notification_transport():
    """This process's notification transport (created once)."""
    with _LOCK:
        transport = _TRANSPORTS.get(_NOTIFICATION_KEY)
        if transport is None:
            try:
                transport = messaging.get_notification_transport(CONF)
            except (messaging.InvalidTransportURL,
                    messaging.DriverLoadFailure) as exc:
                raise exception.ConfigInvalid(
                    reason='notification transport: %s' % exc)
            _TRANSPORTS[_NOTIFICATION_KEY] = transport
        return transport


# The key of the notification transport among the RPC ones (not a URL).
_NOTIFICATION_KEY = ('notifications',)


def get_notifiers():
    """(versioned, legacy): the Notifiers of this process.

    As in Nova: ``versioned`` sends to ``[notifications]
    versioned_notifications_topics``, ``legacy`` to
    ``[oslo_messaging_notifications] topics``; the format not chosen by
    ``notification_format`` (both for ``none``) gets the ``noop`` driver.
    Either is enabled (``is_enabled()``) only when a driver is configured.
    """
    notifiers = _NOTIFIERS.get('pair')
    if notifiers is not None:
        return notifiers
    transport = get_notification_transport()
    serializer = RequestContextSerializer(None)
    fmt = CONF.notifications.notification_format
    topics = CONF.notifications.versioned_notifications_topics
    if fmt in ('versioned', 'both'):
        versioned = messaging.Notifier(transport, serializer=serializer,
                                       topics=topics)
    else:
        versioned = messaging.Notifier(transport, serializer=serializer,
                                       driver='noop')
    if fmt in ('unversioned', 'both'):
        legacy = messaging.Notifier(transport, serializer=serializer)
    else:
        legacy = messaging.Notifier(transport, serializer=serializer,
                                    driver='noop')
    with _LOCK:
        if 'pair' not in _NOTIFIERS:
            LOG.info('Notifications: format %s, driver %s, versioned '
                     'topics %s, on %s', fmt,
                     ','.join(CONF.oslo_messaging_notifications.driver)
                     or 'none', ','.join(topics), _mask(
                         CONF.oslo_messaging_notifications.transport_url
                         or CONF.transport_url))
        return _NOTIFIERS.setdefault('pair', (versioned, legacy))


def reset_notifiers():
    """Forget the Notifiers built (the next notification builds them from
    the configuration as it is then); for tests that change it."""
    with _LOCK:
        _NOTIFIERS.clear()


def stop_consuming(server):
    """Make ``server`` take no further message, for good.

    oslo.messaging's RPC listener acknowledges a message when it receives
    it, before dispatch, and ``server.stop()`` only ends its polling: the
    consumer stays registered at the broker and the connection open until
    ``server.wait()`` has waited for every handler in flight. Meanwhile
    the connection's heartbeat thread keeps reading from the socket, and
    every message the broker delivers then (all that are queued: the
    prefetch is unlimited) is acknowledged and put on a list nobody reads
    any more: lost. So the listener's connection is closed right after
    the polling stops; the broker puts back what it had delivered and
    nobody acknowledged, for the next consumer. Closing it again in
    ``server.wait()`` does nothing.
    """
    listener = getattr(server, 'listener', None)
    if isinstance(listener, amqpdriver.RpcAMQPListener):
        _refuse_deliveries(listener)
    server.stop()
    if listener is not None:
        listener.cleanup()


def _refuse_deliveries(listener):
    """From now on, put back what the broker delivers to ``listener``.

    Its consumer stays registered until the connection closes, and the
    listener acknowledges a delivery in its consumer callback, before
    anyone polls it: a delivery that arrived between the end of the
    polling and the close would be acknowledged and never handled. Made a
    :class:`_RefusingListener`, the listener requeues such a delivery
    instead (in the connection's own thread, where it acknowledged), and
    the broker hands it to the next consumer.
    """
    refusing = _REFUSING.get(type(listener))
    if refusing is None:
        refusing = _REFUSING[type(listener)] = type(
            'Refusing' + type(listener).__name__,
            (_RefusingListener, type(listener)), {})

    def switch():
        listener.__class__ = refusing
    _under_connection_lock(listener, switch)


# How long a stop waits for the listener's connection to be free before
# refusing deliveries without it (a connection that reconnects to a
# broker that is down holds it for as long as that takes).
REFUSE_LOCK_SECONDS = 5.0


def _under_connection_lock(listener, func):
    """Run ``func`` holding the lock of the listener's kombu connection.

    The connection's heartbeat thread reads from the socket holding that
    lock, and a delivery it reads runs the listener's callback then and
    there: the callback acknowledges the message, then queues it for the
    polling thread. A callback under way while the listener became a
    refusing one could queue its message after the polling thread had
    taken its last: acknowledged, never handled. With the lock held no
    callback is under way; those that ran before have queued their
    message, which the polling, still running, takes. When the lock stays
    taken longer than :data:`REFUSE_LOCK_SECONDS`, ``func`` runs anyway,
    as it did before (and once more when the lock comes free).
    """
    lock = getattr(getattr(getattr(listener, 'conn', None), 'connection',
                           None), '_connection_lock', None)
    if lock is None:
        func()
        return
    done = threading.Event()

    def locked():
        lock.acquire()
        try:
            func()
        finally:
            lock.release()
            done.set()
    threading.Thread(target=locked, name='refuse-deliveries',
                     daemon=True).start()
    if not done.wait(REFUSE_LOCK_SECONDS):
        LOG.warning('The RPC connection stayed busy for %.0f s: refusing '
                    'deliveries without its lock', REFUSE_LOCK_SECONDS)
        func()


class _RefusingListener:
    """Mixed into an oslo.messaging RPC listener that is stopping."""

    def __call__(self, message):
        try:
            message.requeue()
        except Exception as exc:
            # Unacknowledged, it goes back when the connection closes.
            LOG.debug('Could not requeue a delivery while stopping: %s',
                      exc)


_REFUSING = {}


class RuledDispatcher(dispatcher.RPCDispatcher):
    """oslo.messaging's dispatcher with the RPC rules in front: the one
    place every message a server took is handed to its endpoints."""

    def __init__(self, endpoints, serializer, access_policy, bus, target):
        super().__init__(endpoints, serializer, access_policy)
        self._bus = bus
        self._target = target

    def dispatch(self, incoming):
        if not rpc_rules.RULES:
            return super().dispatch(incoming)
        message = incoming.message
        # NOTE(nova_lite): oslo.messaging does not say whether an incoming
        # message waits for a reply; its drivers keep the reply queue of a
        # call (AMQP: reply_q, fake: _reply_q), None for a cast.
        reply_q = getattr(incoming, 'reply_q', None) or getattr(
            incoming, '_reply_q', None)
        kind = 'cast' if reply_q is None else 'call'
        return rpc_rules.on_dispatch(
            rpc_rules.Message('dispatch', self._bus, self._target.topic,
                              self._target.server, message.get('method'),
                              kind, message.get('args')),
            lambda: super(RuledDispatcher, self).dispatch(incoming))


def get_server(target, endpoints, transport=None):
    """An RPC server for ``target`` dispatching to ``endpoints`` (through
    :class:`RuledDispatcher`)."""
    transport = transport or get_transport()
    target = _with_exchange(target, transport)
    rpc_dispatcher = RuledDispatcher(
        endpoints, _serializer(), dispatcher.DefaultRPCAccessPolicy,
        bus_of(transport), target)
    return rpc_server.RPCServer(transport, target, rpc_dispatcher)
