"""Deleting a server.

A server is deleted where it is: a build request not yet scheduled goes
with its mapping, request spec and any claim the scheduler made for it;
an instance in cell0, without a host or on a compute that does not
heartbeat is deleted in its cell database right here (its claim
dropped); any other is cast to its compute, which removes the guest, the
allocation and the row. A server in the middle of a resize
(VERIFY_RESIZE) has its resize confirmed first when its source compute is
up, so the source guest and the migration's allocation go too. Either
way, a delete frees what the instance's unfinished migrations still hold
(the source of a move) and ends them ``error``; a shelved server's
snapshot image is deleted with it, as in Nova. A failed allocation
delete is retried in the background
(:mod:`nova_lite.clients.claim_release`).
"""

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.api.compute import actions
from nova_lite.api.compute import server_list
from nova_lite.api.compute import snapshot
from nova_lite import cells
from nova_lite.clients import claim_release
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import conf as nl_conf
from nova_lite import exception
from nova_lite.network import interface as net_compute
from nova_lite import notifications
from nova_lite import objects
from nova_lite.objects import cell_mapping as cell_mapping_obj
from nova_lite.objects import db_transaction
from nova_lite.objects import instance_group as group_obj
from nova_lite import servicegroup

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)


class DeleteAPI:
    """Deletes servers: casts to their compute (``compute_rpcapi``), or
    deletes them here and drops their claims (the client
    ``get_placement`` makes, on first use: a delete cast to its compute
    never needs one); a resize in VERIFY_RESIZE is confirmed first
    (``resize``, a :class:`nova_lite.api.compute.resize.ResizeAPI`)."""

    def __init__(self, compute_rpcapi, get_placement, resize):
        self.compute_rpcapi = compute_rpcapi
        self._get_placement = get_placement
        self.resize = resize

    def delete(self, context, server):
        """Delete a server wherever it is (see the module docstring).

        The instance is the one ``server`` was read with (the handler
        just read it to authorize the request): it is not read again,
        and the write that starts the delete reads nothing back (the
        compute reads the instance when its terminate starts).
        """
        uuid = server.uuid
        if server.build_request and self._delete_build_request(context,
                                                               uuid):
            net_compute.deallocate(context, uuid)
            return
        if server.build_request:
            server = server_list.get(context, uuid)
        instance = server.instance
        actions.check_not_locked(context, instance)
        cell = server.cell
        with cells.target_cell(context, cell) as cctxt:
            if instance.obj_what_changed():
                # NOTE(nova_lite): a caller changed it without saving (a
                # soft delete that lost a race to another task): what it
                # holds is not the row any more.
                instance = objects.Instance.get_by_uuid(cctxt, uuid)
            instance._context = cctxt
            in_cell0 = cell.uuid == cell_mapping_obj.CELL0_UUID
            if not in_cell0:
                self.resize.confirm_resize_before_delete(cctxt, instance)
            snapshot.delete_shelved_image(instance)
            if in_cell0 or not instance.host:
                self._local_delete(context, cctxt, instance)
            else:
                self._delete_on_host(context, cctxt, instance)
        _forget(context, uuid)

    def _delete_on_host(self, context, cctxt, instance):
        """Cast the delete to the instance's compute, or delete it here
        when that compute is down."""
        deleting = instance.task_state == task_states.DELETING
        started = _start_delete_on_host(cctxt, instance, deleting)
        if started is None:
            self._local_delete(context, cctxt, instance)
        elif started:
            LOG.info('Deleting instance %s on %s', instance.uuid,
                     instance.host)
            self.compute_rpcapi.terminate_instance(cctxt, instance)

    def _delete_build_request(self, context, uuid):
        """True when the build request was deleted (the server with it).

        Its claim goes too: the scheduler may have claimed before the
        super conductor died or lost the race, and nothing else would
        ever give that claim back.
        """
        try:
            objects.BuildRequest(context, instance_uuid=uuid).destroy()
        except exception.BuildRequestNotFound:
            return False
        LOG.info('Deleted server %s while it was being scheduled', uuid)
        claim_release.release(self._get_placement(), uuid)
        for remove in (objects.InstanceMapping.get_by_instance_uuid,):
            try:
                remove(context, uuid).destroy()
            except exception.InstanceMappingNotFound:
                pass
        try:
            objects.RequestSpec.destroy(context, uuid)
        except exception.RequestSpecNotFound:
            pass
        group_obj.InstanceGroup.delete_member(context, uuid)
        return True

    def _local_delete(self, context, cctxt, instance):
        """An instance no compute holds or whose compute is down (cell0,
        failed build, dead host): deleted here, its claim dropped. The
        API sends its ``instance.delete.start/end``, as Nova's does."""
        notifications.instance_action(context, instance, CONF.host,
                                      'delete', 'start',
                                      source=notifications.API)
        instance.vm_state = vm_states.DELETED
        instance.task_state = None
        instance.terminated_at = timeutils.utcnow()
        instance.save()
        instance.destroy()
        for consumer in [instance.uuid] + self._end_unfinished_migrations(
                cctxt, instance.uuid):
            claim_release.release(self._get_placement(), consumer)
        LOG.info('Deleted instance %s locally (no compute holds it)',
                 instance.uuid)
        notifications.instance_action(context, instance, CONF.host,
                                      'delete', 'end',
                                      source=notifications.API)

    @staticmethod
    def _end_unfinished_migrations(cctxt, instance_uuid):
        """The uuids of the instance's migrations still in flight, now
        ``error`` (their allocations are the caller's to delete)."""
        ended = []
        for migration in objects.MigrationList.get_by_filters(
                cctxt, {'instance_uuid': instance_uuid}):
            if migration.is_done:
                continue
            migration.status = 'error'
            migration.save()
            ended.append(migration.uuid)
            LOG.info('Migration %s (%s) of instance %s ended by its delete',
                     migration.uuid, migration.migration_type,
                     instance_uuid)
        return ended



@db_transaction.retry_on_transient
def _start_delete_on_host(cctxt, instance, deleting):
    """In one cell transaction: None when the instance's compute is down
    (the caller deletes it here); else its task state ``deleting`` and
    the ``delete`` action, True, or False when a delete is already under
    way (``deleting``: nothing written, nothing to cast)."""
    with db_transaction.cell_writing(cctxt):
        if not servicegroup.compute_is_up(cctxt, instance.host):
            return None
        if deleting:
            return False
        # NOTE(nova_lite): the compute reads the instance again: the
        # write needs no row back.
        instance.set_task_state(task_states.DELETING)
        objects.InstanceAction.action_start(cctxt, instance.uuid, 'delete')
    return True


@db_transaction.retry_on_transient
def _forget(context, uuid):
    """What the API database holds for a deleted server, in one
    transaction: its mapping queued for delete, its group membership,
    its ports."""
    with db_transaction.api_writing(context):
        objects.InstanceMapping.queue_for_delete(context, uuid)
        group_obj.InstanceGroup.delete_member(context, uuid)
        net_compute.deallocate(context, uuid)
