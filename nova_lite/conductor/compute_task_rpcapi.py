"""Client side of the conductor's ``compute_task`` RPC API (builds).

The conductor service serves a second endpoint in the ``compute_task``
namespace (:class:`nova_lite.conductor.compute_task.ComputeTaskManager`).
Like the base conductor client, this one uses the process's default
transport unless given one, which decides *which* conductor answers:

* from nova-lite-api: the super conductor on the API bus
  (``schedule_and_build_instances``);
* from a compute: its cell conductor on the cell bus (``build_instances``,
  the reschedule onto the next alternate host).
"""

import oslo_messaging as messaging

from nova_lite import conf as nl_conf
from nova_lite import rpc

CONF = nl_conf.CONF

RPC_TOPIC = 'conductor'
RPC_NAMESPACE = 'compute_task'


class ComputeTaskAPI:
    """Client of the conductors' build tasks.

    Version history:

    * 1.0 - Initial version: schedule_and_build_instances (super
      conductor), build_instances (cell conductor, reschedules).
    * 1.1 - Move operations: migrate_server (super conductor; a cell
      conductor for resize reschedules), live_migrate_instance,
      rebuild_instance (rebuild, evacuate), unshelve_instance.
    """

    VERSION = '1.1'

    def __init__(self, transport=None):
        target = messaging.Target(topic=RPC_TOPIC, namespace=RPC_NAMESPACE,
                                  version=self.VERSION)
        self.client = rpc.get_client(
            target, version_cap=CONF.upgrade_levels.conductor,
            transport=transport)

    def schedule_and_build_instances(self, context, build_requests,
                                     request_specs, image=None,
                                     requested_networks=None):
        """Cast: schedule the build requests and build them in cells.

        ``build_requests`` and ``request_specs`` are parallel lists of
        BuildRequest and RequestSpec objects; ``image`` is the image
        catalog entry (a dict) the servers boot from.
        """
        cctxt = self.client.prepare(version='1.0')
        cctxt.cast(context, 'schedule_and_build_instances',
                   build_requests=build_requests,
                   request_specs=request_specs, image=image,
                   requested_networks=requested_networks)

    def build_instances(self, context, instances, request_spec, host_lists,
                        image=None, exc_reason=None):
        """Cast: try the next alternate host for each failed instance.

        ``host_lists`` holds, per instance, the Selections not tried yet;
        ``exc_reason`` is why the last attempt failed (kept in the fault
        when no alternate is left). The cell conductor never asks the
        scheduler again.
        """
        cctxt = self.client.prepare(version='1.0')
        cctxt.cast(context, 'build_instances', instances=instances,
                   request_spec=request_spec, host_lists=host_lists,
                   image=image, exc_reason=exc_reason)

    # -- 1.1: move operations ------------------------------------------------

    # ---- cold migrate / resize (nova_lite.conductor.tasks.migrate) ----

    # ---- live migration (nova_lite.conductor.tasks.live_migrate) ----

    # ---- rebuild / evacuate (nova_lite.conductor.tasks.rebuild) ----

    # ---- unshelve (nova_lite.conductor.tasks.unshelve) ----
