"""Host manager: host states of the compute nodes placement returned.

The scheduler asks placement which compute nodes fit, then needs what only
the cell databases know about them: the compute_nodes row (sizes, ratios,
stats), the compute service (disabled, forced down, last heartbeat), the
instances on the host (server groups, same/different host, I/O and
instance counts), plus the host aggregates of the API database (AZs,
aggregate filters, weight multipliers).

Caching, and why it stays correct:

- Per cell the manager keeps every live compute node (as a host state
  template, parsed once), the compute services, and every instance that
  has a host. Each request refreshes them: compute nodes and instances
  *changed since the last read* (``updated_at``/``created_at``/
  ``deleted_at`` at or after the time of the previous read minus
  ``[scheduler] host_state_refresh_margin`` seconds, for late commits and
  small clock skew), compute services the same way (a heartbeat updates
  its row, so liveness stays current), and a full reload of all three
  every ``host_state_full_refresh_interval`` seconds as a safety net (it
  also drops services deleted outright, which leave no changed row, and
  the picks kept in the cache, see :meth:`HostManager.consume_in_cache`).
  A request therefore reads a few rows, not 10,000; a full read re-parses
  only the rows whose stamp changed or whose template took a pick
  (parsing every row again each interval is CPU that grows with the
  number of nodes).
- Aggregates and cell mappings (a handful of rows) are read in full on
  every request.
- Host states handed to filters are fresh copies of the templates, so
  consuming resources between the picks of one request never leaks into
  another request. Only the candidates placement returned get one; the
  nodes of one compute service share one copy of its row per request,
  whose liveness (``up``) is worked out once, not once per node.

Cells are read in parallel (scatter-gather), each within ``[scheduler]
cell_timeout`` seconds; a cell whose database errors or does not answer in
time is skipped with a warning, and its hosts are not scheduled to in that
request. cell0 (no computes) and disabled cells are never read.
"""

import concurrent.futures
import contextlib
import copy
import datetime
import threading
import time

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite import conf as nl_conf
from nova_lite.db.api import aggregate_api
from nova_lite.db.api import api as api_db
from nova_lite.db import session as db_session
from nova_lite.db import types as db_types
from nova_lite.scheduler import host_db
from nova_lite.scheduler import host_state as hs
from nova_lite import servicegroup

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

CELL0_UUID = api_db.CELL0_UUID


class CellUnavailable(Exception):
    """A cell's database errored or did not answer in time."""


class CellHosts:
    """The cached compute nodes, services and instances of one cell."""

    def __init__(self, mapping):
        self.uuid = mapping.uuid
        self.name = mapping.name
        self.database_connection = mapping.database_connection
        self.lock = threading.Lock()
        self.templates = {}     # node uuid -> HostState (rows only)
        self.services = {}      # host -> service row (dict)
        self.instance_hosts = {}  # instance uuid -> host
        self.by_host = {}       # host -> {instance uuid: InstanceInfo}
        self.consumed = set()   # node uuids whose template took a pick
        self.mark = None        # naive UTC: read rows changed since then
        self.last_full = None   # time.monotonic() of the last full read

    def __repr__(self):
        return '<cell %s (%s): %d nodes>' % (self.name, self.uuid,
                                             len(self.templates))

    def _context(self, context):
        cctxt = copy.copy(context)
        cctxt.cell_uuid = self.uuid
        cctxt.db_connection = db_session.get_cell_context_manager(
            self.database_connection)
        return cctxt

    def _full_read_due(self):
        interval = CONF.scheduler.host_state_full_refresh_interval
        return (self.mark is None or interval <= 0 or
                time.monotonic() - self.last_full >= interval)

    @contextlib.contextmanager
    def locked(self):
        """Hold the cell's lock (refreshes write, host states read)."""
        if not self.lock.acquire(timeout=CONF.scheduler.cell_timeout):
            raise CellUnavailable('a previous read of cell %s still runs'
                                  % self.name)
        try:
            yield
        finally:
            self.lock.release()

    def refresh(self, context):
        """Bring the cache up to date with the cell database."""
        # Retries of a cell that refuses connections end when the
        # request stops waiting for it ([scheduler] cell_timeout).
        with self.locked(), db_session.retries_until(
                time.monotonic() + CONF.scheduler.cell_timeout):
            self._refresh(self._context(context))

    def _refresh(self, cctxt):
        full = self._full_read_due()
        started = db_types.utcnow()
        since = None if full else self.mark
        with host_db.reading(cctxt):
            nodes = host_db.compute_nodes(cctxt, since)
            services = host_db.compute_services(cctxt, since)
            instances = host_db.instances_on_hosts(cctxt, since)
        if full:
            self.services = {}
            self.instance_hosts = {}
            self.by_host = {}
        self._apply_nodes(nodes, full)
        for row in services:
            self.services[row['host']] = hs._service_dict(row)
        self._apply_instances(instances)
        margin = datetime.timedelta(
            seconds=CONF.scheduler.host_state_refresh_margin)
        self.mark = started - margin
        if full:
            self.last_full = time.monotonic()
        LOG.debug('Cell %s refreshed (%s): %d node rows, %d instance rows',
                  self.name, 'full' if full else 'changes', len(nodes),
                  len(instances))

    def _apply_nodes(self, rows, full=False):
        """Templates from node rows; a full read replaces them all.

        An unchanged row (same stamp) keeps its parsed template: re-read
        inside the margin, it keeps a pick too; on a full read, a
        template that took a pick is parsed again (the safety net).
        """
        known_templates = self.templates
        if full:
            self.templates = {}
        for row in rows:
            uuid = row['uuid']
            if row['deleted']:
                self.templates.pop(uuid, None)
                self.consumed.discard(uuid)
                continue
            known = known_templates.get(uuid)
            stamp = row['updated_at'] or row['created_at']
            if (known is not None and stamp is not None and
                    known.updated == stamp and
                    not (full and uuid in self.consumed)):
                self.templates[uuid] = known
                continue
            template = hs.HostState.from_compute_node(row,
                                                      cell_uuid=self.uuid)
            template.updated = stamp
            self.templates[uuid] = template
            self.consumed.discard(uuid)
        if full:
            self.consumed &= self.templates.keys()

    def _apply_instances(self, rows):
        for uuid, host, _node, project_id, deleted in rows:
            old_host = self.instance_hosts.pop(uuid, None)
            if old_host is not None:
                on_old = self.by_host.get(old_host)
                if on_old is not None:
                    on_old.pop(uuid, None)
            if deleted or not host:
                continue
            self.instance_hosts[uuid] = host
            self.by_host.setdefault(host, {})[uuid] = hs.InstanceInfo(
                uuid, project_id)

    def host_state(self, node_uuid, aggregates_of, services=None):
        """A fresh host state of ``node_uuid``, or None when unknown here.

        A node whose compute service has no row is left out, as Nova does.

        :param services: ``{host: service view}`` shared by the host
            states of one request (see :func:`_service_view`); None
            gives each state its own.
        """
        template = self.templates.get(node_uuid)
        if template is None:
            return None
        host = template.host
        view = None if services is None else services.get(host)
        if view is None:
            service = self.services.get(host)
            if service is None:
                LOG.debug('Node %s of host %s has no compute service row; '
                          'skipped', template.nodename, host)
                return None
            view = _service_view(service, getattr(services, 'now', None))
            if services is not None:
                services[host] = view
        return _clone(template, view, aggregates_of(host),
                      self.by_host.get(host, _NO_INSTANCES))


_NO_INSTANCES = {}


class ServiceViews(dict):
    """``{host: service view}`` of one request, and the one time their
    liveness is judged at (reading the clock per service cost more than
    the check itself)."""

    def __init__(self):
        super().__init__()
        self.now = timeutils.utcnow(with_timezone=True)


def _service_view(service, now=None):
    """A request's copy of a service row, its liveness worked out now:
    every node of the service reads it (``HostState.service_up``)."""
    return dict(service, up=servicegroup.is_up(service, now=now))


def _clone(template, service, aggregates, instances):
    # NOTE(sched): a plain __dict__ copy is several times cheaper than
    # copy.copy, and this runs once per candidate host per request. The
    # instances are shared with the cache: consume_from_request copies
    # them before it adds one.
    state = object.__new__(type(template))
    state.__dict__.update(template.__dict__)
    state._lock = threading.Lock()
    state.service = service
    state.aggregates = aggregates
    state.instances = instances
    state.limits = {}
    state.allocation_candidates = []
    return state


class HostManager:
    """Host states for a request, from all cells (see module docstring)."""

    def __init__(self, max_workers=8):
        self._cells = {}
        self._cells_lock = threading.Lock()
        self.aggregates = []
        self._host_aggregates = {}
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=max_workers, thread_name_prefix='cell-read')

    def close(self):
        self._executor.shutdown(wait=False)

    # -- API database ------------------------------------------------------

    def refresh_aggregates(self, context):
        """Reload host aggregates (with hosts and metadata)."""
        aggregates = []
        by_host = {}
        for row in aggregate_api.aggregate_get_all(context):
            agg = hs.Aggregate(id=row.id, uuid=row.uuid, name=row.name,
                               hosts=row.hosts, metadata=row.metadetails)
            aggregates.append(agg)
            for host in agg.hosts:
                by_host.setdefault(host, []).append(agg)
        self.aggregates = aggregates
        self._host_aggregates = by_host

    def aggregates_of(self, host):
        return self._host_aggregates.get(host, [])

    def _refresh_cell_mappings(self, context):
        mappings = [m for m in api_db.cell_mapping_get_all(context)
                    if m.uuid != CELL0_UUID and not m.disabled]
        with self._cells_lock:
            current = {}
            for mapping in mappings:
                cell = self._cells.get(mapping.uuid)
                if (cell is None or cell.database_connection !=
                        mapping.database_connection):
                    cell = CellHosts(mapping)
                current[mapping.uuid] = cell
            self._cells = current
            return list(current.values())

    # -- cells ---------------------------------------------------------------

    def refresh(self, context, cell_uuids=None):
        """Refresh aggregates and the cells; return the cells that answered.

        :param cell_uuids: only these cells (a move that must stay in its
            cell); None means every enabled cell.
        """
        self.refresh_aggregates(context)
        cells = self._refresh_cell_mappings(context)
        if cell_uuids is not None:
            cells = [c for c in cells if c.uuid in set(cell_uuids)]
        return self._scatter_gather(context, cells)

    def _scatter_gather(self, context, cells):
        futures = {self._executor.submit(cell.refresh, context): cell
                   for cell in cells}
        timeout = CONF.scheduler.cell_timeout
        done, not_done = concurrent.futures.wait(futures, timeout=timeout)
        live = []
        for future in futures:
            cell = futures[future]
            if future in not_done:
                LOG.warning('Cell %s (%s) did not answer within %.1f s; its '
                            'hosts are skipped', cell.name, cell.uuid,
                            timeout)
                continue
            error = future.exception()
            if error is not None:
                LOG.warning('Cell %s (%s) is unavailable, its hosts are '
                            'skipped: %s', cell.name, cell.uuid, error)
                continue
            live.append(cell)
        return live

    def _each_cell(self, cells):
        """Yield each cell of ``cells`` with its lock held; a cell whose
        lock stays taken (a refresh hangs) is skipped with a warning."""
        for cell in cells:
            try:
                with cell.locked():
                    yield cell
            except CellUnavailable as err:
                LOG.warning('Skipping cell %s: %s', cell.name, err)

    def get_host_states_by_uuids(self, cells, compute_uuids):
        """Fresh host states of the nodes ``compute_uuids`` in ``cells``.

        Order follows ``compute_uuids``; unknown uuids (not a compute node
        of a live cell, no compute service) are left out.
        """
        found = {}
        for cell in self._each_cell(cells):
            services = ServiceViews()
            templates = cell.templates
            for uuid in compute_uuids:
                # Most uuids are another cell's: no call for those.
                if uuid in templates and uuid not in found:
                    state = cell.host_state(uuid, self.aggregates_of,
                                            services)
                    if state is not None:
                        found[uuid] = state
        return [found[uuid] for uuid in compute_uuids if uuid in found]

    def consume_in_cache(self, host_state, spec):
        """Keep a claimed pick's resources out of the cached node.

        The compute rewrites its compute_nodes row only once the build is
        done, so until then every new request would see the node as it
        was and the weighers would pick it again and again (bursts of
        separate requests piled onto a few nodes). As Nova's host manager
        does, the cached node keeps the consumption until a newer row of
        it is read, which replaces it.
        """
        cell = self._cells.get(host_state.cell_uuid)
        if cell is None:
            return
        try:
            with cell.locked():
                template = cell.templates.get(host_state.uuid)
                if template is not None:
                    template.consume_from_request(spec)
                    cell.consumed.add(host_state.uuid)
        except CellUnavailable as err:
            LOG.debug('Pick on %s not kept in the cache: %s',
                      host_state.nodename, err)

    def get_all_host_states(self, cells):
        """Fresh host states of every cached node of ``cells``."""
        states = []
        for cell in self._each_cell(cells):
            services = ServiceViews()
            for uuid in cell.templates:
                state = cell.host_state(uuid, self.aggregates_of, services)
                if state is not None:
                    states.append(state)
        return states

    def nodes_of(self, cells, host, node=None):
        """Uuids of the nodes of ``host`` (and ``node``) in ``cells``."""
        found = []
        for cell in self._each_cell(cells):
            for uuid, template in cell.templates.items():
                if (template.host == host and
                        (node is None or template.nodename == node)):
                    found.append(uuid)
        return found

    def node_named(self, cells, nodename):
        """The uuid of the node called ``nodename``, or None."""
        for cell in self._each_cell(cells):
            for uuid, template in cell.templates.items():
                if template.nodename == nodename:
                    return uuid
        return None

    def group_hosts(self, cells, members):
        """One host per member of ``members`` that runs somewhere."""
        hosts = {}
        for cell in self._each_cell(cells):
            for uuid in members:
                host = cell.instance_hosts.get(uuid)
                if host is not None:
                    hosts.setdefault(uuid, host)
        return [hosts[uuid] for uuid in members if uuid in hosts]

    @property
    def cells(self):
        return list(self._cells.values())
