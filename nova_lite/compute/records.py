"""What a compute records about instances, through its cell conductor.

A compute has no database: instance and migration updates go to the cell
conductor over RPC. :class:`InstanceRecords` wraps those calls with the
compute's conventions (what "the instance changed meanwhile" means, and
the fault that goes with ERROR). Action events, and the fault of a failed
step, are recorded by the one bracket of :mod:`nova_lite.instance_events`.
"""

from oslo_log import log as logging

from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import exception
from nova_lite import instance_events

LOG = logging.getLogger(__name__)


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
        instance_events.record_fault(self.conductor, context, instance_uuid,
                                     error, host=self.host)
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
        try:
            instance = self.conductor.instance_get_by_uuid(context,
                                                           instance_uuid)
        except exception.InstanceNotFound:
            return True
        return instance.task_state == task_states.DELETING
