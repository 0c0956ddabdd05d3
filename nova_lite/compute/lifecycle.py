"""Actions on existing instances: delete, power, pause, suspend,
rescue, interface attach and detach.

The API writes the task state (``powering-off`` ...) in the cell DB and
casts here. Each action records an action event, calls the driver and
saves the new vm/power state expecting the task state the API set (or no
task, for callers that set none); a failure records a fault, clears the
task state and keeps the vm state (the bracket of
:mod:`nova_lite.instance_events`, as Nova's ``reverts_task_state``).

Each action sends Nova's notifications around it
(``instance.delete.start``, ``instance.shutdown.start/end``,
``instance.delete.end``; ``instance.power_off.start/end`` ...).

A server deleted in the middle of a move (resize, cold or live migration)
may have a migration still holding its source allocation: the delete
frees it too and ends that migration in ``error``, so nothing stays
claimed for a server that is gone.
"""

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_utils import timeutils

from nova_lite.clients import claim_release
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import exception
from nova_lite import notifications
from nova_lite.virt import power_state

LOG = logging.getLogger(__name__)

TERMINATE_EVENT = 'compute_terminate_instance'
# What a record written through the conductor may raise.
_RECORD_ERRORS = (messaging.MessagingException, exception.NovaLiteException)
# What a failed action leaves: no task, the vm state it had.
_NO_TASK = {'task_state': None}


class Lifecycle:
    """Delete and power actions on the instances of one compute host.

    :param conductor_api: the cell conductor (instance and migration
        reads, the instance's final delete).
    :param placement: the placement client (migration consumers).
    """

    def __init__(self, driver, records, events, allocations, tracker,
                 conductor_api, placement):
        self.driver = driver
        self.records = records
        self.events = events
        self.allocations = allocations
        self.tracker = tracker
        self.conductor_api = conductor_api
        self.placement = placement

    def _terminate(self, context, instance, migrations=None, started=False,
                   gone=None):
        """``migrations``: the instance's unfinished ones, read with it
        (None: read them here); ``started``: the event is started;
        ``gone``: what destroying the guest and dropping its allocation
        before did (see :meth:`terminate_instance`): None (not tried),
        True, or the error, raised in the event's bracket."""
        uuid = instance.uuid
        last = {'vm_state': vm_states.DELETED, 'task_state': None,
                'power_state': power_state.NOSTATE,
                'terminated_at': timeutils.utcnow()}
        try:
            with self.events.step(context, uuid, TERMINATE_EVENT,
                                  fault=True, revert=_NO_TASK,
                                  started=started) as step:
                if isinstance(gone, Exception):
                    raise gone
                if gone is None:
                    self._destroy_guest(context, instance)
                self._end_unfinished_migrations(context, uuid, migrations)
                usage_done = self._write_last_state(context, instance, step,
                                                    dict(last))
        except Exception as error:  # noqa: BLE001 - recorded as a fault
            _log_failure(TERMINATE_EVENT, uuid, error)
            return
        if instance.node and not usage_done:
            self.tracker.refresh_usage(context, instance.node)
        LOG.info('Instance %s deleted', uuid)
        for name, value in dict(last, deleted_at=last['terminated_at'],
                                deleted=True).items():
            setattr(instance, name, value)
        notifications.instance_action(context, instance, self.events.host,
                                      'delete', 'end')

    def _write_last_state(self, context, instance, step, values):
        """A deleted instance's last ``values``, as Nova destroys the
        instance inside the terminate event: with its soft delete, the
        event's finish and the node's usage in one conductor call (and
        transaction); whether the usage is written."""
        uuid = instance.uuid
        if not instance.node:
            self.conductor_api.terminate_finish(context, uuid, values,
                                                TERMINATE_EVENT)
            step.finished = True
            return False
        with self.tracker.usage_change(instance.node, wait=True) as usage:
            usage.written(self.conductor_api.terminate_finish(
                context, uuid, values, TERMINATE_EVENT,
                node=usage.values()))
        step.finished = True
        return usage.done

    def complete_left_over_deletes(self, context, host):
        """Finish the deletes a previous process of ``host`` received but
        did not finish (killed in the middle, or its cast lost: casts are
        acknowledged on receipt), as Nova's init_host does; the number
        finished. A terminate cast queued meanwhile then finds nothing."""
        left = self.conductor_api.instance_get_all_by_filters(
            context, {'host': host, 'task_state': task_states.DELETING})
        for instance in left:
            LOG.info('Completing the delete of instance %s left by a '
                     'previous run of %s', instance.uuid, host)
            self.terminate_instance(context, instance)
        return len(left)

    def terminate_instance(self, context, instance):
        """Destroy the guest, drop the allocations (the instance's and
        those of its unfinished migrations), delete the row.

        The guest (as the cast has the instance) is destroyed and its
        allocation dropped first, then the instance is read again with
        its event started: the claim is given back as soon as the guest
        is gone, not after a conductor call that waits behind whatever
        the conductor is busy with (a burst of deletes). A failure to
        destroy is recorded as before, in the started event's bracket,
        and the allocation is then kept.
        """
        host = self.events.host
        notifications.instance_action(context, instance, host, 'delete',
                                      'start')
        notifications.instance_action(context, instance, host, 'shutdown',
                                      'start')
        try:
            self._destroy_guest(context, instance)
            gone = True
        except Exception as error:  # noqa: BLE001 - recorded below
            gone = error
        else:
            notifications.instance_action(context, instance, host,
                                          'shutdown', 'end')
        try:
            current, migrations, started = self._read_for_terminate(
                context, instance.uuid)
        except exception.InstanceNotFound:
            # NOTE(nova_lite): a delete delivered after the start-up
            # recovery finished it (nothing was left to destroy).
            LOG.info('Instance %s is deleted already', instance.uuid)
            if gone is not True:
                _log_failure(TERMINATE_EVENT, instance.uuid, gone)
            return
        except _RECORD_ERRORS as error:
            LOG.warning('Instance %s not read before its delete (%s); '
                        'deleting it as the cast says', instance.uuid, error)
            current, migrations, started = instance, None, False
        self._terminate(context, current, migrations, started, gone=gone)

    def _destroy_guest(self, context, instance):
        self.driver.destroy(context, instance)
        self.allocations.drop(instance.uuid)

    def _read_for_terminate(self, context, uuid):
        """The instance as its cell has it now, its unfinished migrations
        and whether the terminate event is started (it is): all in one
        call."""
        current, migrations = self.conductor_api.terminate_start(
            context, uuid, TERMINATE_EVENT, self.events.host)
        return current, migrations, True

    def stop_instance(self, context, instance):
        self._power_action(
            context, instance, 'compute_stop_instance',
            lambda: self.driver.power_off(instance),
            task_states.POWERING_OFF, vm_states.STOPPED, 'power_off')

    def start_instance(self, context, instance):
        self._power_action(
            context, instance, 'compute_start_instance',
            lambda: self.driver.power_on(context, instance),
            task_states.POWERING_ON, vm_states.ACTIVE, 'power_on')

    def reboot_instance(self, context, instance, reboot_type):
        task = (task_states.REBOOTING_HARD if reboot_type == 'HARD'
                else task_states.REBOOTING)
        self._power_action(
            context, instance, 'compute_reboot_instance',
            lambda: self.driver.reboot(context, instance,
                                       reboot_type=reboot_type),
            [task, task_states.REBOOT_PENDING, task_states.REBOOT_STARTED],
            vm_states.ACTIVE, 'reboot', notify_error=True)

    def pause_instance(self, context, instance):
        self._power_action(
            context, instance, 'compute_pause_instance',
            lambda: self.driver.pause(instance),
            task_states.PAUSING, vm_states.PAUSED, 'pause')

    def unpause_instance(self, context, instance):
        self._power_action(
            context, instance, 'compute_unpause_instance',
            lambda: self.driver.unpause(instance),
            task_states.UNPAUSING, vm_states.ACTIVE, 'unpause')

    def suspend_instance(self, context, instance):
        self._power_action(
            context, instance, 'compute_suspend_instance',
            lambda: self.driver.suspend(context, instance),
            task_states.SUSPENDING, vm_states.SUSPENDED, 'suspend')

    def resume_instance(self, context, instance):
        self._power_action(
            context, instance, 'compute_resume_instance',
            lambda: self.driver.resume(context, instance),
            task_states.RESUMING, vm_states.ACTIVE, 'resume')

    def rescue_instance(self, context, instance, rescue_password,
                        rescue_image_ref=None):
        """Power off, then boot the rescue image (``rescue_image_ref``,
        else the image the server was built from) with the guest's disks
        kept; ``rescued``. As in Nova, a failure leaves the instance in
        ``error`` (its guest may be half rescued)."""
        uuid = instance.uuid
        event = 'compute_rescue_instance'
        image_ref = rescue_image_ref or instance.image_ref
        try:
            with self.events.step(context, uuid, event, fault=True,
                                  revert={'vm_state': vm_states.ERROR,
                                          'task_state': None}):
                self.driver.power_off(instance)
                self.driver.rescue(context, instance, image_ref,
                                   rescue_password)
                state = self.driver.get_info(instance).state
                self.records.update(
                    context, uuid, {'vm_state': vm_states.RESCUED,
                                    'task_state': None,
                                    'power_state': state,
                                    'launched_at': timeutils.utcnow()},
                    expected_task_state=[task_states.RESCUING])
        except Exception as error:  # noqa: BLE001 - recorded as a fault
            _log_failure(event, uuid, error)
            return
        LOG.info('Instance %s rescued from image %s', uuid, image_ref)

    def unrescue_instance(self, context, instance):
        """Boot the guest from its own disk again; ``active``."""
        uuid = instance.uuid
        event = 'compute_unrescue_instance'
        try:
            with self.events.step(context, uuid, event, fault=True,
                                  revert={'vm_state': vm_states.ERROR,
                                          'task_state': None}):
                self.driver.unrescue(context, instance)
                state = self.driver.get_info(instance).state
                self.records.update(
                    context, uuid, {'vm_state': vm_states.ACTIVE,
                                    'task_state': None,
                                    'power_state': state},
                    expected_task_state=[task_states.UNRESCUING])
        except Exception as error:  # noqa: BLE001 - recorded as a fault
            _log_failure(event, uuid, error)
            return
        LOG.info('Instance %s unrescued', uuid)

    def attach_interface(self, context, instance, port_id):
        """Plug ``port_id`` into the guest (an RPC call: the API waits,
        and gives the port back when this raises)."""
        try:
            with self.events.step(context, instance.uuid,
                                  'compute_attach_interface'):
                self.driver.attach_interface(context, instance, port_id)
        except Exception as error:
            _log_failure('compute_attach_interface', instance.uuid, error)
            raise exception.InterfaceAttachFailed(
                instance_uuid=instance.uuid, reason=error)
        LOG.info('Port %s attached to instance %s', port_id, instance.uuid)

    def detach_interface(self, context, instance, port_id):
        """Unplug ``port_id`` from the guest (an RPC call)."""
        try:
            with self.events.step(context, instance.uuid,
                                  'compute_detach_interface'):
                self.driver.detach_interface(context, instance, port_id)
        except Exception as error:
            _log_failure('compute_detach_interface', instance.uuid, error)
            raise exception.InterfaceDetachFailed(
                instance_uuid=instance.uuid, reason=error)
        LOG.info('Port %s detached from instance %s', port_id,
                 instance.uuid)

    def set_host_enabled(self, enabled):
        """(Un)set ``COMPUTE_STATUS_DISABLED`` on every node now."""
        self.tracker.set_host_enabled(enabled)
        return 'enabled' if enabled else 'disabled'

    # -- helpers ---------------------------------------------------------

    def _end_unfinished_migrations(self, context, uuid, migrations=None):
        """The deleted instance's migrations still in flight (read here
        unless given) lose what they hold in placement (the source of a
        resize or a live migration) and end ``error``. Best effort:
        logged, never raised, the delete goes on."""
        if migrations is None:
            try:
                migrations = self.conductor_api.migration_get_all_by_filters(
                    context, {'instance_uuid': uuid})
            except _RECORD_ERRORS as error:
                LOG.error('Migrations of deleted instance %s not read: %s',
                          uuid, error)
                return
        for migration in migrations:
            if not migration.is_done:
                self._end_migration(context, uuid, migration)

    def _end_migration(self, context, uuid, migration):
        claim_release.release(self.placement, migration.uuid)
        try:
            self.records.set_migration_status(context, migration,
                                              'error', missing_ok=True)
        except _RECORD_ERRORS as error:
            LOG.error('Migration %s not set to error: %s',
                      migration.uuid, error)
        LOG.info('Migration %s (%s) of instance %s ended by its delete',
                 migration.uuid, migration.migration_type, uuid)

    def _power_action(self, context, instance, event, call, task_state,
                      vm_state, action, notify_error=False):
        """``action``: the notifications' name (``instance.<action>.*``);
        ``notify_error``: a failure sends ``instance.<action>.error``
        (Nova does for a reboot)."""
        uuid = instance.uuid
        host = self.events.host
        expected = task_state if isinstance(task_state, list) else [
            task_state]
        notifications.instance_action(context, instance, host, action,
                                      'start')
        try:
            with self.events.step(context, uuid, event, fault=True,
                                  revert=_NO_TASK):
                call()
                state = self.driver.get_info(instance).state
                done = self.records.update(
                    context, uuid, {'vm_state': vm_state, 'task_state': None,
                                    'power_state': state},
                    expected_task_state=expected + [None])
        except Exception as error:  # noqa: BLE001 - recorded as a fault
            _log_failure(event, uuid, error)
            if notify_error:
                notifications.instance_action(context, instance, host,
                                              action, 'error', fault=error)
            return
        LOG.info('Instance %s: %s done (%s)', uuid, event, vm_state)
        notifications.instance_action(context, done or instance, host,
                                      action, 'end')


def _log_failure(event, uuid, error):
    LOG.warning('%s of instance %s failed: %s', event, uuid, error)
