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

    * 1.0 - Initial version: build_and_run_instance, terminate_instance,
      stop/start/reboot, pause/unpause, suspend/resume, rescue/unrescue,
      attach_interface/detach_interface, set_host_enabled;
      resize/migrate (prep_resize, resize_instance, finish_resize,
      confirm_resize, revert_resize, finish_revert_resize), live migration,
      rebuild/evacuate, shelve (into the snapshot's ``image_id``),
      shelve_offload, unshelve; snapshot_instance (createImage),
      backup_instance (createBackup); get_diagnostics,
      get_instance_diagnostics, external_instance_event,
      soft_delete_instance, restore_instance.
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
                client = rpc.get_client(target, transport=transport)
                self._clients[key] = client
            return client

    def prepare(self, context, host, **kwargs):
        """A client context addressed to the compute on ``host``."""
        return self.router(context).prepare(server=host, **kwargs)

    # -- build, delete, power ------------------------------------------------

    def build_and_run_instance(self, context, instance, host, node,
                               request_spec=None, host_list=None,
                               image=None):
        """Cast: build ``instance`` on ``node`` of ``host``.

        The allocation is already claimed in placement; ``host_list`` holds
        the alternate Selections left for a reschedule. The compute
        answers nothing: the outcome is the instance's state.
        """
        self.prepare(context, host).cast(
            context, 'build_and_run_instance', instance=instance, node=node,
            request_spec=request_spec, host_list=host_list or [],
            image=image)

    def _instance_cast(self, context, method, instance, **kwargs):
        self.prepare(context, instance.host).cast(
            context, method, instance=instance, **kwargs)

    def terminate_instance(self, context, instance):
        """Cast: delete the guest, its allocation and its row."""
        self._instance_cast(context, 'terminate_instance', instance)

    def stop_instance(self, context, instance, clean_shutdown=True):
        """Cast: power off (the API set task_state powering-off)."""
        self._instance_cast(context, 'stop_instance', instance,
                            clean_shutdown=clean_shutdown)

    def start_instance(self, context, instance):
        """Cast: power on (the API set task_state powering-on)."""
        self._instance_cast(context, 'start_instance', instance)

    def reboot_instance(self, context, instance, reboot_type='SOFT'):
        """Cast: reboot, ``SOFT`` or ``HARD``."""
        self._instance_cast(context, 'reboot_instance', instance,
                            reboot_type=reboot_type)

    def pause_instance(self, context, instance):
        """Cast: pause."""
        self._instance_cast(context, 'pause_instance', instance)

    def unpause_instance(self, context, instance):
        """Cast: unpause."""
        self._instance_cast(context, 'unpause_instance', instance)

    def suspend_instance(self, context, instance):
        """Cast: suspend."""
        self._instance_cast(context, 'suspend_instance', instance)

    def resume_instance(self, context, instance):
        """Cast: resume."""
        self._instance_cast(context, 'resume_instance', instance)

    def rescue_instance(self, context, instance, rescue_password,
                        rescue_image_ref=None, clean_shutdown=True):
        """Cast: power off and boot the rescue image (the API set task
        state rescuing)."""
        self._instance_cast(context, 'rescue_instance', instance,
                            rescue_password=rescue_password,
                            rescue_image_ref=rescue_image_ref,
                            clean_shutdown=clean_shutdown)

    def unrescue_instance(self, context, instance):
        """Cast: back to the guest's own disk (task state unrescuing)."""
        self._instance_cast(context, 'unrescue_instance', instance)

    def attach_interface(self, context, instance, port_id):
        """Call: plug the port (bound to the instance already) into the
        guest; ``InterfaceAttachFailed`` when the driver cannot."""
        return self.prepare(context, instance.host).call(
            context, 'attach_interface', instance=instance, port_id=port_id)

    def detach_interface(self, context, instance, port_id):
        """Call: unplug the port from the guest (its release in the
        network service follows, by the caller)."""
        return self.prepare(context, instance.host).call(
            context, 'detach_interface', instance=instance, port_id=port_id)

    def set_host_enabled(self, context, host, enabled):
        """Call: add or remove COMPUTE_STATUS_DISABLED on the host's nodes
        now; returns 'enabled' or 'disabled'."""
        return self.prepare(context, host).call(
            context, 'set_host_enabled', enabled=enabled)

    # -- move operations -----------------------------------------------------

    def _cast(self, context, host, method, **kwargs):
        self.prepare(context, host).cast(context, method, **kwargs)

    def _call(self, context, host, method, timeout=None, **kwargs):
        return self.prepare(context, host, timeout=timeout).call(
            context, method, **kwargs)

    # ---- resize / cold migrate (nova_lite.compute.resize) ----

    def prep_resize(self, context, instance, flavor, migration, host, node,
                    request_spec=None, host_list=None, clean_shutdown=True):
        """Cast to the destination ``host``: check it can take the
        instance on ``node`` (its claim is in placement already), then
        start the move; ``host_list`` holds the alternates left for a
        reschedule."""
        self._cast(context, host, 'prep_resize', instance=instance,
                   flavor=flavor, migration=migration, node=node,
                   request_spec=request_spec,
                   host_list=list(host_list or []),
                   clean_shutdown=clean_shutdown)

    def resize_instance(self, context, instance, flavor, migration,
                        clean_shutdown=True):
        """Cast to the source: stop the guest, ship it, then hand over to
        the destination (``finish_resize``)."""
        self._cast(context, migration.source_compute, 'resize_instance',
                   instance=instance, flavor=flavor, migration=migration,
                   clean_shutdown=clean_shutdown)

    def finish_resize(self, context, instance, flavor, migration,
                      disk_info=None):
        """Cast to the destination: create the guest there (the server
        then waits in VERIFY_RESIZE)."""
        self._cast(context, migration.dest_compute, 'finish_resize',
                   instance=instance, flavor=flavor, migration=migration,
                   disk_info=disk_info)

    def confirm_resize(self, context, instance, migration, cast=True):
        """Cast to the source: drop the guest left there and the
        migration's allocation (a call with ``cast=False``: a delete
        waits for it)."""
        if cast:
            self._cast(context, migration.source_compute,
                       'confirm_resize', instance=instance,
                       migration=migration)
        else:
            self._call(context, migration.source_compute,
                       'confirm_resize', instance=instance,
                       migration=migration)

    def revert_resize(self, context, instance, migration):
        """Cast to the destination: destroy the new guest, then hand back
        to the source (``finish_revert_resize``)."""
        self._cast(context, migration.dest_compute, 'revert_resize',
                   instance=instance, migration=migration)

    def finish_revert_resize(self, context, instance, migration):
        """Cast to the source: give the instance its source allocation,
        host and old flavor back and restart the guest."""
        self._cast(context, migration.source_compute,
                   'finish_revert_resize', instance=instance,
                   migration=migration)

    # ---- live migration (nova_lite.compute.live_migration) ----

    def check_can_live_migrate_destination(self, context, instance,
                                           dest_host, dest_node, migration,
                                           block_migration=None):
        """Call the destination: can it take ``instance`` live on
        ``dest_node``? Returns the migrate data (a dict); raises
        conductor.tasks.common.MigrationPreCheckError when it cannot."""
        return self._call(
            context, dest_host, 'check_can_live_migrate_destination',
            timeout=CONF.long_rpc_timeout, instance=instance,
            dest_node=dest_node, migration=migration,
            block_migration=block_migration)

    def live_migration(self, context, instance, dest_host, migration,
                       migrate_data=None):
        """Cast the source: migrate ``instance`` live to ``dest_host``
        (the destination is claimed, the migration holds the source)."""
        self._cast(context, instance.host, 'live_migration',
                   instance=instance, dest_host=dest_host,
                   migration=migration, migrate_data=migrate_data)

    def pre_live_migration(self, context, instance, dest_host, migration,
                           migrate_data=None):
        """Call the destination: get ready to receive the guest."""
        return self._call(
            context, dest_host, 'pre_live_migration',
            timeout=CONF.long_rpc_timeout, instance=instance,
            migration=migration, migrate_data=migrate_data)

    def post_live_migration_at_destination(self, context, instance,
                                           dest_host, migration):
        """Call the destination: the guest runs there now; take over the
        instance (host, node, states)."""
        return self._call(
            context, dest_host, 'post_live_migration_at_destination',
            timeout=CONF.long_rpc_timeout, instance=instance,
            migration=migration)

    def rollback_live_migration_at_destination(self, context, instance,
                                               dest_host, migration):
        """Cast the destination: forget whatever it prepared."""
        self._cast(context, dest_host,
                   'rollback_live_migration_at_destination',
                   instance=instance, migration=migration)

    def live_migration_force_complete(self, context, instance, migration):
        """Cast the source: finish the running live migration now."""
        self._cast(context, migration.source_compute,
                   'live_migration_force_complete', instance=instance,
                   migration=migration)

    def live_migration_abort(self, context, instance, migration):
        """Cast the source: stop the live migration, keep the guest."""
        self._cast(context, migration.source_compute,
                   'live_migration_abort', instance=instance,
                   migration=migration)

    # ---- rebuild / evacuate (nova_lite.compute.rebuild) ----

    def rebuild_instance(self, context, instance, host, image,
                         recreate=False, migration=None, node=None,
                         admin_password=None, preserve_ephemeral=False,
                         target_state=None):
        """Cast ``host``: rebuild ``instance`` from ``image`` (a catalog
        dict) in place, or, with ``recreate`` (evacuate), re-create it on
        ``node`` of this host from its dead source."""
        self._cast(context, host, 'rebuild_instance', instance=instance,
                   image=image, recreate=recreate, migration=migration,
                   node=node, admin_password=admin_password,
                   preserve_ephemeral=preserve_ephemeral,
                   target_state=target_state)

    # ---- shelve / unshelve (nova_lite.compute.shelve) ----

    def shelve_instance(self, context, instance, image_id,
                        clean_shutdown=True):
        """Cast: power off, snapshot into ``image_id`` and shelve (the API
        set task_state shelving); the compute offloads right away when
        ``shelved_offload_time`` is 0."""
        self.prepare(context, instance.host).cast(
            context, 'shelve_instance', instance=instance,
            image_id=image_id, clean_shutdown=clean_shutdown)

    def snapshot_instance(self, context, instance, image_id):
        """Cast: store the guest as image ``image_id`` (the API set
        task_state image_snapshot and created the queued image)."""
        self.prepare(context, instance.host).cast(
            context, 'snapshot_instance', instance=instance,
            image_id=image_id)

    def backup_instance(self, context, instance, image_id, backup_type,
                        rotation):
        """Cast: store the guest as image ``image_id``, then keep the
        ``rotation`` newest ``backup_type`` backups of the instance (the
        API set task_state image_backup and created the queued image)."""
        self.prepare(context, instance.host).cast(
            context, 'backup_instance', instance=instance,
            image_id=image_id, backup_type=backup_type, rotation=rotation)

    def shelve_offload_instance(self, context, instance,
                                clean_shutdown=True):
        """Cast: destroy the guest of a shelved instance and free its
        resources (task_state shelving_offloading)."""
        self._cast(context, instance.host, 'shelve_offload_instance',
                   instance=instance, clean_shutdown=clean_shutdown)

    def unshelve_instance(self, context, instance, host, node=None,
                          request_spec=None, image=None):
        """Cast: bring a shelved instance back on ``host``: power on a
        guest still there, or spawn one on ``node`` (whose allocation the
        scheduler claimed)."""
        self._cast(context, host, 'unshelve_instance',
                   instance=instance, node=node,
                   request_spec=request_spec, image=image)

    # ---- diagnostics, external events, soft delete ----

    def get_diagnostics(self, context, instance):
        """Call: the guest's free-form diagnostics (InstanceInvalidState
        unless it runs)."""
        return self.prepare(context, instance.host).call(
            context, 'get_diagnostics', instance=instance)

    def get_instance_diagnostics(self, context, instance):
        """Call: the guest's 2.48 diagnostics (a dict)."""
        return self.prepare(context, instance.host).call(
            context, 'get_instance_diagnostics', instance=instance)

    def external_instance_event(self, context, host, events):
        """Cast: external events (dicts with ``name``, ``server_uuid``,
        ``tag``, ``status``) for instances on ``host``."""
        self.prepare(context, host).cast(
            context, 'external_instance_event', events=events)

    def soft_delete_instance(self, context, instance):
        """Cast: power off, SOFT_DELETED (the API set soft-deleting)."""
        self.prepare(context, instance.host).cast(
            context, 'soft_delete_instance', instance=instance)

    def restore_instance(self, context, instance):
        """Cast: power a soft-deleted instance back on (restoring)."""
        self.prepare(context, instance.host).cast(
            context, 'restore_instance', instance=instance)
