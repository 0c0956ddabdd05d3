"""A compute's ``compute_nodes`` rows: what the tracker writes there.

The rows carry each node's totals, usage and allocation ratios (read by
the scheduler and ``os-hypervisors``). They are written through the cell
conductor only when a value changed: by the periodic run, several rows a
call (:data:`RECORDS_PER_CALL`), and after a build or a delete, one row,
either by its own call (:meth:`NodeRecords.refresh_usage`) or riding the
call that writes the instance (:class:`UsageChange`).
"""

import contextlib

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_serialization import jsonutils

from nova_lite import conf as nl_conf
from nova_lite import exception

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

_RESOURCE_KEYS = ('vcpus', 'memory_mb', 'local_gb', 'vcpus_used',
                  'memory_mb_used', 'local_gb_used', 'running_vms',
                  'disk_available_least', 'hypervisor_type',
                  'hypervisor_version', 'cpu_info')
_RATIO_COLUMNS = {'VCPU': 'cpu_allocation_ratio',
                  'MEMORY_MB': 'ram_allocation_ratio',
                  'DISK_GB': 'disk_allocation_ratio'}
CONDUCTOR_ERRORS = (messaging.MessagingException, exception.NovaLiteException)
# compute_nodes rows one conductor call writes at most.
RECORDS_PER_CALL = 100


class UsageChange:
    """A node's usage refreshed by a conductor call about something else
    (see :meth:`NodeRecords.usage_change`)."""

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


class NodeRecords:
    """The row half of :class:`nova_lite.compute.resource_tracker.
    ResourceTracker`: expects its ``host``, ``driver``, ``conductor``,
    ``service_id``, ``compute_nodes``, ``_flushed``, ``_gone``, ``_lock``
    and ``_usage_held`` (whether a usage refresh holds the lock)."""

    def _update_records(self, context, nodenames):
        """Create or refresh the rows of ``nodenames``; the writes needed.

        Rows that changed go to the conductor together
        (``compute_nodes_save``, :data:`RECORDS_PER_CALL` a call); a
        single one by its own call.
        """
        pending = {}
        for name in nodenames:
            values = self._current_values(name)
            node = self.compute_nodes.get(name)
            if node is None or self._changed(node, values):
                pending[name] = values
        if len(pending) < 2:
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
        with self._lock, self._holding_usage():
            if nodename not in self.compute_nodes:
                return
            try:
                self._update_record(context, nodename)
            except CONDUCTOR_ERRORS as error:
                LOG.warning('Usage of node %s not refreshed: %s', nodename,
                            error)

    @contextlib.contextmanager
    def usage_change(self, nodename, wait=False):
        """Refresh ``nodename``'s row with a conductor call that writes
        something else first (a build's last write, a terminate's): the
        block gets a :class:`UsageChange` to send and to take the written
        row back. The tracker's lock is held across the block, so that no
        other refresh (a concurrent build's) writes newer usage before
        this call writes older usage over it; when another holds it, the
        call is not made to wait (a build's ACTIVE is on it): the change
        then has no values. After the block, ``done`` False means the
        caller still has to :meth:`refresh_usage`.

        ``wait``: when the holder is another usage refresh (a single
        conductor call, never the periodic run), wait for it and send the
        usage after, rather than go without and refresh it with a call
        of its own (a terminate, whose claim is gone already: only its
        row's delete waits; the usage it then reads covers every
        terminate that waited with it, which send nothing more).
        """
        held = self._lock.acquire(blocking=False)
        if not held and wait and self._usage_held:
            held = self._lock.acquire()
        if not held:
            yield UsageChange(self, nodename, held=False)
            return
        try:
            with self._holding_usage():
                yield UsageChange(self, nodename)
        finally:
            self._lock.release()

    @contextlib.contextmanager
    def _holding_usage(self):
        """Marks the lock (held) as held by a usage refresh."""
        outer, self._usage_held = self._usage_held, True
        try:
            yield
        finally:
            self._usage_held = outer

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
        except CONDUCTOR_ERRORS as error:
            LOG.warning('failed_builds of node %s not updated: %s', nodename,
                        error)
            return None
        node.failed_builds = count
        node.obj_reset_changes(['failed_builds'])
        return count

    def get_node(self, nodename):
        """The cached ComputeNode of ``nodename`` (None if unknown)."""
        return self.compute_nodes.get(nodename)

