"""Rebuild and evacuate on a compute; clean-up of evacuated instances.

``rebuild_instance`` serves both (as in Nova):

* rebuild (same host): the guest is destroyed and spawned again from the
  instance's (possibly new) image; the allocation does not change. The
  instance ends ACTIVE, or STOPPED if it was; a driver failure puts it in
  ERROR with a fault.
* evacuate (``recreate``, this host is the destination): the migration
  goes ``pre-migrating``, the instance moves here (host, node) and is
  spawned on the chosen node with the destination part of its doubled
  allocation; success ends the migration ``done``. If the node cannot
  take it (the claim check) or the driver fails, the destination part of
  the allocation is dropped, the migration ends ``failed`` and the
  instance stays recorded on its source: unchanged for a failed claim,
  in ERROR for a failed spawn.

When a compute starts, :meth:`RebuildMixin.destroy_evacuated_instances`
cleans up what was evacuated away while it was down: for each
``evacuation`` migration from this host still ``accepted``,
``pre-migrating`` or ``done`` whose instance now lives elsewhere, the
local guest is destroyed, the instance's allocation on this host's
providers removed and the migration marked ``completed``.
"""

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.clients import allocation_moves
from nova_lite.clients import placement as placement_client
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import exception
from nova_lite.virt import power_state

LOG = logging.getLogger(__name__)

REBUILD_EVENT = 'compute_rebuild_instance'
# Evacuations the source must still clean up after it comes back.
EVACUATIONS_TO_CLEAN = ['accepted', 'pre-migrating', 'done']


class RebuildMixin:
    """Part of :class:`nova_lite.compute.manager.ComputeManager`."""

    def rebuild_instance(self, context, instance, image, recreate=False,
                         migration=None, node=None, admin_password=None,
                         preserve_ephemeral=False, target_state=None):
        """Cast: rebuild in place, or re-create an evacuated instance."""
        if recreate:
            self._evacuate_here(context, instance, image, migration, node,
                                target_state)
        else:
            self._rebuild_in_place(context, instance, image)

    # -- rebuild -------------------------------------------------------------

    def _rebuild_in_place(self, context, instance, image):
        uuid = instance.uuid
        was_stopped = instance.vm_state == vm_states.STOPPED
        self.records.event_start(context, uuid, REBUILD_EVENT)
        try:
            instance = self.records.update(
                context, uuid,
                {'task_state': task_states.REBUILD_SPAWNING},
                expected_task_state=[task_states.REBUILDING])
            allocations = self._instance_allocations(uuid)
            self.driver.destroy(context, instance)
            self.driver.spawn(context, instance, image or {}, allocations)
            self._finish_rebuild(context, instance, was_stopped)
        except Exception as error:  # noqa: BLE001 - recorded as a fault
            LOG.warning('Rebuild of instance %s failed: %s', uuid, error)
            self.records.event_finish(context, uuid, REBUILD_EVENT,
                                      error=error)
            self._rebuild_failed(context, uuid, error)
            return
        self.records.event_finish(context, uuid, REBUILD_EVENT)
        LOG.info('Instance %s rebuilt on %s', uuid, instance.node)

    def _rebuild_failed(self, context, uuid, error):
        """ERROR with a fault, unless a delete took the instance over."""
        try:
            self.records.update(
                context, uuid, {'vm_state': vm_states.ERROR,
                                'task_state': None},
                expected_task_state=[task_states.REBUILDING,
                                     task_states.REBUILD_SPAWNING])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError) as changed:
            LOG.info('Instance %s changed during its failed rebuild: %s',
                     uuid, changed)
            return
        self.records.fault(context, uuid, error)

    def _finish_rebuild(self, context, instance, stopped, extra=None):
        """The guest runs (or is stopped again): final states."""
        if stopped:
            self.driver.power_off(instance)
        values = {'vm_state': vm_states.STOPPED if stopped
                  else vm_states.ACTIVE,
                  'task_state': None,
                  'power_state': (power_state.SHUTDOWN if stopped
                                  else power_state.RUNNING),
                  'launched_at': timeutils.utcnow()}
        values.update(extra or {})
        return self.records.update(
            context, instance.uuid, values,
            expected_task_state=[task_states.REBUILD_SPAWNING])

    # -- evacuate (this host is the destination) ------------------------------

    def _evacuate_here(self, context, instance, image, migration, node,
                       target_state):
        uuid = instance.uuid
        stopped = (target_state == vm_states.STOPPED or
                   instance.vm_state == vm_states.STOPPED)
        self.records.event_start(context, uuid, REBUILD_EVENT)
        self.records.set_migration_status(
            context, migration, 'pre-migrating', missing_ok=True)
        if node not in self.driver.get_available_nodes():
            error = exception.Invalid(
                reason='Node %s is not served by host %s.' % (node,
                                                              self.host))
            self._evacuation_failed(context, instance, migration, node,
                                    error, put_in_error=False)
            return
        try:
            values = {'host': self.host, 'node': node,
                      'task_state': task_states.REBUILD_SPAWNING}
            compute_node = self.rt.get_node(node)
            if compute_node is not None:
                values['compute_id'] = compute_node.id
            instance = self.records.update(
                context, uuid, values,
                expected_task_state=[task_states.REBUILDING])
            allocations = self._allocations_on_node(uuid, node)
            self.driver.spawn(context, instance, image or {}, allocations)
            self._finish_rebuild(context, instance, stopped)
        except Exception as error:  # noqa: BLE001 - recorded as a fault
            self._evacuation_failed(context, instance, migration, node,
                                    error, put_in_error=True)
            return
        self.records.set_migration_status(
            context, migration, 'done', missing_ok=True)
        self.records.event_finish(context, uuid, REBUILD_EVENT)
        self.rt.refresh_usage(context, node)
        LOG.info('Instance %s evacuated from %s to %s/%s', uuid,
                 migration.source_compute, self.host, node)

    def _evacuation_failed(self, context, instance, migration, node, error,
                           put_in_error):
        uuid = instance.uuid
        LOG.warning('Evacuation of instance %s to %s failed: %s', uuid,
                    node, error)
        try:
            self.driver.destroy(context, instance)
        except Exception as destroy_error:  # noqa: BLE001 - best effort
            LOG.warning('Guest of %s not cleaned up: %s', uuid,
                        destroy_error)
        self._remove_node_from_allocation(uuid, node)
        self.records.set_migration_status(
            context, migration, 'failed', missing_ok=True)
        self.records.event_finish(context, uuid, REBUILD_EVENT, error=error)
        values = {'host': migration.source_compute,
                  'node': migration.source_node, 'task_state': None}
        if put_in_error:
            values['vm_state'] = vm_states.ERROR
        try:
            self.records.update(
                context, uuid, values,
                expected_task_state=[task_states.REBUILDING,
                                     task_states.REBUILD_SPAWNING])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError) as changed:
            LOG.info('Instance %s changed during its failed evacuation: %s',
                     uuid, changed)
            return
        self.records.fault(context, uuid, error)

    def _node_provider_uuids(self, nodename):
        """Uuids of the provider tree of node ``nodename`` (root first)."""
        roots = self.placement_client.list_providers(name=nodename)
        if not roots:
            return []
        root = roots[0]['uuid']
        return [root] + [p['uuid'] for p in
                         self.placement_client.list_providers(in_tree=root)
                         if p['uuid'] != root]

    def _allocations_on_node(self, uuid, node):
        """The part of the instance's allocation on ``node``'s tree."""
        tree = set(self._node_provider_uuids(node))
        return {rp: entry for rp, entry in
                self._instance_allocations(uuid).items() if rp in tree}

    def _remove_node_from_allocation(self, uuid, node):
        try:
            allocation_moves.remove_providers_from_allocation(
                self.placement_client, uuid, self._node_provider_uuids(node))
        except placement_client.PlacementClientError as error:
            LOG.error('Allocation of %s on %s not removed: %s', uuid, node,
                      error)

    # -- clean-up at start -----------------------------------------------

    def destroy_evacuated_instances(self, context):
        """Clean up the instances evacuated away while this host was down
        (see the module docstring); returns their uuids."""
        migrations = self.conductor_api.migration_get_all_by_filters(
            context, {'source_compute': self.host,
                      'migration_type': 'evacuation',
                      'status': EVACUATIONS_TO_CLEAN})
        cleaned = []
        for migration in migrations:
            if self._clean_up_evacuation(context, migration):
                cleaned.append(migration.instance_uuid)
        return cleaned

    def _clean_up_evacuation(self, context, migration):
        uuid = migration.instance_uuid
        try:
            instance = self.conductor_api.instance_get_by_uuid(context, uuid)
        except exception.InstanceNotFound:
            instance = None
        if instance is not None and instance.host == self.host:
            LOG.info('Evacuation %s of %s has not moved it yet; its guest '
                     'stays', migration.uuid, uuid)
            return False
        guest = instance if instance is not None else {'uuid': uuid}
        if self.driver.instance_exists(guest):
            self.driver.destroy(context, guest)
        if instance is not None:
            self._remove_node_from_allocation(uuid, migration.source_node)
        self.records.set_migration_status(
            context, migration, 'completed', missing_ok=True)
        LOG.info('Cleaned up instance %s, evacuated from here by migration '
                 '%s', uuid, migration.uuid)
        return True
