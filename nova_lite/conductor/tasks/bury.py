"""Bury instances that could not be scheduled in cell0, in ERROR.

cell0 is a database with no computes: an instance the scheduler found no
host for lives there, so the user sees it (status ERROR, a fault with the
scheduler's explanation, a ``create`` action whose event failed) and can
delete it. The instance mapping points at cell0 before the build request
is deleted, as for any build. Each buried instance sends
``compute_task.build_instances.error`` (with the scheduler's error and the
request spec), as Nova's conductor does.
"""

import traceback

from oslo_log import log as logging

from nova_lite import cells
from nova_lite.conductor import decisions
from nova_lite.conductor.tasks import common
from nova_lite.db.cell import instance_api
from nova_lite import conf as nl_conf
from nova_lite import exception
from nova_lite import notifications
from nova_lite import objects
from nova_lite.objects import cell_mapping as cell_mapping_obj

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)


def _format_traceback(error):
    if not isinstance(error, BaseException):
        return None
    return ''.join(traceback.format_exception(type(error), error,
                                              error.__traceback__))


def _record_failed_create(cctxt, instance_uuid, error):
    objects.InstanceAction.action_start(cctxt, instance_uuid,
                                        common.CREATE_ACTION)
    # NOTE(nova_lite): the scheduler's decision (which filter removed the
    # last hosts) is kept in cell0 too; its summary is the event's details.
    summary = decisions.store(cctxt, instance_uuid,
                              decisions.attempt_of_error(error), 'boot')
    objects.InstanceActionEvent.event_start(cctxt, instance_uuid,
                                            common.SCHEDULE_EVENT)
    objects.InstanceActionEvent.event_finish(
        cctxt, instance_uuid, common.SCHEDULE_EVENT, result='Error',
        traceback=_format_traceback(error), details=summary)
    objects.InstanceAction.action_finish(cctxt, instance_uuid)


def bury_one(context, cell0, build_request, error):
    """Create the instance in cell0 in ERROR with ``error`` as its fault."""
    uuid = build_request.instance_uuid
    mapping = objects.InstanceMapping.get_by_instance_uuid(context, uuid)
    if mapping.cell_mapping is not None:
        LOG.error('Instance %s is already mapped to cell %s; not burying it',
                  uuid, mapping.cell_mapping.identity)
        return
    with cells.target_cell(context, cell0) as cctxt:
        # NOTE(nova_lite): created as it was (BUILDING, scheduling);
        # set_error_with_fault puts it in ERROR once its fault is written,
        # so the instance is never seen in ERROR without one.
        values = common.instance_values_for_cell(build_request)
        try:
            # NOTE(nova_lite): the stored one keeps sub-second precision.
            values['created_at'] = objects.BuildRequest.get_by_instance_uuid(
                context, uuid).created_at
        except exception.BuildRequestNotFound:
            values['created_at'] = build_request.created_at
        instance_api.instance_create(cctxt, values)
        try:
            _record_failed_create(cctxt, uuid, error)
            common.set_error_with_fault(cctxt, uuid, error)
            mapping.cell_mapping = cell0
            mapping.save()
            build_request.destroy()
        except (exception.BuildRequestNotFound,
                exception.InstanceMappingNotFound):
            # NOTE(nova_lite): the user's delete won the race (it removes
            # the build request, then the mapping): nothing may stay in
            # cell0, or it would be an unmapped ghost counted in quota.
            LOG.info('Instance %s was deleted while it was buried; removing '
                     'it from cell0 too', uuid)
            instance_api.instance_destroy(cctxt, uuid)
            return
    LOG.warning('Instance %s buried in cell0: %s', uuid, error)


def bury_in_cell0(context, build_requests, error, request_spec=None):
    """Bury every build request (the whole request failed to schedule);
    ``request_spec``: the request's, for the notification."""
    cell0 = objects.CellMapping.get_by_uuid(context,
                                            cell_mapping_obj.CELL0_UUID)
    for build_request in build_requests:
        try:
            bury_one(context, cell0, build_request, error)
        except exception.InstanceMappingNotFound:
            LOG.info('Instance %s was deleted before it could be buried',
                     build_request.instance_uuid)
            continue
        if request_spec is not None:
            notifications.compute_task_error(
                context, 'build_instances', build_request.instance_uuid,
                request_spec, error, CONF.host)
