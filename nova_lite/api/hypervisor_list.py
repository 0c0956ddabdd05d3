"""os-hypervisors listings over every cell, paged as Nova pages them, and
the views of hypervisors built from plain rows.

Nova's order: the cells (not cell0) in the order of their mappings, the
nodes of a cell by id. A page reads the cells one after the other and
stops when it is full: the first cell from the one holding the marker
(a uuid-like marker is a node uuid, any other a node id, whatever the
microversion), the next ones from their start. Nodes whose compute
service is gone are left out after the page is cut, as Nova leaves them
out (so such a page can come back short, without a next link).

Each cell is read in one session (a page of nodes and their services);
views are built from the tuples, with what every node of a service shares
(state, status, service, uptime) computed once per service. At 10,000
nodes this is what keeps ``openstack hypervisor list`` (ten pages of
``[api] max_limit``) fast: Nova looks each node's service up on its own.
"""

import collections
import json
from urllib import parse

from oslo_utils import uuidutils

from nova_lite.api import host_info
from nova_lite.api import microversion
from nova_lite.api import util
from nova_lite import cells
from nova_lite import exception
from nova_lite.objects import hypervisor_rows

F = hypervisor_rows.NODE_FIELDS + hypervisor_rows.DETAIL_FIELDS
ID, UUID, HOST, NAME = 0, 1, 2, 3
(TYPE, VERSION, STATS, VCPUS, MEMORY, DISK, VCPUS_USED, MEMORY_USED,
 DISK_USED, FREE_RAM, FREE_DISK, RUNNING, DISK_LEAST, CPU_INFO) = range(
    4, len(F))
_USAGE = (('vcpus', VCPUS), ('memory_mb', MEMORY), ('local_gb', DISK),
          ('vcpus_used', VCPUS_USED), ('memory_mb_used', MEMORY_USED),
          ('local_gb_used', DISK_USED), ('free_ram_mb', FREE_RAM),
          ('free_disk_gb', FREE_DISK), ('running_vms', RUNNING),
          ('disk_available_least', DISK_LEAST))

# Nova's keys of /os-hypervisors/statistics, in its order (Nova sums a
# current_workload column nova_lite does not have: always 0).
_STATISTICS = ('count', 'vcpus', 'memory_mb', 'local_gb', 'vcpus_used',
               'memory_mb_used', 'local_gb_used', 'free_ram_mb',
               'free_disk_gb', 'current_workload', 'running_vms',
               'disk_available_least')

# One node of a listing: its cell, row tuple and compute service (a dict
# of the service's columns, or the service object for single nodes).
Entry = collections.namedtuple('Entry', 'cell_uuid row service')


def row_of(node):
    """The row tuple of a ComputeNode object (show, legacy routes)."""
    return tuple(getattr(node, name) for name in F)


def page(context, limit, marker, detail):
    """One page of Entries over the cells, as Nova pages (module doc).

    :param limit: at most this many nodes, None for all.
    :raises MarkerNotFound: when no cell holds ``marker``.
    """
    by_uuid = marker is not None and uuidutils.is_uuid_like(marker)
    entries = []
    for cell in cells.get_cells(context, include_cell0=False):
        result = _read(context, cell, hypervisor_rows.node_page,
                       host_info.COMPUTE_BINARY, limit=limit,
                       marker=marker, by_uuid=by_uuid, detail=detail)
        if result is None:
            continue
        nodes, services = result
        entries.extend(_entries(cell.uuid, nodes, services))
        # The marker was in this cell: the next cells from their start.
        marker = None
        if limit:
            limit -= len(nodes)
            if limit <= 0:
                break
    if marker is not None and not entries:
        raise exception.MarkerNotFound(marker=marker)
    return entries


def matching(context, pattern, detail):
    """Entries of the nodes whose hostname contains ``pattern``, every
    cell read at once."""
    results = cells.scatter_gather(
        context, cells.get_cells(context, include_cell0=False),
        hypervisor_rows.nodes_matching, host_info.COMPUTE_BINARY, pattern,
        detail=detail)
    entries = []
    for cell_uuid, (nodes, services) in cells.successful(results):
        entries.extend(_entries(cell_uuid, nodes, services))
    return entries


def statistics(context):
    """Nova's ``hypervisor_statistics``: count and sums over the nodes of
    enabled compute services, one aggregate statement per cell (every
    cell at once), summed here. A cell that fails or does not answer is
    left out (logged by :mod:`nova_lite.cells`)."""
    results = cells.scatter_gather(
        context, cells.get_cells(context, include_cell0=False),
        hypervisor_rows.statistics, host_info.COMPUTE_BINARY)
    totals = dict.fromkeys(_STATISTICS, 0)
    for _cell_uuid, sums in cells.successful(results):
        for name, value in sums.items():
            totals[name] += value
    return totals


def _read(context, cell, fn, *args, **kwargs):
    """``fn``'s result in ``cell``; None when the marker is not there or
    the cell failed or timed out (logged by :mod:`nova_lite.cells`)."""
    result = cells.scatter_gather(context, [cell], fn, *args,
                                  **kwargs)[cell.uuid]
    return None if cells.is_failure(result) else result


def _entries(cell_uuid, nodes, services):
    # NOTE(nova_lite): Nova skips a node whose compute service is gone
    # (its row outlives the service until someone cleans it up).
    return [Entry(cell_uuid, row, services[row[HOST]]) for row in nodes
            if row[HOST] in services]


def servers_of(context, entries):
    """``{(host, node): [{'name', 'uuid'}]}`` for ``entries``: one read
    per cell."""
    hosts = collections.defaultdict(set)
    for entry in entries:
        hosts[entry.cell_uuid].add(entry.row[HOST])
    found = {}
    for cell in cells.get_cells(context, include_cell0=False):
        if cell.uuid in hosts:
            rows = _read(context, cell, hypervisor_rows.servers_on,
                         hosts[cell.uuid]) or {}
            for key, servers in rows.items():
                found[key] = [{'name': name or '', 'uuid': uuid}
                              for name, uuid in servers]
    return found


class ViewBuilder:
    """Builds the views of one request's hypervisors (Nova's fields and
    their order for its microversion), sharing per-service parts."""

    def __init__(self, req, detail, with_servers=False, servers=None):
        self.detail = detail
        self.new_ids = microversion.at_least(req, '2.53')
        self.v2_28 = microversion.at_least(req, '2.28')
        self.v2_88 = microversion.at_least(req, '2.88')
        # Nova: always a ``servers`` list when asked from 2.75, before
        # that only a non-empty one.
        self.always_servers = with_servers and microversion.at_least(
            req, '2.75')
        self.servers = servers
        self._by_service = {}
        self._cpu_infos = {}

    def build(self, entry):
        row = entry.row
        shared = self._shared(entry)
        item = {'id': row[UUID] if self.new_ids else row[ID],
                'hypervisor_hostname': row[NAME],
                'state': shared['state'], 'status': shared['status']}
        if self.detail:
            self._add_detail(item, row, shared)
        if self.servers is not None:
            servers = self.servers.get((row[HOST], row[NAME]))
            if servers or self.always_servers:
                item['servers'] = servers or []
        return item

    def _add_detail(self, item, row, shared):
        item['hypervisor_type'] = row[TYPE] or 'fake'
        item['hypervisor_version'] = row[VERSION] or 0
        item['host_ip'] = (row[STATS] or {}).get('host_ip')
        item['service'] = shared['service']
        if self.v2_88:
            item['uptime'] = shared['uptime']
            return
        for name, at in _USAGE:
            value = row[at]
            item[name] = 0 if value is None else value
        item['current_workload'] = 0
        item['cpu_info'] = self._cpu_info(row[CPU_INFO])

    def _cpu_info(self, text):
        if not self.v2_28:
            return text or ''
        if text not in self._cpu_infos:
            try:
                self._cpu_infos[text] = json.loads(text or '{}')
            except ValueError:
                self._cpu_infos[text] = {}
        return self._cpu_infos[text]

    def _shared(self, entry):
        key = (entry.cell_uuid, entry.row[HOST])
        shared = self._by_service.get(key)
        if shared is None:
            shared = self._by_service[key] = self._service_view(
                entry.service, entry.row[HOST])
        return shared

    def _service_view(self, service, host):
        field = (service.get if isinstance(service, dict)
                 else lambda name: getattr(service, name))
        shared = {'state': 'up' if host_info.is_up(service) else 'down',
                  'status': 'disabled' if field('disabled') else 'enabled'}
        if self.detail:
            shared['service'] = {
                'id': field('uuid') if self.new_ids else field('id'),
                'host': host, 'disabled_reason': field('disabled_reason')}
            if self.v2_88:
                shared['uptime'] = host_info.uptime(service)
        return shared


def next_links(req, collection, items, limit):
    """Nova's ``<collection>_links``: a ``next`` link when the page is
    full (``limit`` items, ``[api] max_limit`` at most), its href this
    request's query (sorted) with ``marker`` the last item's id."""
    if not limit or len(items) != limit:
        return []
    params = dict(sorted(req.GET.items()))
    params['marker'] = items[-1]['id']
    context = util.context(req)
    project = context.project_id if (
        context.project_id and context.project_id in req.url) else None
    path = '/'.join(p for p in (util.base_url(req), project, collection)
                    if p)
    return [{'rel': 'next',
             'href': '%s?%s' % (path, parse.urlencode(params))}]
