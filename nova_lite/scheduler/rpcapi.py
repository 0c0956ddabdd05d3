"""Client side of the scheduler RPC API (API bus, topic ``scheduler``)."""

import oslo_messaging as messaging

from nova_lite import conf as nl_conf
from nova_lite import rpc

CONF = nl_conf.CONF

RPC_TOPIC = 'scheduler'


class SchedulerAPI:
    """Client of the scheduler.

    Version history:

    * 1.0 - Initial version (base API only; select_destinations to come).
    """

    VERSION = '1.0'

    def __init__(self, transport=None):
        target = messaging.Target(topic=RPC_TOPIC, version=self.VERSION)
        self.client = rpc.get_client(
            target, version_cap=CONF.upgrade_levels.scheduler,
            transport=transport)
