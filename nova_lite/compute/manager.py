"""Server side of the compute RPC API: one compute host and its nodes.

A compute has no database: everything persistent goes through its cell
conductor (``self.conductor_api``, on the compute's own bus); resources go
to placement through the report client. The manager is split by concern:

* :mod:`nova_lite.compute.build`: ``build_and_run_instance`` and its
  outcomes (success, abort, reschedule);
* :mod:`nova_lite.compute.lifecycle`: delete, power, pause, suspend,
  ``set_host_enabled``;
* :mod:`nova_lite.compute.resize`: cold migrate and resize, confirm and
  revert;
* :mod:`nova_lite.compute.live_migration`: live migration, source and
  destination sides;
* :mod:`nova_lite.compute.rebuild`: rebuild and evacuate, and cleaning up
  instances evacuated while this host was down;
* :mod:`nova_lite.compute.shelve`: shelve, shelve offload, unshelve;
* :mod:`nova_lite.compute.resource_tracker`: ``compute_nodes`` rows and
  provider trees, run at start and periodically from here;
* :mod:`nova_lite.compute.stale_builds`: builds left over or hung.
"""

import time

import oslo_messaging as messaging
from oslo_log import log as logging
from oslo_service import periodic_task

from nova_lite.clients import placement as placement_client
from nova_lite.clients import report
from nova_lite.compute import build
from nova_lite.compute import lifecycle
from nova_lite.compute import live_migration
from nova_lite.compute import rebuild
from nova_lite.compute import records
from nova_lite.compute import resize
from nova_lite.compute import resource_tracker
from nova_lite.compute import shelve
from nova_lite.compute import stale_builds
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite import manager
from nova_lite.virt import driver as virt_driver

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

# Seconds between two build-timeout checks at most.
BUILD_TIMEOUT_CHECK_MAX = 60


class ComputeManager(build.BuildMixin, lifecycle.LifecycleMixin,
                     resize.ResizeMixin, live_migration.LiveMigrationMixin,
                     rebuild.RebuildMixin, shelve.ShelveMixin,
                     manager.Manager):
    """Compute endpoint (API version 1.2)."""

    target = messaging.Target(version='1.2')

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
        self._init_builds(CONF.compute.max_concurrent_builds)

    @property
    def conductor_api(self):
        """Client of this compute's cell conductor."""
        if self._conductor_api is None:
            self._conductor_api = conductor_rpcapi.ConductorAPI(
                transport=self.transport)
        return self._conductor_api

    # -- service hooks -------------------------------------------------------

    def init_host(self):
        """Load and start the driver (a bad configuration stops here)."""
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

    def post_start_hook(self):
        """Clean up instances evacuated while down, report the nodes, then
        fail builds a previous run left."""
        context = nl_context.get_admin_context()
        try:
            self.destroy_evacuated_instances(context)
        except Exception as error:  # noqa: BLE001 - conductor down
            LOG.warning('Evacuated instances of %s not cleaned up: %s',
                        self.host, error)
        self.update_available_resource(context, startup=True)
        try:
            stale_builds.fail_left_over_builds(
                self.records, self.conductor_api, context, self.host)
        except Exception as error:  # noqa: BLE001 - conductor down
            LOG.warning('Left-over builds of %s not checked: %s',
                        self.host, error)
        self._last_run['resources'] = time.monotonic()

    def cleanup_host(self):
        self._stop_builds()
        if self.driver is not None:
            self.driver.cleanup_host(self.host)

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
                timeout)

    # NOTE(nova_lite): oslo.service collects periodic tasks from the manager
    # class itself, not from its mixins: the mixins' polls run from here.

    @periodic_task.periodic_task(spacing=1)
    def _periodic_confirm_resizes(self, context):
        self._poll_unconfirmed_resizes(context)

    @periodic_task.periodic_task(spacing=1)
    def _periodic_offload_shelved(self, context):
        self._poll_shelved_instances(context)
