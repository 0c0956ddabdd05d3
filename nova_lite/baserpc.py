"""The base RPC API every nova_lite service serves (namespace ``baseapi``).

It lets an operator or a test reach any service over its bus without
knowing its manager:

* ``ping(context, arg)`` (call): echoes ``arg`` with the answering service's
  host and binary and the request context as the service received it; the
  cheapest end-to-end check that a service consumes and that contexts
  arrive intact.
* ``report_state(context)`` (cast, or fanout to every service on a topic):
  heartbeat into the services table now instead of at the next interval,
  logging one line under the caller's request id.
* ``chaos_add(context, rule)``, ``chaos_release(context, match,
  discard)``, ``chaos_clear(context, discard)`` (casts, usually fanout)
  and ``chaos_list(context)`` (call): the RPC rules of the service's
  process (:mod:`nova_lite.rpc_rules`), for ``nova-lite-manage chaos`` in
  a running lab. The bus is trusted: whoever can send on it
  can already cast any method to any service.
* ``chaos_fault(context, fault)`` (cast, usually fanout): a lab fault the
  service named by ``fault['host']`` applies to itself
  (:mod:`nova_lite.service_faults`); ``chaos_clear`` undoes them and
  ``chaos_list`` lists them.

Version history:

* 1.0 - Initial version: ping, report_state.
* 1.1 - chaos_add, chaos_list, chaos_release, chaos_clear.
* 1.2 - chaos_fault; chaos_list answers ``faults`` too.
"""

import oslo_messaging as messaging
from oslo_log import log as logging

from nova_lite import rpc
from nova_lite import rpc_rules
from nova_lite import service_faults

LOG = logging.getLogger(__name__)

NAMESPACE = 'baseapi'
VERSION = '1.2'


class BaseAPI:
    """Client of the base API of the services listening on ``topic``."""

    def __init__(self, topic, transport=None):
        target = messaging.Target(topic=topic, namespace=NAMESPACE,
                                  version=VERSION)
        self.client = rpc.get_client(target, transport=transport)

    def ping(self, context, arg, server=None, timeout=None):
        """Call ``ping`` on one service (``server``: its host) and return
        ``{'arg', 'host', 'binary', 'context'}``."""
        cctxt = self.client.prepare(server=server, timeout=timeout)
        return cctxt.call(context, 'ping', arg=arg)

    def report_state(self, context, server=None, fanout=False):
        """Ask one service (``server``), any one, or all (``fanout``) to
        heartbeat now. A cast: returns once the bus accepted it."""
        cctxt = self.client.prepare(server=server, fanout=fanout)
        cctxt.cast(context, 'report_state')

    def chaos_add(self, context, rule, server=None, fanout=True):
        """Add ``rule`` (the keyword arguments of
        :func:`nova_lite.rpc_rules.add`, ``action`` included) in every
        service on the topic (``fanout``) or in one (``server``)."""
        cctxt = self.client.prepare(server=server, fanout=fanout)
        cctxt.cast(context, 'chaos_add', rule=rule)

    def chaos_release(self, context, match, discard=False, server=None,
                      fanout=True):
        """Let go (or discard) the held messages matching ``match`` (the
        fields of :func:`nova_lite.rpc_rules.held`) in every service on
        the topic, or in one."""
        cctxt = self.client.prepare(server=server, fanout=fanout)
        cctxt.cast(context, 'chaos_release', match=match, discard=discard)

    def chaos_clear(self, context, discard=False, server=None, fanout=True):
        """Remove every rule (and release or discard what they hold) in
        every service on the topic, or in one."""
        cctxt = self.client.prepare(server=server, fanout=fanout)
        cctxt.cast(context, 'chaos_clear', discard=discard)

    def chaos_fault(self, context, fault, server=None, fanout=True):
        """Apply the lab fault ``fault`` (``{'fault', 'host', ...}``,
        :mod:`nova_lite.service_faults`) in the service of that host."""
        cctxt = self.client.prepare(server=server, fanout=fanout,
                                    version='1.2')
        cctxt.cast(context, 'chaos_fault', fault=fault)

    def chaos_list(self, context, server, timeout=None):
        """``{'host', 'binary', 'rules', 'held', 'faults'}`` of one
        service (no ``faults`` from a service older than 1.2)."""
        cctxt = self.client.prepare(server=server, timeout=timeout)
        return cctxt.call(context, 'chaos_list')


class BaseRPC:
    """Server side of the base API, bound to a running Service."""

    target = messaging.Target(namespace=NAMESPACE, version=VERSION)

    def __init__(self, service):
        self._service = service

    def ping(self, context, arg):
        return {'arg': arg, 'host': self._service.host,
                'binary': self._service.binary,
                'context': context.to_dict()}

    def report_state(self, context):
        LOG.info('Heartbeat of %s on %s requested over RPC',
                 self._service.binary, self._service.host)
        self._service.report_state()

    def chaos_add(self, context, rule):
        try:
            return rpc_rules.add(**rule)
        except (TypeError, ValueError) as exc:
            LOG.warning('RPC rule refused: %s (%s)', exc, rule)
            return None

    def chaos_release(self, context, match, discard=False):
        return rpc_rules.release(discard=discard, **match)

    def chaos_clear(self, context, discard=False):
        service_faults.clear(self._service)
        return rpc_rules.clear(discard=discard)

    def chaos_fault(self, context, fault):
        try:
            return service_faults.apply(self._service, fault)
        except (TypeError, ValueError) as exc:
            LOG.warning('Lab fault refused: %s (%s)', exc, fault)
            return None

    def chaos_list(self, context):
        return {'host': self._service.host, 'binary': self._service.binary,
                'rules': rpc_rules.rules(), 'held': rpc_rules.held(),
                'faults': service_faults.active(self._service)}
