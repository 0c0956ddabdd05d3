"""Server side of the scheduler RPC API: ``select_destinations``.

One request, as Nova's scheduler does it (NOVA_FACTS 1.3, 1.4, 2.1, 2.7):

1. refresh the host manager's cache (cells, aggregates; see
   :mod:`nova_lite.scheduler.host_manager`);
2. build the placement query (flavor, extra specs, image, destination) and
   run the request prefilters; a malformed request ends here in
   NoValidHost naming the offending key;
3. ``GET /allocation_candidates`` (``limit = [scheduler]
   max_placement_results``); hosts are the compute nodes that are roots of
   the candidates, each carrying its candidates;
4. per instance: filter, weigh, pick (``host_subset_size``) - or a random
   order with ``[scheduler] driver = chance_scheduler`` - then claim the
   chosen host's first candidate in placement; a refused claim moves on to
   the next host; the pick is consumed from the host state (and recorded
   in the server group) so the next instance sees it; the weights are
   kept between the instances and only the consumed host is weighed
   again (:class:`~nova_lite.scheduler.weights.RequestWeighing`);
5. alternates: up to ``max_attempts - 1`` further hosts of the chosen
   host's cell, in weighed order, not chosen for any instance of the
   request, each with its own (unclaimed) candidate.

The claims of step 4 and the Selections of step 5 are
:mod:`nova_lite.scheduler.claim_loop`'s.

If instance k cannot be placed, the claims of instances placed before it in
the same request are deleted before NoValidHost is raised.

Two moves change this (the hint ``_nova_check_type``, as Nova's):

* ``['rebuild']``: a rebuild with a new image re-checks the instance's
  current host (the request spec's requested destination): no placement
  query, no claim, only the filters with ``RUN_ON_REBUILD``;
* ``['evacuate']``: the instance consumer keeps its allocation on the
  dead source, so the claim on the destination is merged into it (with
  the consumer generation) and is never released here. The NoValidHost
text says what placement was asked and returned and which filter removed
how many hosts; it is logged at INFO too.
"""

import contextlib
import gc
import threading
import time

import oslo_messaging as messaging
from oslo_log import log as logging
from oslo_service import periodic_task

from nova_lite import cells
from nova_lite.clients import placement as placement_client
from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite.db import host_discovery
from nova_lite import exception
from nova_lite import manager
from nova_lite import notifications
from nova_lite import objects
from nova_lite.scheduler import chance
from nova_lite.scheduler import claim_loop
from nova_lite.scheduler import claims
from nova_lite.scheduler import deadline
from nova_lite.scheduler import decision
from nova_lite.scheduler import explain
from nova_lite.scheduler import filters
from nova_lite.scheduler.filters import affinity_filter
from nova_lite.scheduler import host_manager as hm
from nova_lite.scheduler import host_state
from nova_lite.scheduler import placement_query as pq
from nova_lite.scheduler import request_filter
from nova_lite.scheduler import weights

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

# The filter or weigher a server group policy needs.
_POLICY_PLUGINS = {
    'affinity': ('ServerGroupAffinityFilter', 'enabled_filters'),
    'anti-affinity': ('ServerGroupAntiAffinityFilter', 'enabled_filters'),
    'soft-affinity': ('ServerGroupSoftAffinityWeigher', 'weight_classes'),
    'soft-anti-affinity': ('ServerGroupSoftAntiAffinityWeigher',
                           'weight_classes'),
}


class Timings:
    """Seconds spent per phase of the last request (for the benchmark)."""

    PHASES = ('db', 'placement', 'filters', 'weighers', 'claims')

    def __init__(self):
        self.seconds = dict.fromkeys(self.PHASES, 0.0)

    @contextlib.contextmanager
    def phase(self, name):
        started = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] += time.perf_counter() - started


class _Request:
    """The state of one select_destinations call."""

    def __init__(self, spec, instance_uuids, context=None):
        self.spec = spec
        self.context = context  # its reply_deadline: see deadline.py
        self.instance_uuids = list(instance_uuids or [])
        self.num_instances = (len(self.instance_uuids) or
                              max(1, spec.num_instances or 1))
        self.claim = bool(self.instance_uuids)
        self.query = None
        self.num_candidates = 0
        self.version = pq.ALLOCATION_CANDIDATES_VERSION
        self.hosts = []
        self.chosen = []        # (HostState, allocation request) per pick
        self.claimed = []       # instance uuids claimed so far
        self.timings = Timings()
        self.attempts = []      # decision record per instance
        # The weights kept between the instances (weights.RequestWeighing).
        self.weighing = None
        self.recorder = decision.Recorder(
            decision.kind_of(check_type(spec)), self.num_instances)


class SchedulerManager(manager.Manager):
    """Scheduler endpoint (API version 1.0): select_destinations; with
    ``return_decisions`` the chosen Selection of each instance and a
    NoValidHost carry the decision record.
    """

    target = messaging.Target(version='1.0')

    def __init__(self, host=None, placement=None, host_manager=None):
        super().__init__(host=host)
        self._placement = placement
        self.host_manager = host_manager or hm.HostManager()
        self.claim_stats = claims.ClaimStats()
        self.last_timings = None
        self._handlers = None
        self._handler_key = None

    @property
    def placement(self):
        if self._placement is None:
            self._placement = placement_client.PlacementClient()
        return self._placement

    def post_start_hook(self):
        """Fill the host cache now, so the first request does not pay for
        reading every cell in full (a failure only delays that)."""
        try:
            cells = self.host_manager.refresh(
                nl_context.get_admin_context())
            LOG.info('Host cache warmed: %d cells, %d compute nodes',
                     len(cells), sum(len(c.templates) for c in cells))
        except Exception as err:  # noqa: BLE001 - retried per request
            LOG.warning('Host cache not warmed at start: %s', err)
        # The filter and weigher plugins too (finding them reads the
        # package directories): not the first request's cost.
        self._get_handlers()
        freeze_start_heap()

    def cleanup_host(self):
        self.host_manager.close()

    @periodic_task.periodic_task(spacing=1, run_immediately=True)
    def _discover_hosts_in_cells(self, context):
        interval = CONF.scheduler.discover_hosts_in_cells_interval
        if interval > 0 and self._due('discover_hosts', interval):
            self.discover_hosts(context)
            self._read_new_nodes(context)

    def _read_new_nodes(self, context):
        """Bring the host cache up to date after a discovery pass.

        Compute nodes that registered since the last request are parsed
        now, not by the next request: after a wave of registrations (a
        new rack, a lab stacked with 10,000 nodes) the first request
        would otherwise read and parse every new row (thousands, in one
        request) while a burst of boots waits. When nothing
        changed, the read is the request's own cheap incremental one.
        """
        try:
            self.host_manager.refresh(context)
        except Exception as err:  # noqa: BLE001 - the next request reads
            LOG.warning('Host cache not refreshed after discovery: %s', err)

    def discover_hosts(self, context):
        """Map the new compute hosts of every cell; return their names.

        What ``nova-lite-manage cell_v2 discover_hosts`` does, run by the
        scheduler every ``[scheduler] discover_hosts_in_cells_interval``
        so computes added to a running cloud are scheduled to without an
        operator. Several schedulers may run it: mapping is idempotent.
        A cell that cannot be read is retried at the next period.
        """
        added = []
        for cell in objects.CellMappingList.get_all(context).objects:
            if cell.is_cell0:
                continue
            try:
                # A cell whose database refuses connections (its node is
                # down) holds the pass up for [scheduler] cell_timeout at
                # most, not the whole transient retry budget.
                with cells.waiting(CONF.scheduler.cell_timeout), \
                        cells.target_cell(context, cell) as cctxt:
                    new, conflicts = host_discovery.discover_in_cell(
                        context, cell, cctxt)
            except Exception as err:  # noqa: BLE001 - next period retries
                LOG.warning('Host discovery in cell %s failed: %s',
                            cell.name, err)
                continue
            if new:
                LOG.info('Discovered hosts %s in cell %s', ', '.join(new),
                         cell.name)
            if conflicts:
                LOG.warning('Hosts %s of cell %s are mapped to another cell',
                            ', '.join(conflicts), cell.name)
            added.extend(new)
        return added

    # -- RPC ---------------------------------------------------------------

    @messaging.expected_exceptions(exception.NoValidHost)
    def select_destinations(self, context, request_spec, instance_uuids,
                            return_alternates=True, return_decisions=False):
        """RPC: :meth:`schedule` (NoValidHost is an expected exception)."""
        return self.schedule(context, request_spec, instance_uuids,
                             return_alternates, return_decisions)

    def schedule(self, context, request_spec, instance_uuids,
                 return_alternates=True, return_decisions=False):
        """Pick (and claim) a host per instance; see the module docstring.

        :param request_spec: an ``objects.RequestSpec``; the caller's
            object is left as it is (the request works on a copy).
        :param instance_uuids: the instances to place; empty means no
            claims (``request_spec.num_instances`` hosts are picked).
        :param return_decisions: the chosen Selections carry their
            decision record (:mod:`nova_lite.scheduler.decision`) in
            ``decision``, a NoValidHost in its ``decision`` kwarg.
        :returns: per instance, a list of ``objects.Selection``: the chosen
            host first, then the alternates.
        :raises NoValidHost: with the explanation.
        """
        notifications.scheduler_select_destinations(context, request_spec,
                                                    'start', self.host)
        try:
            result, attempts = self._schedule(
                context, request_spec, instance_uuids, return_alternates)
        except exception.NoValidHost as err:
            recorder = err.kwargs.pop('_recorder', None)
            if return_decisions and recorder is not None:
                err.kwargs['decision'] = decision.dumps(recorder.failure())
            raise
        if return_decisions:
            for items, attempt in zip(result, attempts, strict=False):
                if items:
                    items[0].decision = decision.dumps(attempt)
        notifications.scheduler_select_destinations(context, request_spec,
                                                    'end', self.host)
        return result

    def _schedule(self, context, request_spec, instance_uuids,
                  return_alternates):
        try:
            spec = _own_copy(request_spec)
        except (TypeError, ValueError, AttributeError) as err:
            reason = 'The request spec is invalid: %s.' % err
            LOG.info('No valid host: %s', reason)
            raise explain.no_valid_host(reason)
        request = _Request(spec, instance_uuids, context)
        try:
            result = self._select(context, request, return_alternates)
            deadline.check(context, 'answering')
            return result, request.attempts
        except exception.NoValidHost as err:
            claim_loop.release(self.placement, request)
            request.recorder.failed(err.kwargs.get('reason', str(err)))
            err.kwargs['_recorder'] = request.recorder
            LOG.info('No valid host for %s: %s (placement query: %s)',
                     _describe(request), err.kwargs.get('reason', err),
                     request.query)
            raise
        except (exception.InvalidSchedulerRequest,
                request_filter.RequestFilterFailed) as err:
            claim_loop.release(self.placement, request)
            reason = explain.explain_invalid_request(err)
            LOG.info('No valid host for %s: %s', _describe(request), reason)
            raise _recorded(explain.no_valid_host(reason), request, reason)
        except placement_client.PlacementClientError as err:
            claim_loop.release(self.placement, request)
            reason = 'Placement could not be used: %s' % err
            LOG.warning('No valid host for %s: %s', _describe(request),
                        reason)
            raise _recorded(explain.no_valid_host(reason), request, reason)
        except Exception:
            claim_loop.release(self.placement, request)
            raise
        finally:
            self.last_timings = request.timings.seconds

    # -- the request -------------------------------------------------------

    def _select(self, context, request, return_alternates):
        spec = request.spec
        if check_type(spec) == 'rebuild':
            return self._select_for_rebuild(context, request)
        self._check_group_policy(spec)
        with request.timings.phase('db'):
            cells = self.host_manager.refresh(context,
                                              _cells_wanted(spec))
        request.query = self._build_query(spec, cells)
        request.recorder.query = str(request.query)
        with request.timings.phase('placement'):
            by_root = self._candidates(request)
        request.recorder.candidates = request.num_candidates
        request.recorder.hosts = len(by_root)
        with request.timings.phase('db'):
            request.hosts = self.host_manager.get_host_states_by_uuids(
                cells, list(by_root))
            for state in request.hosts:
                state.allocation_candidates = by_root[state.uuid]
            self._fill_group_hosts(spec, cells)
        request.recorder.hosts = len(request.hosts)
        if not request.hosts:
            raise explain.no_valid_host(_no_hosts_reason(request, by_root),
                                        request.query)
        uuids = request.instance_uuids or [None] * request.num_instances
        last_sorted = []
        for index, instance_uuid in enumerate(uuids):
            spec.instance_uuid = instance_uuid
            request.recorder.start_instance(index)
            last_sorted = self._place_one(request, index, instance_uuid)
        num_alts = (CONF.scheduler.max_attempts - 1
                    if return_alternates else 0)
        if num_alts and request.num_instances > 1:
            last_sorted, _result = self._sorted_hosts(
                request, request.num_instances, record=False)
        return claim_loop.selections(request, last_sorted, num_alts)

    def _select_for_rebuild(self, context, request):
        """Check the rebuilt instance's current host (no query, no claim):
        the new image must suit it (filters with RUN_ON_REBUILD)."""
        spec = request.spec
        dest = spec.requested_destination
        if dest is None or not dest.host:
            raise explain.no_valid_host(
                'A rebuild check needs the instance\'s host as the '
                'requested destination.')
        with request.timings.phase('db'):
            cells = self.host_manager.refresh(context, _cells_wanted(spec))
            uuids = self.host_manager.nodes_of(cells, dest.host, dest.node)
            request.hosts = self.host_manager.get_host_states_by_uuids(
                cells, uuids)
        if not request.hosts:
            raise explain.no_valid_host('No such host - host: %s node: %s.'
                                        % (dest.host, dest.node))
        filter_handler, _weights, _chance = self._get_handlers()
        if filter_handler is None:
            filter_handler = filters.FilterHandler()
        with request.timings.phase('filters'):
            result = filter_handler.get_filtered_hosts(request.hosts, spec,
                                                       rebuild=True)
        if not result.hosts:
            raise explain.no_valid_host(
                'The instance\'s host %s cannot run the new image: %s.' % (
                    dest.host, explain.describe_steps(result.steps)))
        state = result.hosts[0]
        LOG.info('Rebuild check of instance %s passed on %s',
                 spec.instance_uuid, state.host)
        return [[claim_loop.selection(state, None, request.version)]]

    def _place_one(self, request, index, instance_uuid):
        """Pick, claim and consume a host for one instance; sorted hosts."""
        spec = request.spec
        ordered, result = self._sorted_hosts(request, index)
        if not ordered:
            raise explain.no_valid_host(explain.explain_filtered(
                request.num_candidates, len(request.hosts), result, index,
                request.num_instances), request.query)
        chosen, alloc_req = claim_loop.claim_first(
            self.placement, request, ordered, instance_uuid,
            stats=self.claim_stats,
            evacuation=check_type(spec) == 'evacuate')
        if chosen is None:
            raise explain.no_valid_host(_claims_failed_reason(
                request, result, len(ordered), index), request.query)
        host_state.consume_selected_host(chosen, spec, instance_uuid)
        if request.weighing is not None:
            request.weighing.consumed(chosen)
        self.host_manager.consume_in_cache(chosen, spec)
        request.chosen.append((chosen, alloc_req))
        request.recorder.picked(chosen)
        return ordered

    def _sorted_hosts(self, request, index, record=True):
        filter_handler, weight_handler, chance_order = self._get_handlers()
        spec = request.spec
        recorder = request.recorder if record else None
        if chance_order is not None:
            with request.timings.phase('filters'):
                ordered, result = chance_order.sorted_hosts(
                    request.hosts, spec, index)
            if recorder is not None:
                recorder.filtered(result)
            return ordered, result
        with request.timings.phase('filters'):
            result = filter_handler.get_filtered_hosts(request.hosts, spec,
                                                       index)
        if recorder is not None:
            recorder.filtered(result)
        if not result.hosts:
            return [], result
        with request.timings.phase('weighers'):
            weighing = request.weighing
            if weighing is None or weighing.handler is not weight_handler:
                weighing = request.weighing = weight_handler.for_request(spec)
            ordered, totals = weighing.weigh(result.hosts)
            if recorder is not None:
                recorder.weighed(weighing.top(decision.TOP_HOSTS),
                                 weighing.multipliers(),
                                 count=len(ordered))
            ordered = weights.pick(ordered, totals)
        return ordered, result

    # -- pieces --------------------------------------------------------------

    def _get_handlers(self):
        key = (CONF.scheduler.driver,
               tuple(CONF.filter_scheduler.enabled_filters),
               tuple(CONF.filter_scheduler.weight_classes))
        if self._handler_key != key:
            if CONF.scheduler.driver == 'chance_scheduler':
                self._handlers = (None, None, chance.ChanceOrder())
            else:
                self._handlers = (filters.FilterHandler(),
                                  weights.WeightHandler(), None)
            self._handler_key = key
        return self._handlers

    def _check_group_policy(self, spec):
        group = spec.instance_group
        if group is None or CONF.scheduler.driver == 'chance_scheduler':
            return
        if group.policy not in _POLICY_PLUGINS:
            raise exception.InvalidSchedulerRequest(
                'instance_group.policy',
                'unknown server group policy %r' % (group.policy,))
        plugin, option = _POLICY_PLUGINS[group.policy]
        configured = getattr(CONF.filter_scheduler, option)
        if plugin not in configured and 'all' not in configured:
            raise exception.InvalidSchedulerRequest(
                'instance_group.policy',
                'policy %s needs %s in [filter_scheduler] %s' % (
                    group.policy, plugin, option))
        if group.policy == 'anti-affinity':
            affinity_filter.max_server_per_host(group)

    def _build_query(self, spec, cells):
        in_tree = self._resolve_in_tree(spec, cells)
        query = pq.build_query(spec, in_tree=in_tree)
        request_filter.process_reqspec(spec, query,
                                       self.host_manager.aggregates)
        return query

    def _resolve_in_tree(self, spec, cells):
        """The node uuid when a forced or requested host names one node."""
        dest = spec.requested_destination
        host = node = None
        if dest is not None and dest.host:
            host, node = dest.host, dest.node
        elif len(spec.force_hosts) == 1:
            host = spec.force_hosts[0]
            node = spec.force_nodes[0] if len(spec.force_nodes) == 1 \
                else None
        elif len(spec.force_nodes) == 1:
            found = self.host_manager.node_named(cells, spec.force_nodes[0])
            if found is None:
                raise explain.no_valid_host('No such node %s.'
                                            % spec.force_nodes[0])
            return found
        if host is None:
            return None
        nodes = self.host_manager.nodes_of(cells, host, node)
        if not nodes:
            raise explain.no_valid_host(
                'No such host - host: %s node: %s.' % (host, node))
        return nodes[0] if len(nodes) == 1 else None

    def _candidates(self, request):
        """``{root provider uuid: [allocation requests]}`` from placement."""
        try:
            answer = self.placement.get_allocation_candidates(
                request.query.params(), microversion=request.version)
        except placement_client.PlacementError as err:
            if err.status == 400:
                raise explain.no_valid_host(
                    'Placement rejected the request: %s' % err.detail,
                    request.query)
            raise
        alloc_reqs = answer.get('allocation_requests') or []
        summaries = answer.get('provider_summaries') or {}
        request.num_candidates = len(alloc_reqs)
        if not alloc_reqs:
            raise explain.no_valid_host(explain.explain_no_candidates(),
                                        request.query)
        return requests_by_root(alloc_reqs, summaries)

    def _fill_group_hosts(self, spec, cells):
        group = spec.instance_group
        if group is None or not group.members:
            return
        hosts = self.host_manager.group_hosts(cells, group.members)
        if hosts or not group.hosts:
            group.hosts = hosts

_frozen = threading.Event()


def freeze_start_heap():
    """Hide what the process holds once started (modules, configuration,
    the warm host cache) from the garbage collector's full collections,
    once per process.

    Each request keeps ~1,000 host states and placement's candidates
    alive while it allocates, so they reach the oldest generation and
    trigger a full collection every few requests; each one walked the
    whole heap, which at 10,000 nodes is a large share of a request's
    mean cost (the gap between its median and its mean). Frozen objects
    are still freed by reference counting; only a cycle among them is
    never collected.
    """
    if not _frozen.is_set():
        _frozen.set()
        gc.freeze()


def _recorded(error, request, reason):
    """``error`` (a NoValidHost) carrying the request's recorder."""
    request.recorder.failed(reason)
    error.kwargs['_recorder'] = request.recorder
    return error


def requests_by_root(alloc_reqs, summaries):
    """Allocation requests grouped by the root provider they land on."""
    by_root = {}
    for alloc_req in alloc_reqs:
        roots = []
        for rp_uuid in alloc_req.get('allocations', {}):
            summary = summaries.get(rp_uuid) or {}
            root = summary.get('root_provider_uuid') or rp_uuid
            if root not in roots:
                roots.append(root)
        for root in roots:
            by_root.setdefault(root, []).append(alloc_req)
    return by_root


def _own_copy(request_spec):
    """The request's spec as the scheduler reads and changes it: a copy
    (the pick of each instance is written into it) with every field set."""
    return request_spec.obj_clone().fill_defaults()


def check_type(spec):
    """The move a request is for (``rebuild``, ``evacuate``), or None:
    the ``_nova_check_type`` scheduler hint."""
    return spec.get_hint('_nova_check_type')


def _cells_wanted(spec):
    dest = spec.requested_destination
    if dest is not None and dest.cell_uuid and not dest.allow_cross_cell_move:
        return [dest.cell_uuid]
    return None


def _describe(request):
    spec = request.spec
    return '%d instance(s) %s of project %s' % (
        request.num_instances, ','.join(u for u in request.instance_uuids
                                        if u) or '-', spec.project_id)


def _no_hosts_reason(request, by_root):
    return ('%s; none of the %d candidate hosts is a compute node of a '
            'reachable cell with a compute service.' % (
                explain.describe_candidates(request.num_candidates,
                                            len(by_root)),
                len(by_root)))


def _claims_failed_reason(request, result, num_tried, index):
    text = explain.describe_candidates(request.num_candidates,
                                       len(request.hosts))
    if request.num_instances > 1:
        text += '; for instance %d of %d' % (index + 1,
                                             request.num_instances)
    return ('%s; %s; the claims in placement failed on all %d hosts that '
            'passed (other builds took the room first).' % (
                text, explain.describe_steps(result.steps), num_tried))
