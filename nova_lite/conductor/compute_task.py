"""Server side of the conductor's ``compute_task`` RPC API (builds).

Served by every conductor next to :class:`ConductorManager` (an extra
endpoint in the ``compute_task`` namespace). Which methods make sense
depends on where the conductor runs:

* the super conductor (API bus, API database) handles
  ``schedule_and_build_instances`` (:mod:`.tasks.build`);
* a cell conductor (cell bus, cell database) handles ``build_instances``,
  the reschedule of a failed build onto an alternate host
  (:mod:`.tasks.reschedule`), and never reaches above its cell.

Moves follow the same split: the super conductor schedules them
(``migrate_server``, ``live_migrate_instance``, ``rebuild_instance`` for
evacuate and rebuild, ``unshelve_instance``) and reaches the instance's
cell; a cell conductor handles a resize that failed on its destination by
trying the alternates it was handed (``migrate_server`` with a host list).
"""

import oslo_messaging as messaging
from oslo_log import log as logging

from nova_lite.clients import placement as placement_client
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor.tasks import build
from nova_lite.conductor.tasks import reschedule

LOG = logging.getLogger(__name__)


class ComputeTaskManager:
    """The ``compute_task`` endpoint (API version 1.1).

    ``manager`` is the hosting conductor manager: it tells this endpoint
    its bus (``manager.transport``) and its cell database
    (``manager.cell_context``).
    """

    target = messaging.Target(namespace='compute_task', version='1.1')

    def __init__(self, manager):
        self.manager = manager
        self._placement = None

    @property
    def placement(self):
        """The placement client (built on first use)."""
        if self._placement is None:
            self._placement = placement_client.PlacementClient()
        return self._placement

    def schedule_and_build_instances(self, context, build_requests,
                                     request_specs, image=None,
                                     requested_networks=None):
        """Super conductor: schedule, create in the cells, cast builds."""
        LOG.info('Scheduling %d instance(s): %s', len(build_requests),
                 ', '.join(br.instance_uuid for br in build_requests))
        build.schedule_and_build(context, build_requests, request_specs,
                                 image, self.manager.transport,
                                 self.placement)

    def build_instances(self, context, instances, request_spec, host_lists,
                        image=None, exc_reason=None):
        """Cell conductor: reschedule failed builds onto alternates."""
        cctxt = self.manager.cell_context(context)
        reschedule.RescheduleTask(
            cctxt, instances, request_spec, host_lists, image, exc_reason,
            compute_rpcapi.ComputeAPI(transport=self.manager.transport),
            self.placement).execute()

    # -- 1.1: move operations ------------------------------------------------

    # ---- cold migrate / resize (nova_lite.conductor.tasks.migrate) ----

    # ---- live migration (nova_lite.conductor.tasks.live_migrate) ----

    # ---- rebuild / evacuate (nova_lite.conductor.tasks.rebuild) ----

    # ---- unshelve (nova_lite.conductor.tasks.unshelve) ----
