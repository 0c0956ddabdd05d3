"""Client side of the conductor RPC API.

The client always uses the process's default transport unless given one:
from API-level services it reaches the super conductor (API bus), from a
compute it reaches that compute's cell conductor (cell bus).
"""

import oslo_messaging as messaging

from nova_lite import conf as nl_conf
from nova_lite import rpc

CONF = nl_conf.CONF

RPC_TOPIC = 'conductor'


class ConductorAPI:
    """Client of the conductor.

    Version history:

    * 1.0 - Initial version: service_get_or_create, service_update (what a
      compute, which has no database, needs for its service record).
    """

    VERSION = '1.0'

    def __init__(self, transport=None):
        target = messaging.Target(topic=RPC_TOPIC, version=self.VERSION)
        self.client = rpc.get_client(
            target, version_cap=CONF.upgrade_levels.conductor,
            transport=transport)

    def service_get_or_create(self, context, host, binary, topic,
                              timeout=None):
        """Call: the (host, binary) Service record of the conductor's cell,
        created if missing."""
        cctxt = self.client.prepare(version='1.0', timeout=timeout)
        return cctxt.call(context, 'service_get_or_create', host=host,
                          binary=binary, topic=topic)

    def service_update(self, context, service_id, values, timeout=None):
        """Call: update a Service record (raising ``report_count`` is a
        heartbeat) and return it."""
        cctxt = self.client.prepare(version='1.0', timeout=timeout)
        return cctxt.call(context, 'service_update', service_id=service_id,
                          values=values)
