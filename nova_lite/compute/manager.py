"""Server side of the compute RPC API (virt driver and builds come later).

A compute has no database: everything persistent goes through its cell
conductor (``self.conductor_api``, on the compute's own bus).
"""

import oslo_messaging as messaging

from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import manager


class ComputeManager(manager.Manager):
    """Compute endpoint (API version 1.0)."""

    target = messaging.Target(version='1.0')

    def __init__(self, host=None):
        super().__init__(host=host)
        self._conductor_api = None

    @property
    def conductor_api(self):
        """Client of this compute's cell conductor."""
        if self._conductor_api is None:
            self._conductor_api = conductor_rpcapi.ConductorAPI(
                transport=self.transport)
        return self._conductor_api
