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

Version history:

* 1.0 - Initial version: ping, report_state.
"""

import oslo_messaging as messaging
from oslo_log import log as logging

from nova_lite import rpc

LOG = logging.getLogger(__name__)

NAMESPACE = 'baseapi'
VERSION = '1.0'


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
