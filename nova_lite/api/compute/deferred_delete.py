"""Soft delete, restore, force delete and reset state of a server.

With ``[DEFAULT] reclaim_instance_interval`` > 0 a delete of a server
that has run (``launched_at``), has a host and no task is soft, as in
Nova: the API stamps ``deleted_at``, sets the task ``soft-deleting`` and
casts to the compute, which powers the guest off (``SOFT_DELETED``); a
server whose compute is down becomes ``SOFT_DELETED`` right here (its
compute reclaims it once back). Its resources stay claimed until its
compute reclaims it after the interval. ``restore`` brings it back
(``restoring``, then ``ACTIVE``) if the project's quota has room for it
again (a soft-deleted server counts for nothing, as in Nova);
``forceDelete`` deletes it now. Any other server is deleted as usual.
``os-resetState`` (admins) writes the vm state and clears the task.
"""

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.api.compute import actions
from nova_lite.api import quota
from nova_lite import cells
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import exception
from nova_lite import objects
from nova_lite import servicegroup

LOG = logging.getLogger(__name__)


def _in_cell(server, action):
    if server.build_request or server.cell is None:
        raise exception.InstanceInvalidState(
            action=action, uuid=server.uuid, attr='vm_state',
            state=vm_states.BUILDING)
    return server.instance


def _queued_for_delete(context, uuid, queued):
    mapping = objects.InstanceMapping.get_by_instance_uuid(context, uuid)
    mapping.queued_for_delete = queued
    mapping.save()


def _compute_up(cctxt, instance):
    return bool(instance.host) and servicegroup.compute_is_up(
        cctxt, instance.host)


class DeferredDeleteAPI:
    """Soft delete and its undo; ``deleter`` is the
    :class:`nova_lite.api.compute.delete.DeleteAPI` of a real delete."""

    def __init__(self, compute_rpcapi, deleter):
        self.compute_rpcapi = compute_rpcapi
        self.deleter = deleter

    def soft_delete(self, context, server):
        """Soft-delete the server (InstanceInvalidState when it never ran
        or has a task: the caller then deletes it)."""
        instance = _in_cell(server, 'soft_delete')
        actions.check_not_locked(context, instance)
        # NOTE(nova_lite): as in Nova, a server that never ran or has no
        # host is deleted for good; a resized one is too here (Nova
        # confirms the resize first, then soft-deletes).
        if (instance.launched_at is None or instance.task_state is not None
                or not instance.host or
                instance.vm_state == vm_states.RESIZED):
            raise exception.InstanceInvalidState(
                action='soft_delete', uuid=instance.uuid, attr='task_state',
                state=instance.task_state)
        now = timeutils.utcnow()
        with cells.target_cell(context, server.cell) as cctxt:
            if _compute_up(cctxt, instance):
                actions.start_task(cctxt, instance, 'delete',
                                   task_states.SOFT_DELETING,
                                   values={'deleted_at': now})
                self.compute_rpcapi.soft_delete_instance(cctxt, instance)
            else:
                objects.InstanceAction.action_start(cctxt, instance.uuid,
                                                    'delete')
                actions._save(cctxt, instance, {
                    'vm_state': vm_states.SOFT_DELETED, 'task_state': None,
                    'deleted_at': now, 'terminated_at': now})
        _queued_for_delete(context, server.uuid, True)
        LOG.info('Soft-deleted instance %s', server.uuid)

    def restore(self, context, server):
        """SOFT_DELETED -> ACTIVE (409 from any other state)."""
        instance = actions.instance_for(context, server, 'restore',
                                        [vm_states.SOFT_DELETED])
        # A soft-deleted server counts for nothing: it needs room again.
        quota.check_servers(context, instance.project_id, instance.user_id,
                            1, instance.flavor_value('vcpus'),
                            instance.flavor_value('memory_mb'))
        with cells.target_cell(context, server.cell) as cctxt:
            if _compute_up(cctxt, instance):
                actions.start_task(cctxt, instance, 'restore',
                                   task_states.RESTORING,
                                   values={'deleted_at': None})
                self.compute_rpcapi.restore_instance(cctxt, instance)
            else:
                objects.InstanceAction.action_start(cctxt, instance.uuid,
                                                    'restore')
                actions._save(cctxt, instance, {
                    'vm_state': vm_states.ACTIVE, 'task_state': None,
                    'deleted_at': None})
        _queued_for_delete(context, server.uuid, False)

    def force_delete(self, context, server):
        """Delete now, whatever the vm state, unless a task runs."""
        instance = server.instance
        if not server.build_request:
            actions.check_not_locked(context, instance)
            if instance.task_state is not None:
                raise exception.InstanceInvalidState(
                    action='force_delete', uuid=instance.uuid,
                    attr='task_state', state=instance.task_state)
        self.deleter.delete(context, server)

    @staticmethod
    def reset_state(context, server, vm_state):
        """Write ``vm_state``, no task; recorded as ``resetState``."""
        instance = _in_cell(server, 'resetState')
        with cells.target_cell(context, server.cell) as cctxt:
            objects.InstanceAction.action_start(cctxt, instance.uuid,
                                                'resetState')
            actions._save(cctxt, instance, {'vm_state': vm_state,
                                            'task_state': None})
            objects.InstanceAction.action_finish(cctxt, instance.uuid)
        LOG.info('State of instance %s reset to %s', server.uuid, vm_state)
