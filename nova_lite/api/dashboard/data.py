"""What the dashboard shows, read from the cells and from placement.

A :class:`Snapshot` is the whole cloud at one moment: per cell, its
compute hosts (service disabled/down), their nodes, each node's provider
tree from placement (inventories, usages, traits, aggregates, nested
children) and the servers on it. Usage numbers are placement's, as
``GET /resource_providers/{uuid}/usages`` and ``/inventories`` give them:
one ``GET /nova_lite/capacity`` brings every provider at once.

Reading is what costs, so a :class:`SnapshotCache` keeps the last one:
placement is asked for its fingerprint (cheap) each time, the capacity
again only when it changed, the cells at most every ``[dashboard]
cell_refresh_interval`` seconds unless placement changed. The live view's
polls between changes cost a fingerprint and a 304.
"""

import contextlib
import gc
import hashlib
import threading
import time

from oslo_log import log as logging
from oslo_serialization import jsonutils

from nova_lite.api import host_info
from nova_lite import cells as nl_cells
from nova_lite import objects
from nova_lite.objects import capacity_rows

LOG = logging.getLogger(__name__)

# Resource classes shown first, in this order; the rest by name.
MAIN_CLASSES = ('VCPU', 'PCPU', 'MEMORY_MB', 'DISK_GB')
# Servers named per node (the rest are counted).
MAX_SERVERS_PER_NODE = 50


def capacity(inventory):
    """What placement lets be allocated of an inventory."""
    return int((inventory['total'] - inventory['reserved']) *
               inventory['allocation_ratio'])


def class_order(rc):
    return (MAIN_CLASSES.index(rc) if rc in MAIN_CLASSES
            else len(MAIN_CLASSES), rc)


def usage_rows(provider):
    """``[(rc, used, capacity)]`` of a provider, main classes first
    (computed once per provider and kept in it)."""
    rows = provider.get('_rows')
    if rows is None:
        rows = [(rc, provider['usages'].get(rc, 0),
                 capacity(provider['inventories'][rc]))
                for rc in sorted(provider['inventories'], key=class_order)]
        provider['_rows'] = rows
    return rows


def fill_ratio(providers):
    """The fullest resource of a provider tree (0..1)."""
    ratio = 0.0
    for provider in providers:
        for _rc, used, cap in usage_rows(provider):
            if cap > 0:
                ratio = max(ratio, used / cap)
            elif used:
                ratio = 1.0
    return min(ratio, 1.0)


class Snapshot:
    """The cloud at one moment (see the module docstring)."""

    def __init__(self, cells, providers, servers_by_node, down_cells):
        self.cells = cells                  # [cell dict]
        self.providers = providers          # {uuid: provider dict}
        self.servers_by_node = servers_by_node
        self.down_cells = down_cells
        self.created = time.time()
        self._live = None
        self._doc = None
        self._heatmap = None
        self._children = None
        self.ratios = {}

    def nodes(self):
        for cell in self.cells:
            for host in cell['hosts']:
                for node in host['nodes']:
                    yield cell, host, node

    def tree(self, node_uuid):
        """The providers of a node's tree, root first (depth, provider)."""
        result = []
        if self._children is None:
            self._children = {}
            for provider in self.providers.values():
                parent = provider['parent_provider_uuid']
                if parent:
                    self._children.setdefault(parent, []).append(provider)
        children = self._children

        def walk(uuid, depth):
            provider = self.providers.get(uuid)
            if provider is None:
                return
            result.append((depth, provider))
            for child in sorted(children.get(uuid, []),
                                key=lambda p: p['name']):
                walk(child['uuid'], depth + 1)
        walk(node_uuid, 0)
        return result

    def live_doc(self):
        """The data API's document (built once per snapshot)."""
        if self._doc is None:
            self._doc = live_document(self)
        return self._doc

    def heatmap_json(self):
        """The heat map rows alone, as JSON (embedded in the page)."""
        if self._heatmap is None:
            self._heatmap = jsonutils.dumps(
                {'cells': self.live_doc()['cells']})
        return self._heatmap

    def live(self):
        """The data API's document as JSON, and its ETag."""
        if self._live is None:
            body = jsonutils.dump_as_bytes(self.live_doc())
            etag = '"%s"' % hashlib.sha1(body).hexdigest()[:20]
            self._live = (body, etag)
        return self._live


def live_document(snapshot):
    """What the live view polls: per cell the heat map row (node name,
    host, fill ratio, state) and totals; per provider its usage."""
    cells = []
    for cell in snapshot.cells:
        squares = []
        totals = {}
        for host in cell['hosts']:
            for node in host['nodes']:
                squares.append([node['name'], host['host'],
                                round(snapshot.ratios.get(node['uuid'], 0.0),
                                      3), host['state'], node['servers']])
                for rc, used, cap in usage_rows(
                        snapshot.providers.get(node['uuid'],
                                               _EMPTY_PROVIDER)):
                    total = totals.setdefault(rc, [0, 0])
                    total[0] += used
                    total[1] += cap
        cells.append({'name': cell['name'], 'uuid': cell['uuid'],
                      'nodes': squares, 'totals': totals})
    usages = {uuid: {rc: [used, cap] for rc, used, cap in usage_rows(p)}
              for uuid, p in snapshot.providers.items()}
    return {'cells': cells, 'usages': usages,
            'down_cells': snapshot.down_cells}


_EMPTY_PROVIDER = {'inventories': {}, 'usages': {}}


def _servers_by_node(context):
    """``{node name: [(uuid, name, project, vm_state)]}`` of every cell
    (cell0 has no nodes)."""
    results = nl_cells.scatter_gather_all(
        context, capacity_rows.instance_rows, include_cell0=False)
    by_node = {}
    for _cell_uuid, result in nl_cells.successful(results):
        for uuid, name, project, state, node in result:
            by_node.setdefault(node, []).append((uuid, name, project, state))
    return by_node


def _read_cells(context):
    """``(cells, servers by node, down cell uuids)`` from the cells."""
    services, down = host_info.all_services(
        context, binary=host_info.COMPUTE_BINARY)
    by_host = {(e.cell_uuid, e.item.host): e.item for e in services}
    node_results = nl_cells.scatter_gather_all(
        context, capacity_rows.node_rows, include_cell0=False)
    down_nodes = [u for u, r in node_results.items()
                  if nl_cells.is_failure(r)]
    servers = _servers_by_node(context)
    mappings = [c for c in objects.CellMappingList.get_all(context).objects
                if not c.is_cell0]
    cells = {c.uuid: {'uuid': c.uuid, 'name': c.name or c.uuid,
                      'hosts': {}} for c in mappings}
    for cell_uuid, rows in nl_cells.successful(node_results):
        cell = cells.get(cell_uuid)
        if cell is None:
            continue
        for node_uuid, host_name, nodename in rows:
            host = cell['hosts'].get(host_name)
            if host is None:
                host = cell['hosts'][host_name] = _host(
                    host_name, by_host.get((cell_uuid, host_name)))
            host['nodes'].append({'name': nodename, 'uuid': node_uuid,
                                  'servers': len(servers.get(nodename,
                                                             ()))})
    result = []
    for cell in sorted(cells.values(), key=lambda c: c['name']):
        hosts = sorted(cell['hosts'].values(), key=lambda h: h['host'])
        for host in hosts:
            host['nodes'].sort(key=lambda n: n['name'])
        result.append({'uuid': cell['uuid'], 'name': cell['name'],
                       'hosts': hosts})
    return result, servers, sorted(set(down) | set(down_nodes))


def _host(name, service):
    if service is None:
        state = 'unknown'
    elif not host_info.is_up(service):
        state = 'down'
    elif service.disabled:
        state = 'disabled'
    else:
        state = 'up'
    return {'host': name, 'state': state, 'nodes': [],
            'disabled_reason': getattr(service, 'disabled_reason', None)
            if service is not None else None}


def build(context, placement):
    """A fresh :class:`Snapshot` (cells and placement read now)."""
    cells, servers, down = _read_cells(context)
    providers = {p['uuid']: p for p in placement.get_capacity()}
    return assemble(cells, providers, servers, down)


def assemble(cells, providers, servers, down):
    """A Snapshot of what was read; node fill ratios computed here."""
    snapshot = Snapshot(cells, providers, servers, down)
    trees = {}
    for provider in providers.values():
        trees.setdefault(provider['root_provider_uuid'], []).append(provider)
    snapshot.ratios = {node['uuid']: fill_ratio(trees.get(node['uuid'], []))
                       for _c, _h, node in snapshot.nodes()}
    return snapshot


class SnapshotCache:
    """The last snapshot, re-read as the module docstring says."""

    def __init__(self, clock=time.monotonic):
        self._lock = threading.Lock()
        self._clock = clock
        self._snapshot = None
        self._cells = None
        self._cells_read = 0.0
        self._fingerprint = None
        self._providers = None

    def get(self, context, placement, cell_interval):
        with self._lock, _no_gc():
            now = self._clock()
            fingerprint = placement.get_capacity_fingerprint()
            placement_changed = fingerprint != self._fingerprint
            if placement_changed:
                self._providers = {p['uuid']: p
                                   for p in placement.get_capacity()}
                self._fingerprint = fingerprint
            if (placement_changed or self._cells is None or
                    now - self._cells_read >= cell_interval):
                cells = _read_cells(context)
                self._cells_read = now
                if cells != self._cells or placement_changed or \
                        self._snapshot is None:
                    self._cells = cells
                    self._snapshot = assemble(cells[0], self._providers,
                                              cells[1], cells[2])
            return self._snapshot


@contextlib.contextmanager
def _no_gc():
    """No garbage collection while a snapshot is built.

    NOTE(nova_lite): building one for 10,000 nodes allocates hundreds of
    thousands of small objects, none of them cyclic garbage; the
    collector's full passes triggered meanwhile cost a third of the time.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
