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
from nova_lite.conductor.tasks import live_migrate
from nova_lite.conductor.tasks import migrate
from nova_lite.conductor.tasks import rebuild
from nova_lite.conductor.tasks import reschedule
from nova_lite.conductor.tasks import unshelve
from nova_lite.scheduler import rpcapi as scheduler_rpcapi

LOG = logging.getLogger(__name__)


class ComputeTaskManager:
    """The ``compute_task`` endpoint (API version 1.0).

    ``manager`` is the hosting conductor manager: it tells this endpoint
    its bus (``manager.transport``) and its cell database
    (``manager.cell_context``).
    """

    target = messaging.Target(namespace='compute_task', version='1.0')

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

    # -- move operations -----------------------------------------------------

    # ---- cold migrate / resize (nova_lite.conductor.tasks.migrate) ----

    def migrate_server(self, context, instance, flavor, request_spec,
                       host_list=None, migration=None, clean_shutdown=True,
                       exc_reason=None):
        """Cold migrate or resize: the super conductor schedules (no
        ``host_list``); a cell conductor tries the alternates a failed
        destination handed back (see :mod:`.tasks.migrate`)."""
        return migrate.migrate_server(
            context, self.manager, self.placement, instance, flavor,
            request_spec, host_list=host_list, migration=migration,
            clean_shutdown=clean_shutdown, exc_reason=exc_reason)

    # ---- live migration (nova_lite.conductor.tasks.live_migrate) ----

    def live_migrate_instance(self, context, instance, host=None,
                              block_migration=None, force=False):
        """Super conductor: pick and check a destination, then hand the
        live migration to the source compute."""
        live_migrate.LiveMigrationTask(
            context, instance, host, block_migration, force,
            scheduler_rpcapi.SchedulerAPI(transport=self.manager.transport),
            self.placement).execute()

    # ---- rebuild / evacuate (nova_lite.conductor.tasks.rebuild) ----

    def rebuild_instance(self, context, instance, image, recreate=False,
                         host=None, force=False, migration=None,
                         admin_password=None, preserve_ephemeral=False,
                         image_changed=False, orig_image_ref=None,
                         target_state=None):
        """Super conductor: rebuild in place (re-checking a new image on
        the current host) or evacuate (schedule a destination whose claim
        joins the source allocation), then cast to the compute."""
        rebuild.RebuildTask(
            context, instance, image, recreate, host, force, migration,
            admin_password, preserve_ephemeral, image_changed,
            orig_image_ref, target_state,
            scheduler_rpcapi.SchedulerAPI(transport=self.manager.transport),
            self.placement).execute()

    # ---- unshelve (nova_lite.conductor.tasks.unshelve) ----

    def unshelve_instance(self, context, instance, request_spec=None):
        """Super conductor: schedule an offloaded instance, cast to it."""
        unshelve.unshelve_instance(context, instance, request_spec,
                                   self.manager.transport, self.placement)
