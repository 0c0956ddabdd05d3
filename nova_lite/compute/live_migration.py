"""Live migration on a compute: destination checks, source and dest.

The super conductor has claimed the destination for the instance and
given the source allocation to the migration consumer
(:mod:`nova_lite.conductor.tasks.live_migrate`). Then, as in Nova:

* the destination answers ``check_can_live_migrate_destination`` (a call:
  the node is served here and the driver agrees);
* the source runs ``live_migration`` (a cast): migration ``queued`` ->
  ``preparing`` (``pre_live_migration`` called on the destination) ->
  ``running`` (the driver moves the guest) -> the destination takes the
  instance over (``post_live_migration_at_destination``: host, node,
  states) -> the source forgets its guest, deletes the migration's
  allocation and marks the migration ``completed``;
* a failure before the guest moved rolls back: the migration's
  allocation goes back to the instance (replacing its destination
  claim), the destination forgets what it prepared, the migration ends
  ``error`` (preparation) or ``failed`` (the transfer), and the instance
  stays on the source with no task and a fault saying why.

Notifications as Nova sends them: ``instance.live_migration_pre.*``
(destination), ``live_migration_post.start`` (source),
``live_migration_post_dest.*`` (destination), ``live_migration_post.end``
(source); on failure ``live_migration_rollback.*`` (source) and
``live_migration_rollback_dest.*`` (destination); an abort
``live_migration_abort.*`` (source).

The driver may implement the hooks ``check_can_live_migrate_destination``,
``pre_live_migration`` and ``live_migration`` (each optional; raising
refuses or fails the step); the fake driver needs none: its guests move
through ``finish_migration`` on the destination and ``destroy`` on the
source.
"""

import threading

import oslo_messaging as messaging
from oslo_log import log as logging

from nova_lite.clients import allocation_moves
from nova_lite.clients import claim_release
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import exception
from nova_lite import notifications

LOG = logging.getLogger(__name__)

SOURCE_EVENT = 'compute_live_migration'
CHECK_EVENT = 'compute_check_can_live_migrate_destination'
PRE_EVENT = 'compute_pre_live_migration'
POST_DEST_EVENT = 'compute_post_live_migration_at_destination'
# Migration statuses in which an abort or a force-complete may still act.
IN_PROGRESS = ('queued', 'preparing', 'running')


class LiveMigrationCancelled(exception.NovaLiteException):
    msg_fmt = 'Live migration %(migration)s was aborted by an admin.'


class LiveMigrations:
    """Both ends of the live migrations of one compute host.

    The source remembers which migrations it drives, and which of them
    an admin asked to abort (a subset), under one lock: an abort stops
    its migration at the next step.

    :param compute_api: client of the other computes of this cell.
    :param placement: the placement client (the migration consumer).
    """

    def __init__(self, host, driver, records, events, allocations, tracker,
                 placement, compute_api):
        self.host = host
        self.driver = driver
        self.records = records
        self.events = events
        self.allocations = allocations
        self.tracker = tracker
        self.placement = placement
        self.compute_api = compute_api
        self._driving = set()
        self._aborted = set()
        self._lock = threading.Lock()

    # -- destination -----------------------------------------------------

    def check_can_live_migrate_destination(self, context, instance,
                                           dest_node, block_migration):
        """Can this host take ``instance`` live on ``dest_node``?
        ``Invalid`` with the reason when not; else the migrate data."""
        uuid = instance.uuid
        with self.events.step(context, uuid, CHECK_EVENT):
            if dest_node not in self.driver.get_available_nodes():
                raise exception.Invalid(
                    reason='Node %s is not served by host %s.' % (
                        dest_node, self.host))
            if self.driver.instance_exists(instance):
                raise exception.Invalid(
                    reason='Instance %s already has a guest on %s.' % (
                        uuid, self.host))
            self._driver_hook('check_can_live_migrate_destination', context,
                              instance, dest_node, block_migration)
        LOG.info('Host %s accepts the live migration of %s on %s',
                 self.host, uuid, dest_node)
        return {'dest_node': dest_node,
                'block_migration': bool(block_migration)}

    def _driver_hook(self, name, *args):
        """Call the driver's optional hook ``name``; its refusal becomes
        an ``Invalid`` with the driver's reason."""
        hook = getattr(self.driver, name, None)
        if hook is None:
            return None
        try:
            return hook(*args)
        except exception.NovaLiteException:
            raise
        except Exception as error:  # noqa: BLE001 - driver refusal
            raise exception.Invalid(reason='%s: %s' % (name, error))

    def pre_live_migration(self, context, instance, migrate_data):
        """Get ready to receive the guest (driver hook)."""
        self._notify(context, instance, 'live_migration_pre', 'start')
        with self.events.step(context, instance.uuid, PRE_EVENT):
            self._driver_hook('pre_live_migration', context, instance,
                              migrate_data)
        self._notify(context, instance, 'live_migration_pre', 'end')
        return migrate_data or {}

    def _notify(self, context, instance, action, phase):
        notifications.instance_action(context, instance, self.host, action,
                                      phase)

    def post_live_migration_at_destination(self, context, instance,
                                           migration):
        """The guest runs here now; the instance follows it."""
        uuid = instance.uuid
        node = migration.dest_node
        self._notify(context, instance, 'live_migration_post_dest', 'start')
        with self.events.step(context, uuid, POST_DEST_EVENT):
            running = instance.vm_state != vm_states.STOPPED
            self.driver.finish_migration(
                context, migration, instance, None, None, {}, False,
                self.allocations.held(uuid), power_on=running)
            if instance.vm_state == vm_states.PAUSED:
                self.driver.pause(instance)
            values = {'host': self.host, 'node': node,
                      'task_state': None,
                      'power_state': self.driver.get_info(instance).state}
            compute_node = self.tracker.get_node(node)
            if compute_node is not None:
                values['compute_id'] = compute_node.id
            moved = self.records.update(
                context, uuid, values,
                expected_task_state=[task_states.MIGRATING])
        self.tracker.refresh_usage(context, node)
        LOG.info('Instance %s now runs on %s/%s', uuid, self.host, node)
        self._notify(context, moved or instance, 'live_migration_post_dest',
                     'end')

    def rollback_live_migration_at_destination(self, context, instance):
        """Forget what was prepared for ``instance`` here."""
        self._notify(context, instance, 'live_migration_rollback_dest',
                     'start')
        if self.driver.instance_exists(instance):
            self.driver.destroy(context, instance)
            LOG.info('Removed the guest of %s left by a failed live '
                     'migration', instance.uuid)
        self._notify(context, instance, 'live_migration_rollback_dest',
                     'end')

    # -- source ------------------------------------------------------------

    def live_migration(self, context, instance, dest_host, migration,
                       migrate_data):
        """Move the guest of ``instance`` to ``dest_host`` live."""
        with self._lock:
            self._driving.add(migration.uuid)
        try:
            self._run_live_migration(context, instance, dest_host, migration,
                                     migrate_data)
        finally:
            with self._lock:
                self._driving.discard(migration.uuid)
                self._aborted.discard(migration.uuid)

    def _run_live_migration(self, context, instance, dest_host, migration,
                            migrate_data):
        outcome = _Outcome()
        try:
            with self.events.step(
                    context, instance.uuid, SOURCE_EVENT, fault=True,
                    undo=lambda error: self._roll_back(
                        context, instance, dest_host, migration, error,
                        outcome),
                    revert=outcome.instance_values,
                    expected_task_state=[task_states.MIGRATING]):
                self._transfer(context, instance, dest_host, migration,
                               migrate_data, outcome)
                outcome.status, outcome.lost = 'error', True
                self._notify(context, instance, 'live_migration_post',
                             'start')
                self.compute_api.post_live_migration_at_destination(
                    context, instance, dest_host, migration)
        except Exception:  # noqa: BLE001 - recorded, rolled back
            return
        self._clean_up_source(context, instance, dest_host, migration)
        self._notify(context, instance, 'live_migration_post', 'end')

    def _transfer(self, context, instance, dest_host, migration,
                  migrate_data, outcome):
        """queued, preparing (the destination gets ready), running (the
        driver moves the guest); an abort stops it between steps."""
        self.records.set_migration_status(
            context, migration, 'queued', missing_ok=True)
        self._check_not_aborted(migration)
        self.records.set_migration_status(
            context, migration, 'preparing', missing_ok=True)
        migrate_data = self.compute_api.pre_live_migration(
            context, instance, dest_host, migration, migrate_data)
        self._check_not_aborted(migration)
        self.records.set_migration_status(
            context, migration, 'running', missing_ok=True)
        outcome.status = 'failed'
        self._driver_hook('live_migration', context, instance, dest_host,
                          migrate_data)

    def _clean_up_source(self, context, instance, dest_host, migration):
        """The instance runs on the destination now: whatever fails here,
        the source allocation goes and the migration is completed."""
        uuid = instance.uuid
        try:
            self.driver.destroy(context, instance)
        except Exception as error:  # noqa: BLE001 - a leftover guest only
            LOG.error('Guest of %s left on %s after its live migration: %s',
                      uuid, self.host, error)
        # A failed delete is retried in the background.
        claim_release.release(self.placement, migration.uuid)
        self.records.set_migration_status(
            context, migration, 'completed', missing_ok=True)
        self.tracker.refresh_usage(context, migration.source_node)
        LOG.info('Live migration %s of %s to %s completed', migration.uuid,
                 uuid, dest_host)

    def _roll_back(self, context, instance, dest_host, migration, error,
                   outcome):
        """Give the source allocation back, undo the destination, end the
        migration (the instance stays here)."""
        uuid = instance.uuid
        self._notify(context, instance, 'live_migration_rollback', 'start')
        if outcome.lost:
            LOG.error('Instance %s: the destination %s did not take it '
                      'over: %s', uuid, dest_host, error)
        elif isinstance(error, LiveMigrationCancelled):
            outcome.status = 'cancelled'
        LOG.warning('Live migration %s of %s to %s failed: %s',
                    migration.uuid, uuid, dest_host, error)
        allocation_moves.give_back_source(
            self.placement, migration.uuid, uuid,
            instance_gone=self.records.instance_gone(context, uuid))
        try:
            self.compute_api.rollback_live_migration_at_destination(
                context, instance, dest_host, migration)
        except messaging.MessagingException as rpc_error:
            LOG.warning('Destination %s not told to roll back %s: %s',
                        dest_host, uuid, rpc_error)
        self.records.set_migration_status(
            context, migration, outcome.status, missing_ok=True)
        self._notify(context, instance, 'live_migration_rollback', 'end')

    def _check_not_aborted(self, migration):
        with self._lock:
            if migration.uuid in self._aborted:
                self._aborted.discard(migration.uuid)
                raise LiveMigrationCancelled(migration=migration.uuid)

    def live_migration_abort(self, context, instance, migration):
        """Stop the live migration before its guest moves (it stops at
        its next step: before preparing or before the transfer); ignored
        when it is not in progress here."""
        with self._lock:
            if migration.uuid not in self._driving:
                LOG.info('Abort of live migration %s of %s ignored: not in '
                         'progress on %s', migration.uuid, instance.uuid,
                         self.host)
                return
            self._aborted.add(migration.uuid)
        self._notify(context, instance, 'live_migration_abort', 'start')
        LOG.info('Abort of live migration %s of %s requested',
                 migration.uuid, instance.uuid)
        self._notify(context, instance, 'live_migration_abort', 'end')

    def live_migration_force_complete(self, context, instance, migration):
        """Finish now (the fake driver's transfers are instant, so there
        is nothing left to speed up)."""
        self._notify(context, instance, 'live_migration_force_complete',
                     'start')
        LOG.info('Force-complete of live migration %s of %s requested',
                 migration.uuid, instance.uuid)
        self._notify(context, instance, 'live_migration_force_complete',
                     'end')


class _Outcome:
    """How far a live migration got, for its rollback: the status its
    migration ends in, and whether the instance was lost on the way
    (the destination did not take it over: it ends in ERROR)."""

    def __init__(self):
        self.status = 'error'
        self.lost = False

    def instance_values(self, error):
        values = {'task_state': None}
        if self.lost:
            values['vm_state'] = vm_states.ERROR
        return values
