"""Client side of the compute RPC API (cell bus, topic ``compute``).

Every compute listens on ``Target(topic='compute', server=<host>)``; a
message for an instance goes to its host. API-level callers reach a
compute over the bus of the compute's cell: when the request context is
targeted at a cell (``context.mq_connection``), the client uses that
cell's transport, otherwise the process's default one.
"""

import threading

import oslo_messaging as messaging

from nova_lite import conf as nl_conf
from nova_lite import rpc

CONF = nl_conf.CONF

RPC_TOPIC = 'compute'


class ComputeAPI:
    """Client of the computes.

    Version history:

    * 1.0 - Initial version (base API only; instance actions to come).
    """

    VERSION = '1.0'

    def __init__(self, transport=None):
        self._default_transport = transport
        self._clients = {}
        self._lock = threading.Lock()

    def router(self, context):
        """The RPC client for the cell ``context`` is targeted at."""
        transport = context.mq_connection or self._default_transport
        key = id(transport)
        with self._lock:
            client = self._clients.get(key)
            if client is None:
                target = messaging.Target(topic=RPC_TOPIC,
                                          version=self.VERSION)
                client = rpc.get_client(
                    target, version_cap=CONF.upgrade_levels.compute,
                    transport=transport)
                self._clients[key] = client
            return client

    def prepare(self, context, host, version='1.0', **kwargs):
        """A client context addressed to the compute on ``host``."""
        return self.router(context).prepare(server=host, version=version,
                                            **kwargs)
