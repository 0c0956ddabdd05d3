"""The resource tracker: a compute's nodes in the cell DB and in placement.

One tracker per compute process, one provider tree per node. At start and
every ``[compute] update_resources_interval`` seconds,
:meth:`ResourceTracker.update_available_resource`:

1. reads the service record (through the cell conductor) to learn whether
   the service is disabled;
2. asks the driver for its nodes; a node that disappeared loses its
   ``compute_nodes`` row (soft delete) and, once no allocation remains
   against it, its providers; a node that comes back gets its row (and
   provider uuid) restored;
3. refreshes each node's ``compute_nodes`` row (totals, usage, ratios),
   writing only when a value changed;
4. hands the driver a copy of the tree placement last confirmed
   (``update_provider_tree``), adds the traits the tracker owns
   (``COMPUTE_NODE``, ``COMPUTE_STATUS_DISABLED`` when disabled) and sends
   placement only the difference (:class:`nova_lite.clients.report.
   ReportClient`). A driver asking for a reshape gets the tree's
   allocations and the result goes out in one ``POST /reshaper``.

Steady state costs nothing: no row changed means no conductor call, no
tree changed means no placement write, and the trees are checked against
placement only every ``[compute] resource_provider_association_refresh``
seconds: one provider listing for all of them (one ``GET ?in_tree=`` when
the compute has a single node), then a re-read of the providers whose
generation moved. A placement outage is
logged once per period and retried at the next one; nothing here raises
out of a periodic run.

The rows are :mod:`nova_lite.compute.node_records`, the trees
:mod:`nova_lite.compute.placement_report`; this module runs the period
and the operator actions. One lock serialises the periodic run,
``set_host_enabled`` and the usage refreshes of the compute manager.
"""

import threading

from oslo_log import log as logging

from nova_lite.clients import report_batch
from nova_lite.compute import node_records
from nova_lite.compute import placement_report
from nova_lite.compute import tree_cache
from nova_lite import conf as nl_conf
from nova_lite import exception

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)


class PeriodResult:
    """What one periodic run did (logged, and read by tests/benchmarks)."""

    def __init__(self):
        self.nodes = 0
        self.records_written = 0
        self.placement_writes = 0
        self.unreported = 0
        self.errors = 0

    def __repr__(self):
        return ('<PeriodResult nodes=%d records_written=%d '
                'placement_writes=%d unreported=%d errors=%d>' % (
                    self.nodes, self.records_written, self.placement_writes,
                    self.unreported, self.errors))


class ResourceTracker(node_records.NodeRecords,
                      placement_report.PlacementReporting):
    """Keeps one compute's nodes current in the cell DB and placement."""

    def __init__(self, host, driver, reportclient, conductor,
                 service_binary='nova-lite-compute', service_topic='compute'):
        self.host = host
        self.driver = driver
        self.reportclient = reportclient
        self.conductor = conductor
        self.service_binary = service_binary
        self.service_topic = service_topic
        self.compute_nodes = {}
        self.disabled = False
        self.service_id = None
        self._flushed = {}
        self._checked_at = {}
        self._gone = {}
        self._loaded = False
        self._placement_ok = True
        self._lock = threading.RLock()
        self._usage_held = False
        self._dirty = False
        self._cache_path = (tree_cache.cache_path(CONF.state_path, host)
                            if CONF.state_path else None)

    # -- the periodic run ---------------------------------------------------

    def update_available_resource(self, context, startup=False):
        """Refresh every node's row and provider tree; never raises."""
        result = PeriodResult()
        with self._lock:
            try:
                nodenames = list(self.driver.get_available_nodes())
                self._refresh_service(context)
                self._load_compute_nodes(context)
                self._forget_gone_nodes(context, nodenames)
                result.records_written += self._update_records(context,
                                                               nodenames)
            except node_records.CONDUCTOR_ERRORS as error:
                LOG.warning('Resource update of %s skipped this period: %s',
                            self.host, error)
                result.errors += 1
                return result
            result.nodes = len(nodenames)
            self._report(nodenames, result)
        log = LOG.info if (startup or result.records_written or
                           result.placement_writes) else LOG.debug
        log('Resource update of %s: %d nodes, %d records and %d placement '
            'writes, %d errors', self.host, result.nodes,
            result.records_written, result.placement_writes, result.errors)
        return result

    def _refresh_service(self, context):
        record = self.conductor.service_get_or_create(
            context, self.host, self.service_binary, self.service_topic)
        self.service_id = record.id
        self.disabled = bool(record.disabled)

    def _load_compute_nodes(self, context):
        if self._loaded:
            return
        nodes = self.conductor.compute_node_get_all_by_host(context,
                                                            self.host)
        self.compute_nodes = {n.hypervisor_hostname: n for n in nodes}
        self._loaded = True

    # -- nodes that left ----------------------------------------------------

    def _forget_gone_nodes(self, context, nodenames):
        present = set(nodenames)
        for name in [n for n in self.compute_nodes if n not in present]:
            node = self.compute_nodes[name]
            try:
                self.conductor.compute_node_delete(context, node.id)
            except exception.ComputeNodeNotFound:
                pass
            del self.compute_nodes[name]
            tree = self._flushed.pop(name, None)
            self._checked_at.pop(name, None)
            self._dirty = True
            self._gone[name] = (node.uuid, tree)
            LOG.info('Node %s left host %s: record soft-deleted', name,
                     self.host)
        for name in present & set(self._gone):
            del self._gone[name]

    # -- operator actions -----------------------------------------------------

    def set_host_enabled(self, enabled):
        """Add or remove ``COMPUTE_STATUS_DISABLED`` on every node now.

        Failures are logged; the next periodic run converges anyway.
        :returns: placement writes sent.
        """
        with self._lock:
            self.disabled = not enabled
            jobs = []
            for name, flushed in list(self._flushed.items()):
                node = self.compute_nodes.get(name)
                if node is None or not flushed.exists(node.uuid):
                    continue
                rebuild = self._traits_only(node.uuid)
                jobs.append(report_batch.FlushJob(name, flushed,
                                                  rebuild(flushed), rebuild))
            writes = self.reportclient.flush_many(jobs)
            failed = [job for job in jobs if job.error is not None]
            if failed:
                LOG.warning('Disabled trait of %d nodes not updated (next '
                            'periodic retries), first %s: %s', len(failed),
                            failed[0].key, failed[0].error)
            if writes:
                self._dirty = True
                self._save_trees()
        LOG.info('Host %s %s: %d placement writes', self.host,
                 'enabled' if enabled else 'disabled', writes)
        return writes

    def _traits_only(self, root_uuid):
        """A rebuild function: the flushed tree with the owned traits."""
        def rebuild(fresh):
            wanted = fresh.copy()
            self._sync_owned_traits(wanted, root_uuid)
            return wanted
        return rebuild

    def flushed_tree(self, nodename):
        """A copy of the tree last confirmed by placement (or None)."""
        tree = self._flushed.get(nodename)
        return tree.copy() if tree is not None else None

