"""The compute API: what the servers handlers call (as Nova's).

The REST handlers turn HTTP into calls here; this layer knows where a
server lives and who must be told. :class:`API` is a thin front that
hands each call to the object of its concern, each given what it talks
to when it is made:

* creating servers (:mod:`.create`): build requests, request specs and
  mappings, then the super conductor;
* reading them (:mod:`.server_list`): build requests and the cells, a
  scatter-gather merged in one order;
* actions on a server (:mod:`.actions`): the task state in its cell,
  then a cast to its compute;
* delete (:mod:`.delete`), resize and cold migration (:mod:`.resize`),
  live migration, evacuate and rebuild (:mod:`.live`), shelve
  (:mod:`.shelve`), createImage and createBackup (:mod:`.snapshot`),
  interfaces attached after boot (:mod:`.interfaces`).

A handler makes one ``API`` per request; the objects of the concerns are
made on first use, so a request builds only what it needs.
"""

import functools

from nova_lite.api.compute import actions as actions_api
from nova_lite.api.compute import create as create_api
from nova_lite.api.compute import deferred_delete as deferred_api
from nova_lite.api.compute import delete as delete_api
from nova_lite.api.compute import interfaces as interfaces_api
from nova_lite.api.compute import live as live_api
from nova_lite.api.compute import resize as resize_api
from nova_lite.api.compute import server_list
from nova_lite.api.compute import shelve as shelve_api
from nova_lite.api.compute import snapshot as snapshot_api
from nova_lite.clients import placement as placement_client
from nova_lite import conf as nl_conf
from nova_lite.compute import rpcapi
from nova_lite.conductor import compute_task_rpcapi
from nova_lite import exception

CONF = nl_conf.CONF


class API:
    """Server operations over the API DB, the cells and the RPC APIs."""

    def __init__(self, transport=None, placement=None,
                 compute_task_api=None, compute_rpcapi=None):
        self.compute_task_api = (
            compute_task_api or
            compute_task_rpcapi.ComputeTaskAPI(transport=transport))
        self.compute_rpcapi = compute_rpcapi or rpcapi.ComputeAPI()
        self._placement = placement

    # -- the objects of the concerns (made on first use) ----------------------

    @functools.cached_property
    def placement(self):
        return self._placement or placement_client.PlacementClient()

    def _get_placement(self):
        """The facade's one client, for the concerns that may need it:
        they ask only when they use it (making one is a visible share of
        a DELETE's API CPU, spent for nothing when it is cast to its
        compute)."""
        return self.placement

    @functools.cached_property
    def _create(self):
        return create_api.CreateAPI(self.compute_task_api)

    @functools.cached_property
    def _actions(self):
        return actions_api.ActionsAPI(self.compute_rpcapi)

    @functools.cached_property
    def _interfaces(self):
        return interfaces_api.InterfacesAPI(self.compute_rpcapi)

    @functools.cached_property
    def _resize(self):
        return resize_api.ResizeAPI(self.compute_rpcapi, self.compute_task_api,
                                self._get_placement)

    @functools.cached_property
    def _delete(self):
        return delete_api.DeleteAPI(self.compute_rpcapi, self._get_placement,
                                self._resize)

    @functools.cached_property
    def _deferred(self):
        return deferred_api.DeferredDeleteAPI(self.compute_rpcapi,
                                              self._delete)

    @functools.cached_property
    def _live(self):
        return live_api.LiveAPI(self.compute_rpcapi, self.compute_task_api)

    @functools.cached_property
    def _shelve(self):
        return shelve_api.ShelveAPI(self._actions, self.compute_task_api)

    @functools.cached_property
    def _snapshot(self):
        return snapshot_api.SnapshotAPI(self.compute_rpcapi)

    # -- create and read ------------------------------------------------------

    def create(self, context, flavor, image_ref, name, min_count=1,
               max_count=None, availability_zone=None, scheduler_hints=None,
               key_name=None, metadata=None, description=None,
               networks=None, user_data=None, forced_allowed=False,
               hostname=None, requested_host=None, requested_node=None,
               system_metadata=None, tags=None, security_groups=None,
               config_drive=None, auto_disk_config=None):
        """See :meth:`.create.CreateAPI.create`."""
        return self._create.create(
            context, flavor, image_ref, name, min_count=min_count,
            max_count=max_count, availability_zone=availability_zone,
            scheduler_hints=scheduler_hints, key_name=key_name,
            metadata=metadata, description=description, networks=networks,
            user_data=user_data, forced_allowed=forced_allowed,
            hostname=hostname, requested_host=requested_host,
            requested_node=requested_node,
            system_metadata=system_metadata, tags=tags,
            security_groups=security_groups, config_drive=config_drive,
            auto_disk_config=auto_disk_config)

    @staticmethod
    def get(context, uuid, with_fault=True):
        """The server ``uuid`` (InstanceNotFound)."""
        return server_list.get(context, uuid, with_fault)

    @staticmethod
    def get_all(context, filters=None, limit=None, marker=None,
                want_down_cells=False, cell_timeout=None, sort=None):
        """See :func:`.server_list.get_all`."""
        return server_list.get_all(context, filters, limit, marker,
                                   want_down_cells, cell_timeout, sort)

    # -- update and actions ---------------------------------------------------

    def update(self, context, server, values):
        return self._actions.update(context, server, values)

    def stop(self, context, server):
        self._actions.stop(context, server)

    def start(self, context, server):
        self._actions.start(context, server)

    def reboot(self, context, server, reboot_type):
        self._actions.reboot(context, server, reboot_type)

    def pause(self, context, server):
        self._actions.pause(context, server)

    def unpause(self, context, server):
        self._actions.unpause(context, server)

    def suspend(self, context, server):
        self._actions.suspend(context, server)

    def resume(self, context, server):
        self._actions.resume(context, server)

    def rescue(self, context, server, password, rescue_image_ref=None):
        self._actions.rescue(context, server, password,
                             rescue_image_ref=rescue_image_ref)

    def unrescue(self, context, server):
        self._actions.unrescue(context, server)

    def attach_interface(self, context, server, network_id=None,
                         port_id=None, fixed_ip=None, tag=None):
        return self._interfaces.attach(context, server,
                                       network_id=network_id,
                                       port_id=port_id, fixed_ip=fixed_ip,
                                       tag=tag)

    def detach_interface(self, context, server, port_id):
        self._interfaces.detach(context, server, port_id)

    def lock(self, context, server, reason=None):
        self._actions.lock(context, server, reason=reason)

    def unlock(self, context, server):
        self._actions.unlock(context, server)

    # -- delete ---------------------------------------------------------------

    def delete(self, context, server):
        """Soft when ``reclaim_instance_interval`` > 0 and the server
        may be soft-deleted (see :mod:`.deferred_delete`)."""
        if CONF.reclaim_instance_interval > 0:
            try:
                self._deferred.soft_delete(context, server)
                return
            except exception.InstanceInvalidState:
                pass
        self._delete.delete(context, server)

    def restore(self, context, server):
        self._deferred.restore(context, server)

    def force_delete(self, context, server):
        self._deferred.force_delete(context, server)

    def reset_state(self, context, server, vm_state):
        self._deferred.reset_state(context, server, vm_state)

    # -- resize and cold migrate ----------------------------------------------

    def resize(self, context, server, flavor, auto_disk_config=None):
        self._resize.resize(context, server, flavor,
                            auto_disk_config=auto_disk_config)

    def migrate(self, context, server, host=None):
        self._resize.migrate(context, server, host=host)

    def confirm_resize(self, context, server):
        self._resize.confirm_resize(context, server)

    def revert_resize(self, context, server):
        self._resize.revert_resize(context, server)

    # -- live migration, evacuate, rebuild ------------------------------------

    def live_migrate(self, context, server, host=None, block_migration=None,
                     force=False):
        self._live.live_migrate(context, server, host=host,
                                block_migration=block_migration,
                                force=force)

    def evacuate(self, context, server, host=None, admin_password=None,
                 force=False):
        self._live.evacuate(context, server, host=host,
                            admin_password=admin_password, force=force)

    def rebuild(self, context, server, image_ref, admin_password=None,
                values=None, preserve_ephemeral=False,
                auto_disk_config=None):
        return self._live.rebuild(context, server, image_ref,
                                  admin_password=admin_password,
                                  values=values,
                                  preserve_ephemeral=preserve_ephemeral,
                                  auto_disk_config=auto_disk_config)

    def live_migrations_in_progress(self, context, server):
        return self._live.live_migrations_in_progress(context, server)

    def live_migration_abort(self, context, server, migration_id,
                             support_abort_in_queue=False):
        self._live.live_migration_abort(
            context, server, migration_id,
            support_abort_in_queue=support_abort_in_queue)

    def live_migration_force_complete(self, context, server, migration_id):
        self._live.live_migration_force_complete(context, server,
                                                 migration_id)

    # -- createImage ----------------------------------------------------------

    def snapshot(self, context, server, name, metadata=None):
        """See :meth:`.snapshot.SnapshotAPI.snapshot`."""
        return self._snapshot.snapshot(context, server, name, metadata)

    def backup(self, context, server, name, backup_type, rotation,
               metadata=None, check_quota=True):
        """See :meth:`.snapshot.SnapshotAPI.backup`."""
        return self._snapshot.backup(context, server, name, backup_type,
                                     rotation, metadata,
                                     check_quota=check_quota)

    # -- shelve ---------------------------------------------------------------

    def shelve(self, context, server, clean_shutdown=True):
        self._shelve.shelve(context, server, clean_shutdown=clean_shutdown)

    def shelve_offload(self, context, server, clean_shutdown=True):
        self._shelve.shelve_offload(context, server,
                                    clean_shutdown=clean_shutdown)

    def unshelve(self, context, server, availability_zone=shelve_api.NOT_GIVEN,
                 host=None):
        self._shelve.unshelve(context, server,
                              availability_zone=availability_zone, host=host)
