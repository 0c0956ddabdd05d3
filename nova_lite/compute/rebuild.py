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

When a compute starts, :meth:`Rebuilds.destroy_evacuated_instances`
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
from nova_lite import notifications
from nova_lite.virt import power_state

LOG = logging.getLogger(__name__)

REBUILD_EVENT = 'compute_rebuild_instance'
# Evacuations the source must still clean up after it comes back.
EVACUATIONS_TO_CLEAN = ['accepted', 'pre-migrating', 'done']


class NodeNotServed(exception.Invalid):
    """The evacuation's node is not this host's: the instance stays as it
    was on its source (no ERROR), as for a failed claim."""


class Rebuilds:
    """Rebuilds and evacuations landing on one compute host.

    :param conductor_api: the cell conductor (evacuations to clean up).
    :param placement: the placement client (provider trees of nodes).
    """

    def __init__(self, host, driver, records, events, allocations, tracker,
                 conductor_api, placement):
        self.host = host
        self.driver = driver
        self.records = records
        self.events = events
        self.allocations = allocations
        self.tracker = tracker
        self.conductor_api = conductor_api
        self.placement = placement

    def rebuild_instance(self, context, instance, image, recreate,
                         migration, node, target_state):
        """Rebuild in place, or re-create an evacuated instance."""
        if recreate:
            self._evacuate_here(context, instance, image, migration, node,
                                target_state)
        else:
            self._rebuild_in_place(context, instance, image)

    # -- rebuild -------------------------------------------------------------

    def _rebuild_in_place(self, context, instance, image):
        uuid = instance.uuid
        was_stopped = instance.vm_state == vm_states.STOPPED
        self._notify(context, instance, 'start')
        try:
            with self.events.step(
                    context, uuid, REBUILD_EVENT, fault=True,
                    revert={'vm_state': vm_states.ERROR, 'task_state': None},
                    expected_task_state=[task_states.REBUILDING,
                                         task_states.REBUILD_SPAWNING]):
                instance = self.records.update(
                    context, uuid,
                    {'task_state': task_states.REBUILD_SPAWNING},
                    expected_task_state=[task_states.REBUILDING])
                allocations = self.allocations.held(uuid)
                self.driver.destroy(context, instance)
                self.driver.spawn(context, instance, image or {},
                                  allocations)
                instance = self._finish_rebuild(context, instance,
                                                was_stopped)
        except Exception as error:  # noqa: BLE001 - recorded as a fault
            LOG.warning('Rebuild of instance %s failed: %s', uuid, error)
            self._notify(context, instance, 'error', fault=error)
            return
        LOG.info('Instance %s rebuilt on %s', uuid, instance.node)
        self._notify(context, instance, 'end')

    def _notify(self, context, instance, phase, fault=None):
        notifications.instance_action(
            context, instance, self.host, 'rebuild', phase, fault=fault,
            payload_cls=notifications.payloads.InstanceActionRebuildPayload,
            trusted_image_certificates=None)

    def _finish_rebuild(self, context, instance, stopped):
        """The guest runs (or is stopped again): final states."""
        if stopped:
            self.driver.power_off(instance)
        values = {'vm_state': vm_states.STOPPED if stopped
                  else vm_states.ACTIVE,
                  'task_state': None,
                  'power_state': (power_state.SHUTDOWN if stopped
                                  else power_state.RUNNING),
                  'launched_at': timeutils.utcnow()}
        return self.records.update(
            context, instance.uuid, values,
            expected_task_state=[task_states.REBUILD_SPAWNING])

    # -- evacuate (this host is the destination) ------------------------------

    def _evacuate_here(self, context, instance, image, migration, node,
                       target_state):
        uuid = instance.uuid
        stopped = (target_state == vm_states.STOPPED or
                   instance.vm_state == vm_states.STOPPED)
        self._notify(context, instance, 'start')
        try:
            with self.events.step(
                    context, uuid, REBUILD_EVENT, fault=True,
                    undo=lambda error: self._undo_evacuation(
                        context, instance, migration, node, error),
                    revert=lambda error: _back_on_source(migration, error),
                    expected_task_state=[task_states.REBUILDING,
                                         task_states.REBUILD_SPAWNING]):
                self.records.set_migration_status(
                    context, migration, 'pre-migrating', missing_ok=True)
                evacuated = self._spawn_evacuated(context, instance, image,
                                                  node, stopped)
        except Exception as error:  # noqa: BLE001 - recorded as a fault
            self._notify(context, instance, 'error', fault=error)
            return
        self.records.set_migration_status(
            context, migration, 'done', missing_ok=True)
        self.tracker.refresh_usage(context, node)
        LOG.info('Instance %s evacuated from %s to %s/%s', uuid,
                 migration.source_compute, self.host, node)
        self._notify(context, evacuated or instance, 'end')

    def _spawn_evacuated(self, context, instance, image, node, stopped):
        """The instance moves here and its guest is spawned on ``node``
        with the destination part of its allocation."""
        uuid = instance.uuid
        if node not in self.driver.get_available_nodes():
            raise NodeNotServed(
                reason='Node %s is not served by host %s.' % (node,
                                                              self.host))
        values = {'host': self.host, 'node': node,
                  'task_state': task_states.REBUILD_SPAWNING}
        compute_node = self.tracker.get_node(node)
        if compute_node is not None:
            values['compute_id'] = compute_node.id
        instance = self.records.update(
            context, uuid, values,
            expected_task_state=[task_states.REBUILDING])
        allocations = self._allocations_on_node(uuid, node)
        self.driver.spawn(context, instance, image or {}, allocations)
        return self._finish_rebuild(context, instance, stopped)

    def _undo_evacuation(self, context, instance, migration, node, error):
        """No guest and no claim left on this host; migration failed."""
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

    def _node_provider_uuids(self, nodename):
        """Uuids of the provider tree of node ``nodename`` (root first)."""
        roots = self.placement.list_providers(name=nodename)
        if not roots:
            return []
        root = roots[0]['uuid']
        return [root] + [p['uuid'] for p in
                         self.placement.list_providers(in_tree=root)
                         if p['uuid'] != root]

    def _allocations_on_node(self, uuid, node):
        """The part of the instance's allocation on ``node``'s tree."""
        tree = set(self._node_provider_uuids(node))
        return {rp: entry for rp, entry in
                self.allocations.held(uuid).items() if rp in tree}

    def _remove_node_from_allocation(self, uuid, node):
        try:
            allocation_moves.remove_providers_from_allocation(
                self.placement, uuid, self._node_provider_uuids(node))
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


def _back_on_source(migration, error):
    """Where a failed evacuation leaves the instance: recorded on its
    source, in ERROR unless the node check refused it before a spawn."""
    values = {'host': migration.source_compute,
              'node': migration.source_node, 'task_state': None}
    if not isinstance(error, NodeNotServed):
        values['vm_state'] = vm_states.ERROR
    return values
