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

One lock serialises the periodic run, ``set_host_enabled`` and the usage
refreshes of the compute manager.
"""

import contextlib
import threading
import time

import os_traits
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_serialization import jsonutils

from nova_lite.clients import placement as placement_client
from nova_lite.clients import report
from nova_lite.clients import report_batch
from nova_lite.compute import tree_cache
from nova_lite import conf as nl_conf
from nova_lite import exception
from nova_lite.virt import exception as virt_exc

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

_RESOURCE_KEYS = ('vcpus', 'memory_mb', 'local_gb', 'vcpus_used',
                  'memory_mb_used', 'local_gb_used', 'running_vms',
                  'disk_available_least', 'hypervisor_type',
                  'hypervisor_version', 'cpu_info')
_RATIO_COLUMNS = {'VCPU': 'cpu_allocation_ratio',
                  'MEMORY_MB': 'ram_allocation_ratio',
                  'DISK_GB': 'disk_allocation_ratio'}
_CONDUCTOR_ERRORS = (messaging.MessagingException, exception.NovaLiteException)
# What stops one node's report, not the others'.
_NODE_ERRORS = (placement_client.PlacementClientError,
                virt_exc.VirtDriverError, ValueError)
# compute_nodes rows one conductor call writes at most.
RECORDS_PER_CALL = 100


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


def _providers_by_root(listing):
    """{root uuid: its providers} of one provider listing.

    Each tree is checked against its own providers only: handing every
    tree the whole listing cost trees x providers (2,500 x 10,000 in a
    10,000-node lab, seconds of CPU per check).
    """
    by_root = {}
    for provider in listing:
        root = provider.get('root_provider_uuid') or provider['uuid']
        by_root.setdefault(root, []).append(provider)
    return by_root


class UsageChange:
    """A node's usage refreshed by a conductor call about something else
    (see :meth:`ResourceTracker.usage_change`)."""

    def __init__(self, tracker, nodename, held=True):
        self._tracker = tracker
        self.nodename = nodename
        # Whether the tracker's lock is held (else nothing is sent).
        self._held = held
        # True once the row is as the driver has it now (nothing to do).
        self.done = False

    def values(self):
        """What the call writes: ``{'id': node id, 'values': changed
        columns}``, or None (nothing changed, a node without a row, or
        the lock not held)."""
        if not self._held:
            return None
        tracker = self._tracker
        node = tracker.compute_nodes.get(self.nodename)
        if node is None:
            self.done = True
            return None
        changed = tracker._changed(node,
                                   tracker._current_values(self.nodename))
        if not changed:
            self.done = True
            return None
        return {'id': node.id, 'values': changed}

    def written(self, node):
        """The row the call wrote (None: not written)."""
        if node is not None:
            self._tracker.compute_nodes[self.nodename] = node
            self.done = True


class ResourceTracker:
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
            except _CONDUCTOR_ERRORS as error:
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

    # -- compute_nodes rows -------------------------------------------------

    def _update_records(self, context, nodenames):
        """Create or refresh the rows of ``nodenames``; the writes needed.

        Rows that changed go to the conductor together
        (``compute_nodes_save``, :data:`RECORDS_PER_CALL` a call) when it
        takes them, one call each otherwise.
        """
        pending = {}
        for name in nodenames:
            values = self._current_values(name)
            node = self.compute_nodes.get(name)
            if node is None or self._changed(node, values):
                pending[name] = values
        if len(pending) < 2 or not self._can_save_many():
            for name, values in pending.items():
                self._write_record(context, name, values)
            return len(pending)
        names = list(pending)
        for start in range(0, len(names), RECORDS_PER_CALL):
            chunk = {n: pending[n]
                     for n in names[start:start + RECORDS_PER_CALL]}
            for node in self.conductor.compute_nodes_save(context,
                                                          self.host, chunk):
                self.compute_nodes[node.hypervisor_hostname] = node
                self._gone.pop(node.hypervisor_hostname, None)
        return len(pending)

    def _can_save_many(self):
        check = getattr(self.conductor, 'can_save_compute_nodes', None)
        return bool(check is not None and check())

    @staticmethod
    def _changed(node, values):
        return {k: v for k, v in values.items()
                if k != 'uuid' and getattr(node, k) != v}

    def _update_record(self, context, nodename):
        """Create or refresh the node's row; 1 if a write was needed."""
        return self._write_record(context, nodename,
                                  self._current_values(nodename))

    def _current_values(self, nodename):
        """The node's row values as the driver has them now."""
        return self._record_values(
            nodename, self.driver.get_available_resource(nodename))

    def _write_record(self, context, nodename, values):
        node = self.compute_nodes.get(nodename)
        if node is None:
            node = self.conductor.compute_node_get_or_create(
                context, self.host, nodename, values)
            self.compute_nodes[nodename] = node
            self._gone.pop(nodename, None)
            return 1
        changed = self._changed(node, values)
        if not changed:
            return 0
        try:
            node = self.conductor.compute_node_update(context, node.id,
                                                      changed)
        except exception.ComputeNodeNotFound:
            # NOTE(nova_lite): deleted behind our back (host deleted by an
            # operator): recreate or restore it.
            node = self.conductor.compute_node_get_or_create(
                context, self.host, nodename, values)
        self.compute_nodes[nodename] = node
        return 1

    def _record_values(self, nodename, resources):
        values = {k: resources.get(k) for k in _RESOURCE_KEYS}
        values['uuid'] = resources['uuid']
        values['service_id'] = self.service_id
        values['free_ram_mb'] = values['memory_mb'] - values['memory_mb_used']
        values['free_disk_gb'] = values['local_gb'] - values['local_gb_used']
        # NOTE(nova_lite): stats values are strings (as in Nova); the
        # scheduler's HostState decodes this one.
        values['stats'] = {'supported_instances': jsonutils.dumps(
            resources.get('supported_instances') or []),
            # As Nova's host_ip = CONF.my_ip: the hypervisor's host_ip.
            'host_ip': CONF.my_ip}
        tree = self._flushed.get(nodename)
        inventory = {}
        if tree is not None and tree.exists(resources['uuid']):
            inventory = tree.data(resources['uuid']).inventory
        for rc, ratio in self.driver.get_allocation_ratios(inventory).items():
            values[_RATIO_COLUMNS[rc]] = ratio
        return values

    def refresh_usage(self, context, nodename):
        """Refresh one node's row now (after a build or a delete)."""
        with self._lock:
            if nodename not in self.compute_nodes:
                return
            try:
                self._update_record(context, nodename)
            except _CONDUCTOR_ERRORS as error:
                LOG.warning('Usage of node %s not refreshed: %s', nodename,
                            error)

    @contextlib.contextmanager
    def usage_change(self, nodename):
        """Refresh ``nodename``'s row with a conductor call that writes
        something else first (a build's last write, a terminate's): the
        block gets a :class:`UsageChange` to send and to take the written
        row back. The tracker's lock is held across the block, so that no
        other refresh (a concurrent build's) writes newer usage before
        this call writes older usage over it; when another holds it, the
        call is not made to wait (a build's ACTIVE is on it): the change
        then has no values. After the block, ``done`` False means the
        caller still has to :meth:`refresh_usage`."""
        if not self._lock.acquire(blocking=False):
            yield UsageChange(self, nodename, held=False)
            return
        try:
            yield UsageChange(self, nodename)
        finally:
            self._lock.release()

    def build_result(self, context, nodename, succeeded):
        """Reset (success) or raise (failure) the node's failed_builds.

        A success on a node whose count is 0 already changes nothing and
        asks the conductor nothing: this compute is the only writer of its
        nodes' count, and its copy of the row comes back with every write
        (as Nova's build_succeeded only resets the tracker's own stats).
        """
        node = self.compute_nodes.get(nodename)
        if node is None:
            return None
        if succeeded and node.obj_attr_is_set('failed_builds') and \
                node.failed_builds == 0:
            return 0
        try:
            count = self.conductor.compute_node_build_result(
                context, node.id, succeeded)
        except _CONDUCTOR_ERRORS as error:
            LOG.warning('failed_builds of node %s not updated: %s', nodename,
                        error)
            return None
        node.failed_builds = count
        node.obj_reset_changes(['failed_builds'])
        return count

    def get_node(self, nodename):
        """The cached ComputeNode of ``nodename`` (None if unknown)."""
        return self.compute_nodes.get(nodename)

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

    def _delete_gone_providers(self):
        for name, (root_uuid, tree) in list(self._gone.items()):
            if tree is None:
                tree = self.reportclient.read_tree(root_uuid)
            if self.reportclient.tree_has_allocations(tree):
                LOG.warning('Providers of departed node %s keep allocations; '
                            'deleting them later', name)
                self._gone[name] = (root_uuid, tree)
                continue
            self.reportclient.delete_tree(tree)
            del self._gone[name]
            LOG.info('Providers of departed node %s deleted', name)

    # -- placement ------------------------------------------------------------

    def _report(self, nodenames, result):
        try:
            self._delete_gone_providers()
            self._read_missing_trees(nodenames)
            self._check_due_trees(nodenames, result)
            jobs = self._flush_jobs(nodenames, result)
            result.placement_writes += self.reportclient.flush_many(jobs)
            outage = self._flush_errors(jobs, result)
            if outage is not None:
                raise outage
        except placement_client.PlacementUnreachable as error:
            if not result.unreported:
                result.unreported = len(nodenames)
            self._note_outage(error, result.unreported, len(nodenames))
        except placement_client.PlacementClientError as error:
            result.unreported = len(nodenames)
            result.errors += 1
            LOG.error('Placement refused the resource update of %s, '
                      'retrying next period: %s', self.host, error)
        else:
            if not self._placement_ok:
                LOG.info('Placement reachable again: %s nodes reported',
                         len(nodenames))
            self._placement_ok = True
        if result.placement_writes:
            self._dirty = True
        self._save_trees()

    def _note_outage(self, error, unreported, total):
        # NOTE(nova_lite): one line per period, whatever the node count.
        LOG.warning('Placement unreachable during the resource update of '
                    '%s: %d of %d nodes not reported, retrying next period '
                    '(%s)', self.host, unreported, total, error)
        self._placement_ok = False
        # A write the outage cut off may still have been applied (placement
        # answered too late): its generations are unknown here. Check every
        # tree against one listing first next period, instead of sending
        # stale generations that fail a whole batch and then conflict
        # provider by provider (a 10,000-node lab spent minutes so,
        # holding the lock that builds wait for).
        self._checked_at.clear()

    def _read_missing_trees(self, nodenames):
        """Trees of the nodes not known yet: the saved ones checked with
        one listing (only moved providers re-read), the others read."""
        missing = {self.compute_nodes[n].uuid: n for n in nodenames
                   if n not in self._flushed and n in self.compute_nodes}
        if not missing:
            return
        now = time.monotonic()
        cached = self._cached_trees(missing)
        if cached:
            by_root = _providers_by_root(self.reportclient.list_providers())
            for root_uuid, tree in cached.items():
                self.reportclient.check_generations(
                    tree, root_uuid, listing=by_root.get(root_uuid, []))
                self._remember(missing.pop(root_uuid), tree, now)
        if missing:
            trees = self.reportclient.read_trees(list(missing))
            for root_uuid, tree in trees.items():
                self._remember(missing[root_uuid], tree, now)
        self._dirty = True

    def _remember(self, nodename, tree, now):
        self._flushed[nodename] = tree
        self._checked_at[nodename] = now

    def _cached_trees(self, missing):
        """Saved trees of ``missing`` ({root_uuid: nodename}), by root."""
        if self._cache_path is None:
            return {}
        saved = tree_cache.load(self._cache_path, self.host)
        found = {}
        for root_uuid, name in missing.items():
            tree = saved.get(name)
            if tree is not None and tree.exists(root_uuid):
                found[root_uuid] = tree
        return found

    def _save_trees(self):
        if self._cache_path is not None and self._dirty:
            tree_cache.save(self._cache_path, self.host, self._flushed)
            self._dirty = False

    def _flush_jobs(self, nodenames, result):
        """One flush job per node whose tree the driver was asked about;
        a node needing a reshape is reshaped here, on its own."""
        jobs = []
        for name in nodenames:
            node = self.compute_nodes.get(name)
            if node is None or name not in self._flushed:
                continue
            flushed = self._flushed[name]
            rebuild = self._rebuilder(name, node.uuid)
            try:
                jobs.append(report_batch.FlushJob(name, flushed,
                                                  rebuild(flushed), rebuild))
            except virt_exc.ReshapeNeeded:
                try:
                    result.placement_writes += self._reshape(
                        name, node.uuid, flushed, rebuild)
                except placement_client.PlacementUnreachable:
                    raise
                except _NODE_ERRORS as error:
                    self._node_not_reported(name, error, result)
            except _NODE_ERRORS as error:
                self._node_not_reported(name, error, result)
        return jobs

    def _flush_errors(self, jobs, result):
        """Log the nodes whose flush failed; the placement outage that
        stopped some, if any (those are counted unreported)."""
        outage = None
        for job in jobs:
            if job.error is None:
                continue
            if isinstance(job.error, placement_client.PlacementUnreachable):
                outage = job.error
                result.unreported += 1
            elif isinstance(job.error, _NODE_ERRORS):
                self._node_not_reported(job.key, job.error, result)
            else:
                LOG.error('Provider tree of node %s not reported: %r',
                          job.key, job.error)
                self._forget_tree(job.key)
                result.errors += 1
        return outage

    def _node_not_reported(self, nodename, error, result):
        LOG.error('Provider tree of node %s not reported: %s', nodename,
                  error)
        self._forget_tree(nodename)
        result.errors += 1

    def _forget_tree(self, nodename):
        # Re-read it from placement next period.
        self._flushed.pop(nodename, None)
        self._dirty = True

    def _check_due_trees(self, nodenames, result):
        """Re-read what others changed in the trees due for a check: one
        ``GET ?in_tree=`` for a single tree, one listing for several."""
        interval = CONF.compute.resource_provider_association_refresh
        now = time.monotonic()
        due = [n for n in nodenames
               if n in self._flushed and n in self.compute_nodes and
               self._check_due(n, interval, now)]
        if not due:
            return
        by_root = None
        if len(due) > 1:
            by_root = _providers_by_root(self.reportclient.list_providers())
        for name in due:
            root_uuid = self.compute_nodes[name].uuid
            listing = None if by_root is None else by_root.get(root_uuid, [])
            try:
                if self.reportclient.check_generations(
                        self._flushed[name], root_uuid, listing=listing):
                    self._dirty = True
            except placement_client.PlacementUnreachable:
                raise
            except placement_client.PlacementClientError as error:
                LOG.error('Provider tree of node %s not checked: %s', name,
                          error)
                self._flushed.pop(name, None)
                result.errors += 1
            self._checked_at[name] = now

    def _check_due(self, nodename, interval, now):
        # Never checked (or forgotten after an outage): due at once.
        checked = self._checked_at.get(nodename)
        return checked is None or not interval or now - checked >= interval

    def _wanted_tree(self, nodename, root_uuid, flushed, allocations=None):
        wanted = flushed.copy()
        if not wanted.exists(root_uuid):
            wanted.new_root(nodename, root_uuid)
        self.driver.update_provider_tree(wanted, nodename,
                                         allocations=allocations)
        self._sync_owned_traits(wanted, root_uuid)
        return wanted

    def _sync_owned_traits(self, tree, root_uuid):
        tree.add_traits(root_uuid, os_traits.COMPUTE_NODE)
        if self.disabled:
            tree.add_traits(root_uuid, os_traits.COMPUTE_STATUS_DISABLED)
        else:
            tree.remove_traits(root_uuid, os_traits.COMPUTE_STATUS_DISABLED)

    def _rebuilder(self, nodename, root_uuid):
        """A rebuild function: the wanted tree of the node from a
        flushed one (the driver's edits and the owned traits)."""
        def rebuild(fresh):
            return self._wanted_tree(nodename, root_uuid, fresh)
        return rebuild

    def _reshape(self, nodename, root_uuid, flushed, rebuild):
        """Reshape the node's tree; a generation conflict (an allocation
        or an operator moved a provider meanwhile) re-reads the tree and
        the allocations and tries again."""
        LOG.info('Node %s needs a reshape: moving inventory and '
                 'allocations', nodename)
        # NOTE(nova_lite): allocations move provider generations all the
        # time; a reshape is rare enough to start from fresh ones.
        self.reportclient.check_generations(flushed, root_uuid)
        for _attempt in range(report.MAX_FLUSH_ATTEMPTS):
            allocations = self.reportclient.get_allocations_for_tree(flushed)
            wanted = self._wanted_tree(nodename, root_uuid, flushed,
                                       allocations=allocations)
            try:
                return self.reportclient.reshape(flushed, wanted,
                                                 allocations,
                                                 rebuild=rebuild)
            except placement_client.PlacementConflict as conflict:
                if not conflict.is_generation_conflict:
                    raise
                LOG.info('Reshape of node %s met a generation conflict; '
                         're-reading its tree', nodename)
                self.reportclient.check_generations(flushed, root_uuid)
        raise report.FlushConflict('reshape of node %s: generation '
                                   'conflicts persisted' % nodename)

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

