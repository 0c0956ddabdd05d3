"""Helpers shared by the build and move tasks of the conductors.

Nothing here calls the scheduler or the API database: the cell conductor
uses these too (see ARCHITECTURE.md, "Rules that keep the cells honest").
"""

from oslo_log import log as logging

from nova_lite.clients import allocation_moves
from nova_lite.clients import claim_release
from nova_lite.clients import placement as placement_client
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import conf as nl_conf
from nova_lite.db.cell import api as cell_db
from nova_lite.db.cell import instance_api
from nova_lite import exception
from nova_lite import instance_events
from nova_lite import objects
from nova_lite.objects import instance_fault as fault_obj

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

# The instance action a build records, and the super conductor's event.
CREATE_ACTION = 'create'
SCHEDULE_EVENT = 'conductor_schedule_and_build_instances'
RESCHEDULE_EVENT = 'conductor_build_instances'


class MigrationPreCheckError(exception.Invalid):
    msg_fmt = 'Migration pre-check error: %(reason)s'


def default_availability_zone():
    return CONF.default_availability_zone


def spec_value(spec, name, default=None):
    """A field of a RequestSpec (or of one of its nested objects),
    ``default`` when there is no spec or the field is not set."""
    if spec is None:
        return default
    is_set = getattr(spec, 'obj_attr_is_set', None)
    if is_set is not None and name in getattr(spec, 'fields', {}):
        return getattr(spec, name) if is_set(name) else default
    value = getattr(spec, name, default)
    return default if value is None else value


def claim_alternate(placement, instance_uuid, selection, project_id,
                    user_id):
    """Claim ``selection``'s stored allocation request for the instance.

    True when claimed (or when the selection carries no allocation
    request, as with a scheduler that does not use placement); False when
    placement refused (capacity gone, a concurrent consumer), logged.
    """
    request = selection.allocation_request_dict()
    if not request:
        return True
    try:
        placement.put_allocations(
            instance_uuid, request.get('allocations', {}), project_id,
            user_id, consumer_generation=None)
    except placement_client.PlacementClientError as exc:
        LOG.info('Claim of instance %s on alternate %s/%s failed: %s',
                 instance_uuid, selection.service_host, selection.nodename,
                 exc)
        return False
    LOG.info('Claimed instance %s on alternate %s/%s', instance_uuid,
             selection.service_host, selection.nodename)
    return True


class CellRecords:
    """The record calls of the conductor API, answered from the cell a
    context targets: what the action bracket of
    :mod:`nova_lite.instance_events` writes from a conductor task."""

    @staticmethod
    def action_event_start(cctxt, instance_uuid, event, host=None):
        return objects.InstanceActionEvent.event_start(
            cctxt, instance_uuid, event, host=host)

    @staticmethod
    def action_event_finish(cctxt, instance_uuid, event, result='Success',
                            traceback=None, details=None):
        return objects.InstanceActionEvent.event_finish(
            cctxt, instance_uuid, event, result=result, traceback=traceback,
            details=details)

    @staticmethod
    def instance_fault_create(cctxt, values):
        fault = objects.InstanceFault(cctxt, **values)
        fault.create()
        return fault

    @staticmethod
    def instance_update(cctxt, instance_uuid, values,
                        expected_task_state=None, expected_vm_state=None):
        return instance_api.instance_update(
            cctxt, instance_uuid, values,
            expected_task_state=expected_task_state,
            expected_vm_state=expected_vm_state)


def action_events():
    """The action bracket of a conductor task (events recorded as this
    conductor's host)."""
    return instance_events.ActionEvents(CellRecords(), CONF.host)


def instance_gone(cctxt, instance_uuid):
    """True when the instance was deleted or is being deleted: a failed
    move must then free what it claimed, never give anything back."""
    try:
        instance = objects.Instance.get_by_uuid(cctxt, instance_uuid)
    except exception.InstanceNotFound:
        return True
    return instance.task_state == task_states.DELETING


def first_selection(host_lists):
    """The chosen Selection of a one-instance ``select_destinations``
    answer; NoValidHost when the scheduler answered nothing."""
    if not host_lists or not host_lists[0]:
        raise exception.NoValidHost(
            reason='the scheduler answered no destination')
    return host_lists[0][0]


def node_of_host(cctxt, host, node=None):
    """The compute node row of ``host`` (``node`` if named); a host with
    several nodes needs the node named."""
    nodes = [n for n in cell_db.compute_node_get_all(cctxt)
             if n.host == host and (node is None or
                                    n.hypervisor_hostname == node)]
    if not nodes:
        raise MigrationPreCheckError(
            reason='Compute host %s could not be found.' % host)
    if len(nodes) > 1:
        raise MigrationPreCheckError(
            reason='Host %s has %d nodes; name one to force a move there.'
            % (host, len(nodes)))
    return nodes[0]


def claim_forced_host(cctxt, placement, instance, host, source_consumer):
    """Claim for ``instance`` on the only node of ``host`` what
    ``source_consumer`` holds at the source, without the scheduler (a
    forced host, API < 2.68); the node's name.

    The claim joins what the instance consumer already holds: nothing
    for a live migration (the migration consumer holds the source), the
    source allocation for an evacuation (the instance holds both until
    the source comes back). A source spread over several providers
    cannot be copied; a node without room refuses the claim
    (MigrationPreCheckError either way, nothing written).
    """
    node = node_of_host(cctxt, host)
    held = allocation_moves.read(placement, source_consumer)
    if len(held.allocations) != 1:
        raise MigrationPreCheckError(
            reason='Forcing a host is not possible when the source '
                   'allocation spans %d providers.' % len(held.allocations))
    resources = next(iter(held.allocations.values()))['resources']
    try:
        allocation_moves.add_allocation(
            placement, instance.uuid,
            {node.uuid: {'resources': dict(resources)}},
            instance.project_id, instance.user_id)
    except placement_client.PlacementClientError as error:
        raise MigrationPreCheckError(
            reason='Unable to claim the resources of %s on %s: %s' % (
                instance.uuid, node.hypervisor_hostname, error))
    LOG.info('Claimed instance %s on forced host %s/%s', instance.uuid,
             host, node.hypervisor_hostname)
    return node.hypervisor_hostname


def delete_allocations(placement, instance_uuid):
    """Drop every allocation of the instance; a missing one is fine, a
    failed delete is retried in the background
    (:mod:`nova_lite.clients.claim_release`). True when there was one."""
    return claim_release.release(placement, instance_uuid)


def set_error_with_fault(cctxt, instance_uuid, error, host=None):
    """Put the instance in ERROR (no task) and record ``error`` as fault.

    ``error`` is an exception or a message. Returns False when the
    instance is gone (deleted meanwhile).
    """
    # NOTE(nova_lite): the fault is written before the state, so that no
    # reader (a listing, a client polling) ever sees the instance in
    # ERROR without the fault that says why.
    try:
        instance = objects.Instance.get_by_uuid(cctxt, instance_uuid)
        fault = objects.InstanceFault(cctxt, **fault_obj.fault_values(
            instance_uuid, error, host=host or CONF.host))
        fault.create()
        instance.vm_state = vm_states.ERROR
        instance.task_state = None
        instance.save()
    except exception.InstanceNotFound:
        LOG.info('Instance %s was deleted before it could be set to ERROR',
                 instance_uuid)
        return False
    LOG.warning('Instance %s is in ERROR: %s', instance_uuid,
                fault.message)
    return True


def instance_values_for_cell(build_request, selection=None):
    """Column values of the instance to create from its build request."""
    values = dict(build_request.instance)
    values['uuid'] = build_request.instance_uuid
    values['vm_state'] = vm_states.BUILDING
    values['task_state'] = task_states.SCHEDULING
    if selection is not None:
        values['availability_zone'] = (
            getattr(selection, 'availability_zone', None)
            or values.get('availability_zone')
            or default_availability_zone())
    return values
