"""What the dashboard shows, read from the cells and from placement.

A :class:`Snapshot` is the whole cloud at one moment: per cell, its
compute hosts (service disabled/down), their nodes, each node's provider
tree from placement (inventories, usages, traits, aggregates, nested
children) and the servers on it. Usage numbers are placement's, as
``GET /resource_providers/{uuid}/usages`` and ``/inventories`` give them:
one ``GET /nova_lite/capacity`` brings every provider at once.

Reading is what costs, so a :class:`SnapshotCache` keeps the last one:
placement is asked for its fingerprint (cheap) each time; when it
changed, every provider's generation and summed usages
(``/nova_lite/capacity/usages``), and in full only the providers whose
generation moved (:func:`read_placement`); the cells (one session each,
plain rows) at most every ``[dashboard] cell_refresh_interval`` seconds
unless placement changed. The live view's polls between changes cost a
fingerprint and a 304. Each provider's usage rows and its part of the
live document's JSON are made once, when it is read.
"""

import contextlib
import gc
import hashlib
import threading
import time

from oslo_log import log as logging
from oslo_serialization import jsonutils

from nova_lite import cells as nl_cells
from nova_lite.dashboard import placement_reads
from nova_lite import objects
from nova_lite.objects import capacity_rows
from nova_lite import servicegroup

LOG = logging.getLogger(__name__)

# Resource classes shown first, in this order; the rest by name.
MAIN_CLASSES = ('VCPU', 'PCPU', 'MEMORY_MB', 'DISK_GB')
# Servers named per node (the rest are counted).
MAX_SERVERS_PER_NODE = 50
# Providers re-read by name in one request; above FULL_READ_ABOVE changed
# providers, all are read at once.
CHUNK = 500
FULL_READ_ABOVE = 2000


def capacity(inventory):
    """What placement lets be allocated of an inventory."""
    return int((inventory['total'] - inventory['reserved']) *
               inventory['allocation_ratio'])


def class_order(rc):
    return (MAIN_CLASSES.index(rc) if rc in MAIN_CLASSES
            else len(MAIN_CLASSES), rc)


def prepare(provider):
    """Give a provider read from placement its usage rows
    (``[(rc, used, capacity)]``, main classes first) and its entry of the
    live document as JSON text, once: both are kept in it."""
    inventories = provider['inventories']
    usages = provider['usages']
    rows = [(rc, usages.get(rc, 0), capacity(inventories[rc]))
            for rc in sorted(inventories, key=class_order)]
    provider['_rows'] = rows
    # Resource class names are [A-Z0-9_] and uuids hex: nothing to escape.
    provider['_json'] = '"%s":{%s}' % (provider['uuid'], ','.join(
        '"%s":[%d,%d]' % row for row in rows))
    return provider


def usage_rows(provider):
    """``[(rc, used, capacity)]`` of a provider, main classes first."""
    rows = provider.get('_rows')
    if rows is None:
        rows = prepare(provider)['_rows']
    return rows


def fill_ratio(providers):
    """The fullest resource of a provider tree (0..1)."""
    ratio = 0.0
    for provider in providers:
        for _rc, used, cap in provider['_rows']:
            if cap > 0:
                ratio = max(ratio, used / cap)
            elif used:
                ratio = 1.0
    return min(ratio, 1.0)


class Snapshot:
    """The cloud at one moment (see the module docstring). Never changed
    once built: a newer one replaces it."""

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
        # Read through Placement's public API (no nova_lite capacity
        # routes: OpenStack Placement), which the page says.
        self.public_placement = False

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
        """The live document's cells (heat map rows and totals) and down
        cells (built once per snapshot; the per-provider usages are only
        in :meth:`live`)."""
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
        """The data API's document as JSON, and its ETag: the cells, and
        per provider ``{rc: [used, capacity]}``, joined from each
        provider's JSON made when it was read."""
        if self._live is None:
            doc = self.live_doc()
            body = ('{"cells":%s,"down_cells":%s,"usages":{%s}}' % (
                jsonutils.dumps(doc['cells']),
                jsonutils.dumps(doc['down_cells']),
                ','.join(p.get('_json') or prepare(p)['_json']
                         for p in self.providers.values()))).encode('utf-8')
            etag = '"%s"' % hashlib.sha1(body).hexdigest()[:20]
            self._live = (body, etag)
        return self._live


def live_document(snapshot):
    """Per cell the heat map rows (node name, host, fill ratio, state,
    servers) and usage totals."""
    cells = []
    providers = snapshot.providers
    ratios = snapshot.ratios
    for cell in snapshot.cells:
        squares = []
        totals = {}
        for host in cell['hosts']:
            host_name, state = host['host'], host['state']
            for node in host['nodes']:
                uuid = node['uuid']
                squares.append([node['name'], host_name,
                                round(ratios.get(uuid, 0.0), 3), state,
                                node['servers']])
                provider = providers.get(uuid)
                if provider is None:
                    continue
                for rc, used, cap in provider['_rows']:
                    total = totals.get(rc)
                    if total is None:
                        totals[rc] = [used, cap]
                    else:
                        total[0] += used
                        total[1] += cap
        cells.append({'name': cell['name'], 'uuid': cell['uuid'],
                      'nodes': squares, 'totals': totals})
    return {'cells': cells, 'down_cells': snapshot.down_cells}


def _read_cells(context):
    """``(cells, servers by node, down cell uuids)`` from the cells: one
    session per cell (services, nodes and instances as plain rows)."""
    results = nl_cells.scatter_gather_all(
        context, capacity_rows.cell_rows, servicegroup.COMPUTE_BINARY,
        include_cell0=False)
    down = sorted(u for u, r in results.items() if nl_cells.is_failure(r))
    mappings = [c for c in objects.CellMappingList.get_all(context).objects
                if not c.is_cell0]
    names = {c.uuid: c.name or c.uuid for c in mappings}
    servers = {}
    cells = []
    for cell_uuid, (services, nodes, instances) in nl_cells.successful(
            results):
        if cell_uuid not in names:
            continue
        for uuid, name, project, state, node in instances:
            servers.setdefault(node, []).append((uuid, name, project, state))
        by_host = {s['host']: s for s in services}
        hosts = {}
        for node_uuid, host_name, nodename in nodes:
            host = hosts.get(host_name)
            if host is None:
                host = hosts[host_name] = _host(host_name,
                                                by_host.get(host_name))
            host['nodes'].append({'name': nodename, 'uuid': node_uuid,
                                  'servers': len(servers.get(nodename,
                                                             ()))})
        ordered = sorted(hosts.values(), key=lambda h: h['host'])
        for host in ordered:
            host['nodes'].sort(key=lambda n: n['name'])
        cells.append({'uuid': cell_uuid, 'name': names[cell_uuid],
                      'hosts': ordered})
    cells.sort(key=lambda c: c['name'])
    return cells, servers, down


def _host(name, service):
    if service is None:
        state = 'unknown'
    elif not servicegroup.is_up(service):
        state = 'down'
    elif service['disabled']:
        state = 'disabled'
    else:
        state = 'up'
    return {'host': name, 'state': state, 'nodes': [],
            'disabled_reason': service['disabled_reason']
            if service is not None else None}


def build(context, placement):
    """A fresh :class:`Snapshot` (cells and placement read now)."""
    cells, servers, down = _read_cells(context)
    placement = placement_reads.CapacityReader(placement)
    providers = {p['uuid']: prepare(p) for p in placement.get_capacity()}
    snapshot = assemble(cells, providers, servers, down)
    snapshot.public_placement = placement.public
    return snapshot


def assemble(cells, providers, servers, down):
    """A Snapshot of what was read; node fill ratios computed here."""
    snapshot = Snapshot(cells, providers, servers, down)
    trees = {}
    for provider in providers.values():
        trees.setdefault(provider['root_provider_uuid'], []).append(provider)
    snapshot.ratios = {node['uuid']: fill_ratio(trees.get(node['uuid'], []))
                       for _c, _h, node in snapshot.nodes()}
    return snapshot


def read_placement(placement, known):
    """``{uuid: provider}`` as placement has it now, re-reading in full
    only the providers whose generation moved (or all of them when
    ``known`` is None or too many moved); the others keep their
    inventories, traits and aggregates and take their new usages
    (allocations that leave a provider do not move its generation)."""
    if known is None:
        return {p['uuid']: prepare(p) for p in placement.get_capacity()}
    usages = placement.get_capacity_usages()
    stale = [uuid for uuid, generation, _used in usages
             if uuid not in known or
             known[uuid]['generation'] != generation]
    if len(stale) > FULL_READ_ABOVE:
        LOG.debug('Dashboard: %d providers changed, reading all',
                  len(stale))
        return {p['uuid']: prepare(p) for p in placement.get_capacity()}
    fresh = {}
    for start in range(0, len(stale), CHUNK):
        for provider in placement.get_capacity(stale[start:start + CHUNK]):
            fresh[provider['uuid']] = prepare(provider)
    providers = {}
    moved = 0
    for uuid, _generation, used in usages:
        provider = fresh.get(uuid)
        if provider is None:
            provider = known.get(uuid)
            if provider is None:
                continue        # gone between the two reads
            now = dict.fromkeys(provider['inventories'], 0)
            now.update(used)
            if now != provider['usages']:
                provider = prepare(dict(provider, usages=now))
                moved += 1
        providers[uuid] = provider
    LOG.debug('Dashboard: %d providers re-read, %d usages changed, %d gone',
              len(fresh), moved, len(set(known) - set(providers)))
    return providers


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
        self._placement = None

    def _reader(self, placement):
        if self._placement is None or self._placement.client is not placement:
            self._placement = placement_reads.CapacityReader(placement)
        return self._placement

    def get(self, context, placement, cell_interval):
        with self._lock, _no_gc():
            placement = self._reader(placement)
            now = self._clock()
            fingerprint = placement.get_capacity_fingerprint()
            placement_changed = fingerprint != self._fingerprint
            if placement_changed:
                self._providers = read_placement(placement, self._providers)
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
                    self._snapshot.public_placement = placement.public
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
