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

from nova_lite import rpc

RPC_TOPIC = 'conductor'
RPC_NAMESPACE = 'compute_task'


class ComputeTaskAPI:
    """Client of the conductors' build tasks.

    Version history:

    * 1.0 - Initial version: schedule_and_build_instances (super
      conductor), build_instances (cell conductor, reschedules); the move
      operations migrate_server (super conductor; a cell conductor for
      resize reschedules), live_migrate_instance, rebuild_instance
      (rebuild, evacuate), unshelve_instance.
    """

    VERSION = '1.0'

    def __init__(self, transport=None):
        target = messaging.Target(topic=RPC_TOPIC, namespace=RPC_NAMESPACE,
                                  version=self.VERSION)
        self.client = rpc.get_client(target, transport=transport)

    def schedule_and_build_instances(self, context, build_requests,
                                     request_specs, image=None,
                                     requested_networks=None, retry=None):
        """Cast: schedule the build requests and build them in cells.

        ``build_requests`` and ``request_specs`` are parallel lists of
        BuildRequest and RequestSpec objects; ``image`` is the image
        catalog entry (a dict) the servers boot from. ``retry``: how many
        times to retry reaching the bus (None: forever); past them the
        cast raises ``MessageDeliveryFailure``.
        """
        cctxt = self.client.prepare(retry=retry)
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
        cctxt = self.client.prepare()
        cctxt.cast(context, 'build_instances', instances=instances,
                   request_spec=request_spec, host_lists=host_lists,
                   image=image, exc_reason=exc_reason)

    # -- move operations -----------------------------------------------------

    # ---- cold migrate / resize (nova_lite.conductor.tasks.migrate) ----

    def migrate_server(self, context, instance, flavor, request_spec,
                       host_list=None, migration=None, clean_shutdown=True,
                       exc_reason=None, do_cast=True):
        """Cold migrate or resize ``instance`` to ``flavor``.

        From the API (``host_list`` None, cast): the super conductor
        creates the migration, schedules with alternates in the instance's
        cell and starts the move. From a compute whose ``prep_resize``
        failed (a call, ``do_cast=False``): its cell conductor claims the
        next of ``host_list`` for the existing ``migration``, with no
        scheduler call; it answers once the retry is handed on or the
        move is failed. ``exc_reason`` is why the last destination failed
        (kept in the fault when no alternate is left).
        """
        cctxt = self.client.prepare()
        kwargs = dict(instance=instance, flavor=flavor,
                      request_spec=request_spec, host_list=host_list,
                      migration=migration, clean_shutdown=clean_shutdown,
                      exc_reason=exc_reason)
        if do_cast:
            cctxt.cast(context, 'migrate_server', **kwargs)
        else:
            cctxt.call(context, 'migrate_server', **kwargs)

    # ---- live migration (nova_lite.conductor.tasks.live_migrate) ----

    def live_migrate_instance(self, context, instance, host=None,
                              block_migration=None, force=False):
        """Cast the super conductor: live-migrate ``instance`` to ``host``
        (None: the scheduler picks; ``force``: no scheduler check)."""
        cctxt = self.client.prepare()
        cctxt.cast(context, 'live_migrate_instance', instance=instance,
                   host=host, block_migration=block_migration, force=force)

    # ---- rebuild / evacuate (nova_lite.conductor.tasks.rebuild) ----

    def rebuild_instance(self, context, instance, image, recreate=False,
                         host=None, force=False, migration=None,
                         admin_password=None, preserve_ephemeral=False,
                         image_changed=False, orig_image_ref=None,
                         target_state=None):
        """Cast the super conductor: rebuild ``instance`` from ``image``
        in place, or evacuate it (``recreate``) to ``host`` (None: the
        scheduler picks) under the evacuation ``migration``."""
        cctxt = self.client.prepare()
        cctxt.cast(context, 'rebuild_instance', instance=instance,
                   image=image, recreate=recreate, host=host, force=force,
                   migration=migration, admin_password=admin_password,
                   preserve_ephemeral=preserve_ephemeral,
                   image_changed=image_changed,
                   orig_image_ref=orig_image_ref, target_state=target_state)

    # ---- unshelve (nova_lite.conductor.tasks.unshelve) ----

    def unshelve_instance(self, context, instance, request_spec=None):
        """Cast (super conductor): schedule a shelved-offloaded instance
        in its cell and cast its unshelve to the chosen compute.

        ``request_spec`` carries what this request asks beyond the stored
        spec (availability zone, 2.91 host); None: the stored spec.
        """
        cctxt = self.client.prepare()
        cctxt.cast(context, 'unshelve_instance', instance=instance,
                   request_spec=request_spec)
