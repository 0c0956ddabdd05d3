"""A compute's provider trees: what the tracker reports to placement.

Each node's tree as placement last confirmed it (``_flushed``) is handed
to the driver, the owned traits added, and only the difference sent
(:class:`nova_lite.clients.report.ReportClient`, one batch for all the
nodes); trees are checked against placement only when due, a reshape
goes alone, and a placement outage is logged once per period.
"""

import time

import os_traits
from oslo_log import log as logging

from nova_lite.clients import placement as placement_client
from nova_lite.clients import report
from nova_lite.clients import report_batch
from nova_lite.compute import tree_cache
from nova_lite import conf as nl_conf
from nova_lite.virt import exception as virt_exc

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

# What stops one node's report, not the others'.
_NODE_ERRORS = (placement_client.PlacementClientError,
                virt_exc.VirtDriverError, ValueError)


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


class PlacementReporting:
    """The placement half of :class:`nova_lite.compute.resource_tracker.
    ResourceTracker`: expects its ``host``, ``driver``, ``reportclient``,
    ``disabled``, ``compute_nodes``, ``_flushed``, ``_checked_at``,
    ``_gone``, ``_dirty``, ``_placement_ok`` and ``_cache_path``."""

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

