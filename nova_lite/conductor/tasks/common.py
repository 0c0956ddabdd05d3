"""Helpers shared by the build tasks of the conductors.

Nothing here calls the scheduler or the API database: the cell conductor
uses these too (see ARCHITECTURE.md, "Rules that keep the cells honest").
"""

from oslo_log import log as logging

from nova_lite.clients import placement as placement_client
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import conf as nl_conf
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import instance_fault as fault_obj

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

# The instance action a build records, and the super conductor's event.
CREATE_ACTION = 'create'
SCHEDULE_EVENT = 'conductor_schedule_and_build_instances'
RESCHEDULE_EVENT = 'conductor_build_instances'


def default_availability_zone():
    return CONF.default_availability_zone


def spec_value(spec, name, default=None):
    """A RequestSpec field, ``default`` when unset (objects or plain)."""
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


def delete_allocations(placement, instance_uuid):
    """Drop every allocation of the instance; a missing one is fine."""
    try:
        placement.delete_allocations(instance_uuid)
    except placement_client.PlacementNotFound:
        return
    except placement_client.PlacementClientError as exc:
        LOG.warning('Could not delete the allocations of instance %s: %s',
                    instance_uuid, exc)


def set_error_with_fault(cctxt, instance_uuid, error, host=None):
    """Put the instance in ERROR (no task) and record ``error`` as fault.

    ``error`` is an exception or a message. Returns False when the
    instance is gone (deleted meanwhile).
    """
    try:
        instance = objects.Instance.get_by_uuid(cctxt, instance_uuid)
        instance.vm_state = vm_states.ERROR
        instance.task_state = None
        instance.save()
    except exception.InstanceNotFound:
        LOG.info('Instance %s was deleted before it could be set to ERROR',
                 instance_uuid)
        return False
    fault = objects.InstanceFault(cctxt, **fault_obj.fault_values(
        instance_uuid, error, host=host or CONF.host))
    fault.create()
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
