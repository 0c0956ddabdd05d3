"""Server side of the compute RPC API: one compute host and its nodes.

A compute has no database: everything persistent goes through its cell
conductor (``self.conductor_api``, on the compute's own bus); resources go
to placement through the report client. :class:`ComputeManager` is only
the RPC endpoint and the owner of the periodic tasks: each message is
handed to the object of its concern, built in :meth:`init_host` with the
collaborators it uses, and nothing else:

* :class:`~nova_lite.compute.build.Builds`: ``build_and_run_instance``
  and its outcomes (success, abort, reschedule);
* :class:`~nova_lite.compute.lifecycle.Lifecycle`: delete, power, pause,
  suspend, ``set_host_enabled``;
* :class:`~nova_lite.compute.resize.Resizes`: cold migrate and resize,
  confirm and revert;
* :class:`~nova_lite.compute.live_migration.LiveMigrations`: live
  migration, source and destination sides;
* :class:`~nova_lite.compute.rebuild.Rebuilds`: rebuild and evacuate,
  and cleaning up instances evacuated while this host was down;
* :class:`~nova_lite.compute.shelve.Shelving`: shelve, shelve offload,
  unshelve;
* :class:`~nova_lite.compute.snapshot.Snapshots`: ``snapshot_instance``
  (createImage) and ``backup_instance`` (createBackup).

They share, as objects each is given: the driver, the host's
:class:`~nova_lite.compute.records.InstanceRecords`, the action bracket
(:class:`nova_lite.instance_events.ActionEvents`), the instances'
allocations (:class:`~nova_lite.compute.allocations.
InstanceAllocations`), the resource tracker (``compute_nodes`` rows and
provider trees, run at start and periodically from here) and the RPC
clients of the conductor and the other computes.
:mod:`nova_lite.compute.stale_builds` fails builds left over or hung.
"""

import threading
import time

import oslo_messaging as messaging
from oslo_log import log as logging
from oslo_service import periodic_task

from nova_lite import baserpc
from nova_lite.clients import placement as placement_client
from nova_lite.clients import report
from nova_lite.compute import allocations
from nova_lite.compute import build
from nova_lite.compute import conductor_retry
from nova_lite.compute import deferred_delete
from nova_lite.compute import guest_info
from nova_lite.compute import interrupted_builds
from nova_lite.compute import lifecycle
from nova_lite.compute import live_migration
from nova_lite.compute import rebuild
from nova_lite.compute import records
from nova_lite.compute import resize
from nova_lite.compute import resource_tracker
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute import shelve
from nova_lite.compute import snapshot
from nova_lite.compute import stale_builds
from nova_lite.compute import usage_audit
from nova_lite.conductor import compute_task_rpcapi
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import instance_events
from nova_lite import manager
from nova_lite import notifications
from nova_lite.virt import driver as virt_driver

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

# Seconds between two build-timeout checks at most.
BUILD_TIMEOUT_CHECK_MAX = 60


class ComputeManager(manager.Manager):
    """Compute endpoint (API version 1.0)."""

    target = messaging.Target(version='1.0')

    def __init__(self, host=None, driver=None, placement=None):
        super().__init__(host=host)
        self._conductor_api = None
        self.driver = driver
        # NOTE(nova_lite): tests set this (an in-process PlacementClient)
        # before the service starts; otherwise [placement] decides.
        self.placement_client = placement
        self.reportclient = None
        self.rt = None
        self.records = None
        # One object per concern, built by init_host.
        self.builds = None
        self.lifecycle = None
        self.resizes = None
        self.live_migrations = None
        self.rebuilds = None
        self.shelving = None
        self.guest_info = None
        self.deferred_deletes = None
        self.snapshots = None
        self.interrupted = None

    @property
    def conductor_api(self):
        """Client of this compute's cell conductor."""
        if self._conductor_api is None:
            self._conductor_api = conductor_rpcapi.ConductorAPI(
                transport=self.transport)
        return self._conductor_api

    # -- service hooks -------------------------------------------------------

    def init_host(self):
        """Load and start the driver (a bad configuration stops here),
        then build the objects the messages go to."""
        if self.driver is None:
            self.driver = virt_driver.load_driver()
        self.driver.init_host(self.host)
        client = (self.placement_client or
                  placement_client.PlacementClient())
        self.placement_client = client
        self.reportclient = report.ReportClient(client)
        self.records = records.InstanceRecords(self.conductor_api,
                                               self.host)
        self.rt = resource_tracker.ResourceTracker(
            self.host, self.driver, self.reportclient, self.conductor_api)
        self._build_concerns()

    def _notify_exception(self, context, error):
        notifications.compute_exception(context, error, self.host)

    def _build_concerns(self):
        shared = dict(
            driver=self.driver, records=self.records,
            events=instance_events.ActionEvents(
                self.conductor_api, self.host,
                on_failure=self._notify_exception),
            tracker=self.rt)
        held = allocations.InstanceAllocations(self.reportclient)
        peers = compute_rpcapi.ComputeAPI(transport=self.transport)
        task_api = compute_task_rpcapi.ComputeTaskAPI(
            transport=self.transport)
        # NOTE(nova_lite): a build's records are retried through a
        # conductor restart (conductor_retry); its events stay best effort.
        build_shared = dict(shared, records=records.InstanceRecords(
            conductor_retry.RetryingConductor(self.conductor_api),
            self.host))
        self.builds = build.Builds(
            host=self.host, allocations=held, task_api=task_api,
            max_builds=CONF.compute.max_concurrent_builds, **build_shared)
        self.lifecycle = lifecycle.Lifecycle(
            allocations=held, conductor_api=self.conductor_api,
            placement=self.placement_client, **shared)
        self.resizes = resize.Resizes(
            host=self.host, conductor_api=self.conductor_api,
            placement=self.placement_client, compute_api=peers,
            task_api=task_api, **shared)
        self.live_migrations = live_migration.LiveMigrations(
            host=self.host, allocations=held,
            placement=self.placement_client, compute_api=peers, **shared)
        self.rebuilds = rebuild.Rebuilds(
            host=self.host, allocations=held,
            conductor_api=self.conductor_api,
            placement=self.placement_client, **shared)
        self.shelving = shelve.Shelving(
            host=self.host, allocations=held,
            conductor_api=self.conductor_api, **shared)
        self.guest_info = guest_info.GuestInfo(
            self.driver, self.records, shared['events'], self.conductor_api)
        self.deferred_deletes = deferred_delete.DeferredDeletes(
            self.host, self.driver, self.records, shared['events'],
            self.conductor_api, self.lifecycle)
        self.snapshots = snapshot.Snapshots(host=self.host, **shared)
        self._peers = peers
        self.interrupted = interrupted_builds.InterruptedBuilds(
            self.host, self.records, self.conductor_api,
            self.placement_client, held, self.builds)

    def pre_start_hook(self):
        """Before consuming, as Nova's init_host: clean up instances
        evacuated while down, report the nodes, then fail the builds a
        previous run left (a build cast that arrives now waits in the
        queue, and is not taken for a left-over) and finish the deletes
        it left."""
        context = nl_context.get_admin_context()
        try:
            self.destroy_evacuated_instances(context)
        except Exception as error:  # noqa: BLE001 - conductor down
            LOG.warning('Evacuated instances of %s not cleaned up: %s',
                        self.host, error)
        self.update_available_resource(context, startup=True)
        try:
            stale_builds.fail_left_over_builds(
                self.records, self.conductor_api, context, self.host,
                release=self.builds.release)
        except Exception as error:  # noqa: BLE001 - conductor down
            LOG.warning('Left-over builds of %s not checked: %s',
                        self.host, error)
        try:
            self.interrupted.find(context, [
                node.uuid for node in self.rt.compute_nodes.values()])
        except Exception as error:  # noqa: BLE001 - placement or conductor
            LOG.warning('Builds of %s interrupted before they started not '
                        'looked for: %s', self.host, error)
        try:
            self.lifecycle.complete_left_over_deletes(context, self.host)
        except Exception as error:  # noqa: BLE001 - conductor down
            LOG.warning('Left-over deletes of %s not completed: %s',
                        self.host, error)
        self._last_run['resources'] = time.monotonic()

    def post_start_hook(self):
        """Consuming: judge the builds a previous process took and lost,
        once every build queued before this start was received."""
        if self.interrupted is not None and self.interrupted.suspects:
            threading.Thread(target=self._check_interrupted_builds,
                             name='interrupted-builds', daemon=True).start()

    def _check_interrupted_builds(self):
        context = nl_context.get_admin_context()
        try:
            # A call to itself, over its own queue: answered after every
            # message queued before it was received.
            baserpc.BaseAPI(compute_rpcapi.RPC_TOPIC,
                            transport=self.transport).ping(
                context, interrupted_builds.PING_ARG, server=self.host)
            self.interrupted.check(context)
        except Exception as error:  # noqa: BLE001 - the reaper remains
            LOG.warning('Builds of %s interrupted before they started not '
                        'checked: %s', self.host, error)

    def drain(self, timeout):
        """Graceful stop: the queued builds finish within ``timeout``;
        those that did not start by then go back to this host's queue."""
        if self.interrupted is not None:
            self.interrupted.stopping.set()
        if self.builds is not None:
            self.builds.drain(timeout, self._hand_back_build)

    def _hand_back_build(self, context, instance, node, request_spec,
                         host_list, image):
        self._peers.build_and_run_instance(
            context, instance, self.host, node, request_spec=request_spec,
            host_list=host_list, image=image)

    def cleanup_host(self):
        if self.builds is not None:
            self.builds.stop()
        if self.driver is not None:
            self.driver.cleanup_host(self.host)

    # -- builds --------------------------------------------------------------

    def build_and_run_instance(self, context, instance, node,
                               request_spec=None, host_list=None,
                               image=None, **kwargs):
        """Cast: build ``instance`` on ``node`` of this host (queued)."""
        self.builds.build_and_run_instance(context, instance, node,
                                           request_spec, host_list, image)

    @property
    def builds_in_flight(self):
        """How many builds are queued or running here (0 before start)."""
        return self.builds.in_flight if self.builds is not None else 0

    def wait_for_builds(self, timeout=None):
        """Block until no build is queued or running (tests, benchmarks);
        False if some still are after ``timeout`` seconds."""
        return self.builds.wait(timeout)

    # -- lifecycle -----------------------------------------------------------

    def terminate_instance(self, context, instance):
        """Cast: destroy the guest, drop the allocations (the instance's
        and those of its unfinished migrations), delete the row."""
        self.lifecycle.terminate_instance(context, instance)

    def stop_instance(self, context, instance, clean_shutdown=True):
        """Cast: power the guest off (vm state ``stopped``)."""
        self.lifecycle.stop_instance(context, instance)

    def start_instance(self, context, instance):
        """Cast: power a stopped guest on (vm state ``active``)."""
        self.lifecycle.start_instance(context, instance)

    def reboot_instance(self, context, instance, reboot_type='SOFT'):
        """Cast: reboot the guest (``SOFT`` or ``HARD``)."""
        self.lifecycle.reboot_instance(context, instance, reboot_type)

    def pause_instance(self, context, instance):
        """Cast: pause the guest in memory."""
        self.lifecycle.pause_instance(context, instance)

    def unpause_instance(self, context, instance):
        """Cast: resume a paused guest."""
        self.lifecycle.unpause_instance(context, instance)

    def suspend_instance(self, context, instance):
        """Cast: save the guest's memory to disk."""
        self.lifecycle.suspend_instance(context, instance)

    def resume_instance(self, context, instance):
        """Cast: restore a suspended guest."""
        self.lifecycle.resume_instance(context, instance)

    def rescue_instance(self, context, instance, rescue_password,
                        rescue_image_ref=None, clean_shutdown=True):
        """Cast: power the guest off and boot it from the rescue image
        (vm state ``rescued``)."""
        self.lifecycle.rescue_instance(context, instance, rescue_password,
                                       rescue_image_ref)

    def unrescue_instance(self, context, instance):
        """Cast: boot the guest from its own disk again (``active``)."""
        self.lifecycle.unrescue_instance(context, instance)

    @messaging.expected_exceptions(exception.NovaLiteException)
    def attach_interface(self, context, instance, port_id):
        """Call: plug a port into the guest."""
        self.lifecycle.attach_interface(context, instance, port_id)

    @messaging.expected_exceptions(exception.NovaLiteException)
    def detach_interface(self, context, instance, port_id):
        """Call: unplug a port from the guest."""
        self.lifecycle.detach_interface(context, instance, port_id)

    def set_host_enabled(self, context, enabled):
        """Call: (un)set ``COMPUTE_STATUS_DISABLED`` on every node now."""
        return self.lifecycle.set_host_enabled(enabled)

    # -- resize and cold migrate ---------------------------------------------

    def prep_resize(self, context, instance, flavor, migration, node,
                    request_spec=None, host_list=None, clean_shutdown=True):
        """Cast (destination): check this host can take the instance."""
        self.resizes.prep_resize(context, instance, flavor, migration, node,
                                 request_spec, host_list, clean_shutdown)

    def resize_instance(self, context, instance, flavor, migration,
                        clean_shutdown=True):
        """Cast (source): stop and ship the guest."""
        self.resizes.resize_instance(context, instance, flavor, migration,
                                     clean_shutdown)

    def finish_resize(self, context, instance, flavor, migration,
                      disk_info=None):
        """Cast (destination): create the guest; VERIFY_RESIZE."""
        self.resizes.finish_resize(context, instance, flavor, migration,
                                   disk_info)

    def confirm_resize(self, context, instance, migration):
        """Cast or call (source): drop the source guest and allocation."""
        self.resizes.confirm_resize(context, instance, migration)

    def revert_resize(self, context, instance, migration):
        """Cast (destination): destroy the new guest."""
        self.resizes.revert_resize(context, instance, migration)

    def finish_revert_resize(self, context, instance, migration):
        """Cast (source): the old guest and allocation back."""
        self.resizes.finish_revert_resize(context, instance, migration)

    # -- live migration ------------------------------------------------------

    @messaging.expected_exceptions(exception.NovaLiteException)
    def check_can_live_migrate_destination(self, context, instance,
                                           dest_node, migration,
                                           block_migration=None):
        """Call (destination): ``Invalid`` when it cannot take it."""
        return self.live_migrations.check_can_live_migrate_destination(
            context, instance, dest_node, block_migration)

    @messaging.expected_exceptions(exception.NovaLiteException)
    def pre_live_migration(self, context, instance, migration,
                           migrate_data=None):
        """Call (destination): get ready to receive the guest."""
        return self.live_migrations.pre_live_migration(context, instance,
                                                       migrate_data)

    @messaging.expected_exceptions(exception.NovaLiteException)
    def post_live_migration_at_destination(self, context, instance,
                                           migration):
        """Call (destination): the instance follows its guest here."""
        self.live_migrations.post_live_migration_at_destination(
            context, instance, migration)

    def rollback_live_migration_at_destination(self, context, instance,
                                               migration):
        """Cast (destination): forget what was prepared."""
        self.live_migrations.rollback_live_migration_at_destination(
            context, instance)

    def live_migration(self, context, instance, dest_host, migration,
                       migrate_data=None):
        """Cast (source): move the guest live to ``dest_host``."""
        self.live_migrations.live_migration(context, instance, dest_host,
                                            migration, migrate_data)

    def live_migration_abort(self, context, instance, migration):
        """Cast (source): stop the migration before its guest moves."""
        self.live_migrations.live_migration_abort(context, instance,
                                                  migration)

    def live_migration_force_complete(self, context, instance, migration):
        """Cast (source): finish now."""
        self.live_migrations.live_migration_force_complete(
            context, instance, migration)

    # -- rebuild and evacuate ------------------------------------------------

    def rebuild_instance(self, context, instance, image, recreate=False,
                         migration=None, node=None, admin_password=None,
                         preserve_ephemeral=False, target_state=None):
        """Cast: rebuild in place, or re-create an evacuated instance."""
        self.rebuilds.rebuild_instance(context, instance, image, recreate,
                                       migration, node, target_state)

    def destroy_evacuated_instances(self, context):
        """Clean up the instances evacuated away while this host was
        down; their uuids."""
        return self.rebuilds.destroy_evacuated_instances(context)

    # -- shelve --------------------------------------------------------------

    def shelve_instance(self, context, instance, clean_shutdown=True,
                        image_id=None):
        """Cast: power off, snapshot into ``image_id``, record the
        shelve, offload if configured."""
        self.shelving.shelve_instance(context, instance, image_id)

    def snapshot_instance(self, context, image_id, instance):
        """Cast: store the guest as image ``image_id`` (the API set
        task_state image_snapshot)."""
        self.snapshots.snapshot_instance(context, image_id, instance)

    def backup_instance(self, context, image_id, instance, backup_type,
                        rotation):
        """Cast: a snapshot into ``image_id`` (task_state
        image_backup), then the rotation of the older backups."""
        self.snapshots.backup_instance(context, image_id, instance,
                                       backup_type, rotation)

    def shelve_offload_instance(self, context, instance,
                                clean_shutdown=True):
        """Cast: offload a shelved instance (task shelving_offloading)."""
        self.shelving.offload(context, instance)

    def unshelve_instance(self, context, instance, node=None,
                          request_spec=None, image=None):
        """Cast: power on the guest kept here, or spawn the offloaded
        instance on ``node`` (claimed by the scheduler)."""
        self.shelving.unshelve_instance(context, instance, node, image)

    def offload_expired_shelved_instances(self, context):
        """Offload what was shelved longer than ``shelved_offload_time``
        seconds; how many were."""
        return self.shelving.offload_expired_shelved_instances(context)

    # -- diagnostics, external events, soft delete --------------------------

    @messaging.expected_exceptions(exception.NovaLiteException)
    def get_diagnostics(self, context, instance):
        """Call: the guest's free-form diagnostics."""
        return self.guest_info.get_diagnostics(instance)

    @messaging.expected_exceptions(exception.NovaLiteException)
    def get_instance_diagnostics(self, context, instance):
        """Call: the guest's 2.48 diagnostics."""
        return self.guest_info.get_instance_diagnostics(instance)

    def external_instance_event(self, context, events):
        """Cast: events from other services (power-update...)."""
        self.guest_info.external_instance_event(context, events)

    def soft_delete_instance(self, context, instance):
        """Cast: power off and keep (SOFT_DELETED)."""
        self.deferred_deletes.soft_delete_instance(context, instance)

    def restore_instance(self, context, instance):
        """Cast: bring a soft-deleted instance back (ACTIVE)."""
        self.deferred_deletes.restore_instance(context, instance)

    def reclaim_queued_deletes(self, context):
        """Delete the instances soft-deleted longer than
        ``reclaim_instance_interval`` seconds; how many were."""
        interval = CONF.reclaim_instance_interval
        if interval <= 0:
            return 0
        return self.deferred_deletes.reclaim_queued_deletes(context,
                                                            interval)

    # -- periodic tasks ------------------------------------------------------

    def update_available_resource(self, context, startup=False):
        """Refresh nodes and provider trees now (see the tracker)."""
        return self.rt.update_available_resource(context, startup=startup)

    @periodic_task.periodic_task(spacing=1)
    def _periodic_update_resources(self, context):
        interval = (CONF.compute.update_resources_interval or
                    periodic_task.DEFAULT_INTERVAL)
        if self._due('resources', interval):
            self.update_available_resource(context)

    @periodic_task.periodic_task(spacing=1)
    def _periodic_check_build_timeouts(self, context):
        timeout = CONF.compute.instance_build_timeout
        if not timeout:
            return
        if self._due('build_timeouts',
                     min(timeout, BUILD_TIMEOUT_CHECK_MAX)):
            stale_builds.fail_timed_out_builds(
                self.records, self.conductor_api, context, self.host,
                timeout, release=self.builds.release)

    @periodic_task.periodic_task(spacing=1)
    def _periodic_confirm_resizes(self, context):
        self._poll_unconfirmed_resizes(context)

    def _poll_unconfirmed_resizes(self, context):
        """Confirm the resizes finished here more than
        ``resize_confirm_window`` seconds ago (0: never), when due."""
        window = CONF.resize_confirm_window
        if not window or not self._due(
                'unconfirmed_resizes', min(window, resize.CONFIRM_CHECK_MAX)):
            return 0
        return self.resizes.confirm_unconfirmed(context, window)

    @periodic_task.periodic_task(spacing=1)
    def _periodic_offload_shelved(self, context):
        interval = CONF.shelved_offload_time
        if interval > 0 and self._due(
                'offload_shelved', min(interval, shelve.OFFLOAD_CHECK_MAX)):
            self.offload_expired_shelved_instances(context)

    @periodic_task.periodic_task(spacing=1)
    def _periodic_reclaim_queued_deletes(self, context):
        interval = CONF.reclaim_instance_interval
        if interval > 0 and self._due(
                'reclaim', min(interval, deferred_delete.RECLAIM_CHECK_MAX)):
            self.reclaim_queued_deletes(context)

    @periodic_task.periodic_task(spacing=1)
    def _periodic_instance_usage_audit(self, context):
        if CONF.instance_usage_audit and self._due(
                'usage_audit', usage_audit.CHECK_INTERVAL):
            self.instance_usage_audit(context)

    def instance_usage_audit(self, context):
        """Record this host's audit of the last completed period unless
        recorded; True when it ran now."""
        return usage_audit.audit(context, self.conductor_api, self.host)
