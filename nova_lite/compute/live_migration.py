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
from nova_lite.clients import placement as placement_client
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import exception

LOG = logging.getLogger(__name__)

SOURCE_EVENT = 'compute_live_migration'
CHECK_EVENT = 'compute_check_can_live_migrate_destination'
PRE_EVENT = 'compute_pre_live_migration'
POST_DEST_EVENT = 'compute_post_live_migration_at_destination'
# Migration statuses in which an abort or a force-complete may still act.
IN_PROGRESS = ('queued', 'preparing', 'running')


class LiveMigrationCancelled(exception.NovaLiteException):
    msg_fmt = 'Live migration %(migration)s was aborted by an admin.'


class LiveMigrationMixin:
    """Part of :class:`nova_lite.compute.manager.ComputeManager`."""

    # Uuids of the live migrations this source drives, and of those an
    # admin asked to abort (a subset), guarded by the lock.
    _live_migrations_here = None
    _aborted_live_migrations = None
    _aborted_lock = threading.Lock()

    def _peer_compute_api(self):
        """Client of the other computes of this cell (this bus)."""
        return compute_rpcapi.ComputeAPI(transport=self.transport)

    # -- destination -----------------------------------------------------

    @messaging.expected_exceptions(exception.NovaLiteException)
    def check_can_live_migrate_destination(self, context, instance,
                                           dest_node, migration,
                                           block_migration=None):
        """Call: can this host take ``instance`` live on ``dest_node``?
        ``Invalid`` with the reason when not; else the migrate data."""
        uuid = instance.uuid
        self.records.event_start(context, uuid, CHECK_EVENT)
        try:
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
        except Exception as error:
            self.records.event_finish(context, uuid, CHECK_EVENT,
                                      error=error)
            raise
        self.records.event_finish(context, uuid, CHECK_EVENT)
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

    @messaging.expected_exceptions(exception.NovaLiteException)
    def pre_live_migration(self, context, instance, migration,
                           migrate_data=None):
        """Call: get ready to receive the guest (driver hook)."""
        uuid = instance.uuid
        self.records.event_start(context, uuid, PRE_EVENT)
        try:
            self._driver_hook('pre_live_migration', context, instance,
                              migrate_data)
        except Exception as error:
            self.records.event_finish(context, uuid, PRE_EVENT, error=error)
            raise
        self.records.event_finish(context, uuid, PRE_EVENT)
        return migrate_data or {}

    @messaging.expected_exceptions(exception.NovaLiteException)
    def post_live_migration_at_destination(self, context, instance,
                                           migration):
        """Call: the guest runs here now; the instance follows it."""
        uuid = instance.uuid
        node = migration.dest_node
        self.records.event_start(context, uuid, POST_DEST_EVENT)
        try:
            allocations = self._instance_allocations(uuid)
            running = instance.vm_state != vm_states.STOPPED
            self.driver.finish_migration(
                context, migration, instance, None, None, {}, False,
                allocations, power_on=running)
            if instance.vm_state == vm_states.PAUSED:
                self.driver.pause(instance)
            values = {'host': self.host, 'node': node,
                      'task_state': None,
                      'power_state': self.driver.get_info(instance).state}
            compute_node = self.rt.get_node(node)
            if compute_node is not None:
                values['compute_id'] = compute_node.id
            self.records.update(
                context, uuid, values,
                expected_task_state=[task_states.MIGRATING])
        except Exception as error:
            self.records.event_finish(context, uuid, POST_DEST_EVENT,
                                      error=error)
            raise
        self.records.event_finish(context, uuid, POST_DEST_EVENT)
        self.rt.refresh_usage(context, node)
        LOG.info('Instance %s now runs on %s/%s', uuid, self.host, node)

    def rollback_live_migration_at_destination(self, context, instance,
                                               migration):
        """Cast: forget what was prepared for ``instance`` here."""
        if self.driver.instance_exists(instance):
            self.driver.destroy(context, instance)
            LOG.info('Removed the guest of %s left by a failed live '
                     'migration', instance.uuid)

    def _instance_allocations(self, uuid):
        try:
            answer = self.reportclient.get_allocations(uuid)
        except placement_client.PlacementClientError as error:
            LOG.warning('Allocations of %s unreadable: %s', uuid, error)
            return {}
        return {rp: {'resources': dict(entry['resources'])}
                for rp, entry in (answer.get('allocations') or {}).items()}

    # -- source ------------------------------------------------------------

    def live_migration(self, context, instance, dest_host, migration,
                       migrate_data=None):
        """Cast: move the guest of ``instance`` to ``dest_host`` live."""
        self._track_live_migration(migration.uuid)
        try:
            self._run_live_migration(context, instance, dest_host, migration,
                                     migrate_data)
        finally:
            self._untrack_live_migration(migration.uuid)

    def _run_live_migration(self, context, instance, dest_host, migration,
                            migrate_data):
        uuid = instance.uuid
        self.records.event_start(context, uuid, SOURCE_EVENT)
        peers = self._peer_compute_api()
        status = 'error'
        try:
            self.records.set_migration_status(
                context, migration, 'queued', missing_ok=True)
            self._check_not_aborted(migration)
            self.records.set_migration_status(
                context, migration, 'preparing', missing_ok=True)
            migrate_data = peers.pre_live_migration(
                context, instance, dest_host, migration, migrate_data)
            self._check_not_aborted(migration)
            self.records.set_migration_status(
                context, migration, 'running', missing_ok=True)
            status = 'failed'
            self._driver_hook('live_migration', context, instance,
                              dest_host, migrate_data)
        except Exception as error:  # noqa: BLE001 - rolled back
            if isinstance(error, LiveMigrationCancelled):
                status = 'cancelled'
            self._rollback_live_migration(context, instance, dest_host,
                                          migration, error, status)
            return
        self._post_live_migration(context, instance, dest_host, migration,
                                  peers)

    def _post_live_migration(self, context, instance, dest_host, migration,
                             peers):
        uuid = instance.uuid
        try:
            peers.post_live_migration_at_destination(context, instance,
                                                     dest_host, migration)
        except Exception as error:  # noqa: BLE001 - the instance is lost
            LOG.error('Instance %s: the destination %s did not take it '
                      'over: %s', uuid, dest_host, error)
            self._rollback_live_migration(context, instance, dest_host,
                                          migration, error, 'error',
                                          vm_state=vm_states.ERROR)
            return
        # The instance runs on the destination now: whatever fails below,
        # the source allocation goes and the migration is completed.
        try:
            self.driver.destroy(context, instance)
        except Exception as error:  # noqa: BLE001 - a leftover guest only
            LOG.error('Guest of %s left on %s after its live migration: %s',
                      uuid, self.host, error)
        try:
            allocation_moves.delete_allocation(self.placement_client,
                                               migration.uuid)
        except placement_client.PlacementClientError as error:
            LOG.error('Source allocation of live migration %s not deleted:'
                      ' %s', migration.uuid, error)
        self.records.set_migration_status(
            context, migration, 'completed', missing_ok=True)
        self.records.event_finish(context, uuid, SOURCE_EVENT)
        self.rt.refresh_usage(context, migration.source_node)
        LOG.info('Live migration %s of %s to %s completed', migration.uuid,
                 uuid, dest_host)

    def _rollback_live_migration(self, context, instance, dest_host,
                                 migration, error, status, vm_state=None):
        """Give the source allocation back, undo the destination, record
        the failure (the instance stays here)."""
        uuid = instance.uuid
        LOG.warning('Live migration %s of %s to %s failed: %s',
                    migration.uuid, uuid, dest_host, error)
        allocation_moves.give_back_source(
            self.placement_client, migration.uuid, uuid,
            instance_gone=self.records.instance_gone(context, uuid))
        try:
            self._peer_compute_api().rollback_live_migration_at_destination(
                context, instance, dest_host, migration)
        except messaging.MessagingException as rpc_error:
            LOG.warning('Destination %s not told to roll back %s: %s',
                        dest_host, uuid, rpc_error)
        self.records.set_migration_status(
            context, migration, status, missing_ok=True)
        self.records.event_finish(context, uuid, SOURCE_EVENT, error=error)
        values = {'task_state': None}
        if vm_state is not None:
            values['vm_state'] = vm_state
        try:
            self.records.update(context, uuid, values,
                                expected_task_state=[task_states.MIGRATING])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError) as changed:
            LOG.info('Instance %s changed during its failed live migration:'
                     ' %s', uuid, changed)
            return
        self.records.fault(context, uuid, error)

    def _track_live_migration(self, migration_uuid):
        """This source drives ``migration_uuid`` now (abortable)."""
        with self._aborted_lock:
            if self._live_migrations_here is None:
                self._live_migrations_here = set()
            self._live_migrations_here.add(migration_uuid)

    def _untrack_live_migration(self, migration_uuid):
        """The migration ended: a late abort has nothing to stop."""
        with self._aborted_lock:
            self._live_migrations_here.discard(migration_uuid)
            if self._aborted_live_migrations:
                self._aborted_live_migrations.discard(migration_uuid)

    def _check_not_aborted(self, migration):
        with self._aborted_lock:
            aborted = self._aborted_live_migrations or set()
            if migration.uuid in aborted:
                aborted.discard(migration.uuid)
                raise LiveMigrationCancelled(migration=migration.uuid)

    def live_migration_abort(self, context, instance, migration):
        """Cast: stop the live migration before its guest moves (it
        stops at its next step: before preparing or before the
        transfer); ignored when it is not in progress here."""
        with self._aborted_lock:
            if migration.uuid not in (self._live_migrations_here or ()):
                LOG.info('Abort of live migration %s of %s ignored: not in '
                         'progress on %s', migration.uuid, instance.uuid,
                         self.host)
                return
            if self._aborted_live_migrations is None:
                self._aborted_live_migrations = set()
            self._aborted_live_migrations.add(migration.uuid)
        LOG.info('Abort of live migration %s of %s requested',
                 migration.uuid, instance.uuid)

    def live_migration_force_complete(self, context, instance, migration):
        """Cast: finish now (the fake driver's transfers are instant, so
        there is nothing left to speed up)."""
        LOG.info('Force-complete of live migration %s of %s requested',
                 migration.uuid, instance.uuid)
