"""HostState: what filters and weighers know about one compute node.

The host manager (a later slice) builds one :class:`HostState` per compute
node that placement returned, from the cell database's ``compute_nodes``
and ``services`` rows, the API database's aggregates and the instances on
the host (:meth:`HostState.from_compute_node`). Filters and weighers only
read it. Between the picks of a multi-instance request the manager calls
:func:`consume_selected_host`, so the next pick sees the resources and the
group member the previous pick took, as Nova does.

Units follow Nova: RAM in MB, disk free in MB, disk total in GB.
"""

import json
import threading

from oslo_utils import strutils

from nova_lite import conf as nl_conf
from nova_lite import servicegroup

CONF = nl_conf.CONF


class Aggregate:
    """A host aggregate as the scheduler sees it (metadata values are str).

    ``metadata['availability_zone']`` names the aggregate's AZ; other keys
    feed the aggregate filters (``filter_tenant_id*``, ratios, limits) and
    per-aggregate weight multipliers.
    """

    def __init__(self, id=None, uuid=None, name=None, hosts=(),
                 metadata=None):
        self.id = id
        self.uuid = uuid
        self.name = name
        self.hosts = set(hosts)
        self.metadata = dict(metadata or {})

    def __repr__(self):
        return 'Aggregate(%s, %s)' % (self.name, self.metadata)


class InstanceInfo:
    """An instance on a host: enough for group and same-host checks."""

    def __init__(self, uuid, project_id=None):
        self.uuid = uuid
        self.project_id = project_id


def _get(record, name, default=None):
    """A field of a dict, DB row or versioned object (unset: default)."""
    if record is None:
        return default
    if isinstance(record, dict):
        return record.get(name, default)
    if (hasattr(record, 'obj_attr_is_set') and
            name in getattr(record, 'fields', {}) and
            not record.obj_attr_is_set(name)):
        return default
    return getattr(record, name, default)


def _parse_cpu_info(cpu_info):
    if isinstance(cpu_info, str):
        try:
            return json.loads(cpu_info)
        except ValueError:
            return {}
    return dict(cpu_info or {})


def _int_stat(stats, name):
    try:
        return int(stats.get(name, 0) or 0)
    except (TypeError, ValueError):
        return 0


class HostState:
    """Mutable view of one compute node during one scheduling request."""

    def __init__(self, host, nodename, cell_uuid=None, uuid=None):
        self.host = host
        self.nodename = nodename
        self.cell_uuid = cell_uuid
        self.uuid = uuid
        self.vcpus_total = 0
        self.vcpus_used = 0
        self.total_usable_ram_mb = 0
        self.free_ram_mb = 0
        self.total_usable_disk_gb = 0
        self.free_disk_mb = 0
        self.disk_mb_used = 0
        self.cpu_allocation_ratio = 1.0
        self.ram_allocation_ratio = 1.0
        self.disk_allocation_ratio = 1.0
        self.service = {'disabled': False, 'forced_down': False, 'up': True}
        self.aggregates = []
        self.instances = {}
        self.num_instances = 0
        self.num_io_ops = 0
        self.failed_builds = 0
        self.metrics = {}
        self.hypervisor_type = None
        self.hypervisor_version = None
        self.hypervisor_hostname = nodename
        self.cpu_info = {}
        self.supported_instances = []
        self.host_ip = None
        self.stats = {}
        self.limits = {}
        self.allocation_candidates = []
        self.updated = None
        self._lock = threading.Lock()

    def __repr__(self):
        return '(%s, %s) ram: %sMB disk: %sMB io_ops: %s instances: %s' % (
            self.host, self.nodename, self.free_ram_mb, self.free_disk_mb,
            self.num_io_ops, self.num_instances)

    @property
    def availability_zone(self):
        """AZ from the host's aggregates, else the default AZ."""
        zone = None
        for agg in self.aggregates:
            candidate = agg.metadata.get('availability_zone')
            # Several zones (a misconfiguration): the first by name wins.
            if candidate and (zone is None or candidate < zone):
                zone = candidate
        if zone:
            return zone
        return getattr(CONF, 'default_availability_zone', None) or 'nova'

    @property
    def service_up(self):
        """Whether the compute service is alive (a precomputed ``up`` wins)."""
        if 'up' in self.service and self.service['up'] is not None:
            return (bool(self.service['up']) and
                    not self.service.get('forced_down'))
        return servicegroup.is_up(self.service)

    def aggregate_values(self, key):
        """Every value of metadata ``key`` over the host's aggregates.

        A value holding a comma list counts as several values, as Nova's
        aggregate metadata does.
        """
        values = set()
        for agg in self.aggregates:
            if key in agg.metadata:
                values.update(v.strip() for v in
                              str(agg.metadata[key]).split(','))
        return values

    def aggregate_metadata(self):
        """``{key: set(values)}`` over all the host's aggregates."""
        metadata = {}
        for agg in self.aggregates:
            for key in agg.metadata:
                metadata.setdefault(key, set()).update(
                    self.aggregate_values(key))
        return metadata

    def update_from_compute_node(self, compute_node):
        """Copy sizes, usage, ratios and stats from a compute_nodes row."""
        cn = compute_node
        self.uuid = _get(cn, 'uuid', self.uuid)
        self.vcpus_total = _get(cn, 'vcpus', 0) or 0
        self.vcpus_used = _get(cn, 'vcpus_used', 0) or 0
        self.total_usable_ram_mb = _get(cn, 'memory_mb', 0) or 0
        free_ram = _get(cn, 'free_ram_mb')
        if free_ram is None:
            free_ram = self.total_usable_ram_mb - (
                _get(cn, 'memory_mb_used', 0) or 0)
        self.free_ram_mb = free_ram
        self.total_usable_disk_gb = _get(cn, 'local_gb', 0) or 0
        used_gb = _get(cn, 'local_gb_used', 0) or 0
        free_gb = _get(cn, 'free_disk_gb')
        if free_gb is None:
            free_gb = self.total_usable_disk_gb - used_gb
        least = _get(cn, 'disk_available_least')
        if least is not None:
            free_gb = min(free_gb, least)
        self.free_disk_mb = free_gb * 1024
        self.disk_mb_used = used_gb * 1024
        for kind in ('cpu', 'ram', 'disk'):
            ratio = _get(cn, '%s_allocation_ratio' % kind)
            if ratio:
                setattr(self, '%s_allocation_ratio' % kind, float(ratio))
        self.hypervisor_type = _get(cn, 'hypervisor_type')
        self.hypervisor_version = _get(cn, 'hypervisor_version')
        self.hypervisor_hostname = _get(cn, 'hypervisor_hostname',
                                        self.nodename)
        self.cpu_info = _parse_cpu_info(_get(cn, 'cpu_info'))
        self.host_ip = _get(cn, 'host_ip', self.host_ip)
        self.failed_builds = _get(cn, 'failed_builds', 0) or 0
        self._update_from_stats(_get(cn, 'stats') or {})
        self.updated = _get(cn, 'updated_at')

    def _update_from_stats(self, stats):
        if isinstance(stats, str):
            stats = _parse_cpu_info(stats)
        self.stats = dict(stats)
        self.num_instances = _int_stat(stats, 'num_instances')
        self.num_io_ops = _int_stat(stats, 'io_workload')
        if 'num_io_ops' in stats:
            self.num_io_ops = _int_stat(stats, 'num_io_ops')
        if 'failed_builds' in stats:
            self.failed_builds = _int_stat(stats, 'failed_builds')
        self.metrics.update(stats.get('metrics') or {})
        # The compute reports its [DEFAULT] my_ip there (Nova's host_ip).
        self.host_ip = stats.get('host_ip') or self.host_ip
        supported = stats.get('supported_instances')
        if isinstance(supported, str):
            supported = json.loads(supported)
        if supported:
            self.supported_instances = [tuple(s) for s in supported]

    @classmethod
    def from_compute_node(cls, compute_node, service=None, cell_uuid=None,
                          aggregates=(), instances=()):
        """Build a host state from DB rows (objects or dicts).

        :param service: the compute's ``services`` row (disabled,
            forced_down, last_seen_up...), or None when unknown.
        :param aggregates: the :class:`Aggregate` objects holding the host.
        :param instances: :class:`InstanceInfo` (or rows with ``uuid`` and
            ``project_id``) of the instances on the host.
        """
        state = cls(_get(compute_node, 'host'),
                    _get(compute_node, 'hypervisor_hostname'),
                    cell_uuid=cell_uuid)
        state.update_from_compute_node(compute_node)
        if service is not None:
            state.service = _service_dict(service)
        state.aggregates = list(aggregates)
        state.instances = {
            _get(inst, 'uuid'): InstanceInfo(_get(inst, 'uuid'),
                                             _get(inst, 'project_id'))
            for inst in instances}
        return state

    def consume_from_request(self, spec, instance_uuid=None):
        """Take the request's resources out of this host's free amounts.

        Called after a pick so the next instance of the same request sees
        less room (and one more instance, one more I/O operation).
        """
        flavor = spec.flavor
        with self._lock:
            self.free_ram_mb -= flavor.memory_mb
            disk_mb = (flavor.root_gb + flavor.ephemeral_gb) * 1024
            disk_mb += flavor.swap
            self.free_disk_mb -= disk_mb
            self.disk_mb_used += disk_mb
            self.vcpus_used += flavor.vcpus
            self.num_instances += 1
            self.num_io_ops += 1
            if instance_uuid:
                # A copy: a request's host state shares the cache's.
                self.instances = dict(self.instances)
                self.instances[instance_uuid] = InstanceInfo(
                    instance_uuid, spec.project_id)


def _service_dict(service):
    keys = ('id', 'host', 'binary', 'disabled', 'disabled_reason',
            'forced_down', 'last_seen_up', 'created_at', 'updated_at',
            'up')
    result = {key: _get(service, key) for key in keys}
    if result['up'] is None:
        del result['up']
    result['disabled'] = strutils.bool_from_string(result['disabled'])
    result['forced_down'] = strutils.bool_from_string(result['forced_down'])
    return result


def consume_selected_host(host_state, spec, instance_uuid=None):
    """Record a pick: resources, the instance, and the group's new host."""
    host_state.consume_from_request(spec, instance_uuid)
    if spec.instance_group is not None:
        spec.instance_group.hosts.append(host_state.host)
        if instance_uuid and instance_uuid not in spec.instance_group.members:
            spec.instance_group.members.append(instance_uuid)
