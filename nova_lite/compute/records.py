"""What a compute records about instances, through its cell conductor.

A compute has no database: instance updates, faults and action events all
go to the cell conductor over RPC. :class:`InstanceRecords` wraps those
calls with the compute's conventions:

* events are best effort: an instance whose action was never started (a
  test, a periodic job) still builds; a failed event write is logged,
  never raised;
* a fault always comes with the message of the error that caused it, and
  its traceback for server-side (500) errors.
"""

import traceback as tb_lib

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.compute import vm_states
from nova_lite import exception
from nova_lite.objects import instance_fault

LOG = logging.getLogger(__name__)

_RECORD_ERRORS = (messaging.MessagingException, exception.NovaLiteException)


class InstanceRecords:
    """Instance writes of one compute host, via its cell conductor."""

    def __init__(self, conductor, host):
        self.conductor = conductor
        self.host = host

    def update(self, context, instance_uuid, values,
               expected_task_state=None, expected_vm_state=None):
        """Update the instance (raises the conductor's errors)."""
        return self.conductor.instance_update(
            context, instance_uuid, values,
            expected_task_state=expected_task_state,
            expected_vm_state=expected_vm_state)

    def event_start(self, context, instance_uuid, event):
        try:
            self.conductor.action_event_start(context, instance_uuid, event,
                                              host=self.host)
        except _RECORD_ERRORS as error:
            LOG.debug('Event %s of %s not recorded: %s', event,
                      instance_uuid, error)

    def event_finish(self, context, instance_uuid, event, error=None):
        result, trace = 'Success', None
        if error is not None:
            result = 'Error'
            trace = ''.join(tb_lib.format_exception(
                type(error), error, error.__traceback__))
        try:
            self.conductor.action_event_finish(
                context, instance_uuid, event, result=result,
                traceback=trace, details=str(error) if error else None)
        except _RECORD_ERRORS as record_error:
            LOG.debug('Event %s of %s not finished: %s', event,
                      instance_uuid, record_error)

    def fault(self, context, instance_uuid, error):
        """Record a fault for ``error`` (an exception or a message)."""
        values = instance_fault.fault_values(instance_uuid, error,
                                             host=self.host)
        try:
            self.conductor.instance_fault_create(context, values)
        except _RECORD_ERRORS as record_error:
            LOG.warning('Fault of instance %s not recorded: %s',
                        instance_uuid, record_error)

    def set_error(self, context, instance_uuid, error, clear_host=False,
                  expected_vm_state=None):
        """Fault plus vm_state ERROR, task_state None; False if the
        instance changed meanwhile (deleted, or not in the expected vm
        state)."""
        values = {'vm_state': vm_states.ERROR, 'task_state': None}
        if clear_host:
            values.update(host=None, node=None)
        try:
            self.update(context, instance_uuid, values,
                        expected_vm_state=expected_vm_state)
        except (exception.InstanceNotFound,
                exception.UnexpectedVMStateError) as changed:
            LOG.info('Instance %s not put in ERROR: %s', instance_uuid,
                     changed)
            return False
        self.fault(context, instance_uuid, error)
        LOG.info('Instance %s in ERROR: %s', instance_uuid, error)
        return True

    def set_migration_status(self, context, migration, status,
                             missing_ok=False, expected_status=None):
        """Write the migration's status; the updated Migration (or None
        when it vanished and ``missing_ok``). With ``expected_status``
        only from that status (Conflict otherwise, ``migration`` left
        as it was)."""
        try:
            updated = self.conductor.migration_update(
                context, migration.uuid, {'status': status},
                expected_status=expected_status)
            migration.status = status
            return updated
        except exception.MigrationNotFound:
            migration.status = status
            if not missing_ok:
                raise
            LOG.warning('Migration %s vanished before it became %s',
                        migration.uuid, status)
            return None

    def instance_gone(self, context, instance_uuid):
        """True when the instance was deleted or is being deleted (a move
        rolling back must then free its resources, not give them back)."""
        from nova_lite.compute import task_states
        try:
            instance = self.conductor.instance_get_by_uuid(context,
                                                           instance_uuid)
        except exception.InstanceNotFound:
            return True
        return instance.task_state == task_states.DELETING
