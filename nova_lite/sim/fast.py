"""The fast path of a replay: the scheduler's decision, evaluated
incrementally.

Between two decisions of a replay only the hosts a create or a delete
touched change; every other host would give the same answers as before.
So per *request shape* (the create's flavor or resources, image
properties, zone, project, user: everything of the event but its id and
time) this keeps, for every host:

- placement's answer for that provider: whether the request fits, by
  placement's own rules for one provider
  (:func:`nova_lite.placement.objects.allocation_candidate._fits` with
  placement's capacity, ``(total - reserved) * allocation_ratio``, the
  unit constraints, required and forbidden traits, ``root_required``)
  over a usage table
  kept here; with ``[scheduler] max_placement_results`` the candidates
  are the first that many fitting providers in provider order, as
  placement's unrandomized search returns them;
- the filters' verdict: the first enabled filter that rejects it, each
  filter run (``filter_all`` of the real filter class) on the host's
  real :class:`~nova_lite.scheduler.host_state.HostState`, which is the
  same object from decision to decision and is refreshed from the host
  manager's cache when its host changes;
- the weighers' raw weights, normalisation and order: one
  :class:`~nova_lite.scheduler.weights.RequestWeighing` per shape (the
  scheduler's own incremental weighing, its totals summed by numpy:
  :mod:`nova_lite.sim.kept_weighing`), told which hosts changed.

A decision then costs what changed since the shape's last decision, not
the number of hosts. The pick is :func:`nova_lite.scheduler.weights.pick`
with the same random draws; the decision record is written by the
scheduler's :class:`~nova_lite.scheduler.decision.Recorder` with the same
counts, steps and weights, and NoValidHost reasons by the same
:mod:`~nova_lite.scheduler.explain` functions. The claim goes into the
usage table; the allocations are written to placement in one batch
(``POST /allocations``) before anything reads placement: a create that
takes the full path, the first decision of a shape (see below), and the
end of the run. A delete of a server whose allocation is already in
placement deletes it there.

What takes the full path (``SchedulerManager.schedule`` and placement's
``GET /allocation_candidates``, as ``--exact`` does for every create):

- the whole run, when the snapshot has nested or sharing providers or a
  provider that is not a host, with ``[scheduler] driver =
  chance_scheduler``, or when ``[placement_api]
  randomize_allocation_candidates`` draws placement's candidates at
  random;
- a create with scheduler hints (``same_host``, ``different_host``, a
  server group...), a forced host or destination, or any query part
  other than ``resources``, ``required`` and ``root_required``
  (numbered groups, ``member_of``, ``in_tree``): answers that depend on
  other servers or other providers;
- a shape whose first decision disagrees with placement: that decision
  also asks placement for the candidates and compares the hosts, in
  order, with the ones computed here; any difference sends the shape to
  the full path for the rest of the run (counted in the report).
"""

import collections
import itertools
import json

from oslo_log import log as logging

from nova_lite import conf as nl_conf
from nova_lite import exception
from nova_lite.placement.objects import allocation_candidate as pac
from nova_lite.placement.objects import inventory as pinv
from nova_lite.scheduler import decision
from nova_lite.scheduler import explain
from nova_lite.scheduler import filters
from nova_lite.scheduler import host_state as hs
from nova_lite.scheduler import manager as sched_manager
from nova_lite.scheduler import weights
from nova_lite.sim import kept_weighing
from nova_lite.sim import snapshot

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)
_SHARING = 'MISC_SHARES_VIA_AGGREGATE'
_QUERY_PARTS = frozenset(['resources', 'required', 'root_required',
                          'limit'])


class _Provider:
    """What placement's per-provider check reads: ``inv`` is
    ``{rc: (capacity, min_unit, max_unit, step_size, used)}``."""

    __slots__ = ('inv', 'traits')

    def __init__(self, inventories, usages, traits):
        self.inv = {rc: (pinv.capacity(inv), inv['min_unit'],
                         inv['max_unit'], inv['step_size'],
                         usages.get(rc, 0))
                    for rc, inv in inventories.items()}
        self.traits = frozenset(traits)

    def add(self, rc, amount):
        capacity, low, high, step, used = self.inv[rc]
        self.inv[rc] = (capacity, low, high, step, used + amount)

    def usages(self):
        return {rc: row[4] for rc, row in self.inv.items() if row[4]}


def shape_key(event):
    """The events that share this key get the same answers from every
    host: all of the create but its id and time."""
    return json.dumps({k: v for k, v in event.items()
                       if k not in ('id', 'time', 'action')},
                      sort_keys=True)


def whole_run_reason(doc):
    """Why no create of this run may take the fast path, or None."""
    if CONF.scheduler.driver == 'chance_scheduler':
        return 'the chance scheduler'
    if CONF.placement_api.randomize_allocation_candidates:
        return 'randomized allocation candidates'
    hosts = {prov['uuid'] for prov, _host in snapshot.hosts(doc)}
    for prov in doc['providers']:
        if prov['uuid'] not in hosts:
            return 'provider %s is not a compute host' % prov['name']
        if _SHARING in prov['traits']:
            return 'provider %s is a sharing provider' % prov['name']
    return None


class _Shape:
    """One request shape's kept answers."""

    def __init__(self, spec, query, resources, required, forbidden, cap):
        self.spec = spec
        self.query = query
        self.query_text = str(query)
        self.resources = resources
        self.required = required
        self.forbidden = forbidden
        self.cap = cap
        self.exact = False      # its creates take the full path
        self.checked = False    # compared with placement's answer
        self.seen = 0           # position in the change log
        self.fits = {}          # node -> bool
        self.verdict = {}       # node -> index of the rejecting filter
        self.window = None      # candidate nodes, placement's order
        self.members = None     # host states that pass, in order
        self.steps = None       # the FilterStep list of `window`
        self.num_states = 0     # hosts of `window` with a host state
        self.weighing = None


class FastPath:
    """The incremental decisions of one :class:`~nova_lite.sim.runner.
    Replay` (see the module docstring)."""

    def __init__(self, replay):
        self.replay = replay
        self.manager = replay.manager
        self.hosts = replay.hosts
        self.placement = replay.placement
        self.reason = whole_run_reason(replay.doc)
        order = [p['uuid'] for p in snapshot.ordered_providers(replay.doc)]
        self.order = [u for u in order if u in self.hosts.hosts]
        answer = self.placement.get_capacity()
        # Metrics read the providers in placement's order.
        self.capacity_order = [p['uuid'] for p in answer]
        capacity = {p['uuid']: p for p in answer}
        self.inventories = {}   # node -> {rc: capacity row} (metrics)
        self.providers = {}
        for prov in replay.doc['providers']:
            found = capacity.get(prov['uuid']) or {}
            self.inventories[prov['uuid']] = found.get('inventories') or {}
            self.providers[prov['uuid']] = _Provider(
                prov['inventories'], found.get('usages') or {},
                prov['traits'])
        self.states = {}        # node -> the kept HostState
        self.log = []           # nodes, each time one changed
        self.shapes = {}
        self.pending = {}       # server uuid -> allocation body
        self.claimed = {}       # server uuid -> {node: resources}
        self.counts = {'fast': 0, 'exact': 0, 'shapes': 0,
                       'exact_shapes': 0, 'mismatched_shapes': 0}

    # -- the replay's calls --------------------------------------------------

    def create(self, event, uuid, make_spec):
        """``((host, node, node uuid), decision record, request spec)``,
        or raises NoValidHost (with ``decision`` in its kwargs); None when
        this create takes the full path. ``make_spec()`` builds the
        event's request spec (once per shape)."""
        if self.reason is not None:
            return None
        shape = self._shape(event, make_spec)
        if shape is None or shape.exact:
            return None
        if not shape.checked:
            shape.checked = True
            if not self._agrees(shape):
                shape.exact = True
                self.counts['mismatched_shapes'] += 1
                self.counts['exact_shapes'] += 1
                return None
        return self._decide(shape, uuid)

    def exact_create(self, node, uuid):
        """A create the full path placed (claimed in placement, which
        held every claim: :meth:`before_exact`)."""
        allocations = {
            rp: value['resources'] for rp, value in
            self.placement.get_allocations(uuid)['allocations'].items()}
        self.claimed[uuid] = allocations
        self._add(allocations, 1)

    def before_exact(self):
        """Placement must hold every claim before the full path runs."""
        self.counts['exact'] += 1
        self.flush()

    def delete(self, uuid):
        """Give a deleted server's resources back (in placement too when
        its allocation was written there)."""
        allocations = self.claimed.pop(uuid)
        if self.pending.pop(uuid, None) is None:
            self.placement.delete_allocations(uuid)
        self._add(allocations, -1)

    def moved(self, uuid):
        """A server moved by the full path (placement holds its
        allocation): its old claim is given back, its new one taken."""
        self._add(self.claimed.pop(uuid), -1)
        self.exact_create(None, uuid)

    def _add(self, allocations, sign):
        for node, resources in allocations.items():
            provider = self.providers[node]
            for rc, amount in resources.items():
                provider.add(rc, sign * amount)
            self._changed(node)

    def host_changed(self, node):
        self._changed(node)

    def flush(self):
        """Write the claims made here to placement (one batch)."""
        if not self.pending:
            return
        items = list(self.pending.items())
        for start in range(0, len(items), 1000):
            self.placement.post_allocations(dict(items[start:start + 1000]))
        self.pending = {}

    def capacity(self):
        """The usage of every host as ``GET /nova_lite/capacity`` gives
        it (the figures metrics read)."""
        return [{'uuid': node, 'inventories': self.inventories[node],
                 'usages': self.providers[node].usages()}
                for node in self.capacity_order]

    # -- shapes --------------------------------------------------------------

    def _shape(self, event, make_spec):
        key = shape_key(event)
        if key in self.shapes:
            return self.shapes[key]
        shape = self.shapes[key] = self._new_shape(make_spec())
        self.counts['shapes'] += 1
        if shape is None:
            self.counts['exact_shapes'] += 1
        return shape

    def _new_shape(self, request_spec):
        spec = sched_manager._own_copy(request_spec)
        if (spec.scheduler_hints or spec.instance_group is not None or
                spec.force_hosts or spec.force_nodes or spec.ignore_hosts
                or spec.requested_destination is not None):
            return None
        try:
            query = self.manager._build_query(spec, self.hosts.refresh(
                self.replay.context))
        except Exception:  # noqa: BLE001 - the full path explains it
            return None
        params = query.params()
        if {name for name, _v in params} - _QUERY_PARTS:
            return None
        group = query.unnumbered
        if not group.resources:
            return None
        cap = query.limit
        most = CONF.placement_api.max_allocation_candidates
        if most and most > 0:
            cap = most if cap is None else min(cap, most)
        # A provider here is its own root: root_required is its traits.
        return _Shape(spec, query, dict(group.resources),
                      frozenset(group.required_traits | query.root_required),
                      frozenset(group.forbidden_traits |
                                query.root_forbidden), cap)

    def _agrees(self, shape):
        """Placement's candidate hosts for the shape, in order, are the
        ones computed here."""
        self.flush()
        self._catch_up(shape)
        answer = self.placement.get_allocation_candidates(
            shape.query.params(),
            microversion=sched_manager.pq.ALLOCATION_CANDIDATES_VERSION)
        by_root = sched_manager.requests_by_root(
            answer.get('allocation_requests') or [],
            answer.get('provider_summaries') or {})
        theirs = list(by_root)
        if theirs != shape.window:
            LOG.warning('Request shape %s: placement returned %d hosts, '
                        'the fast path %d; its creates take the full path',
                        shape.query_text, len(theirs), len(shape.window))
            return False
        for node, reqs in by_root.items():
            if reqs[0]['allocations'] != {
                    node: {'resources': shape.resources}}:
                return False
        return True

    # -- per host ------------------------------------------------------------

    def _changed(self, node):
        state = self.states.get(node)
        if state is not None:
            self._refresh(node, state)
        self.log.append(node)

    def _state(self, node):
        state = self.states.get(node)
        if state is None:
            state = self.hosts.cell.host_state(node, self.hosts.aggregates_of)
            if state is not None:
                self.states[node] = state
        return state

    def _refresh(self, node, state):
        fresh = self.hosts.cell.host_state(node, self.hosts.aggregates_of)
        state.__dict__.update(fresh.__dict__)

    def _fits(self, shape, node):
        provider = self.providers[node]
        if provider.traits & shape.forbidden:
            return False
        if not shape.required <= provider.traits:
            return False
        return all(pac._fits(provider, rc, amount)
                   for rc, amount in shape.resources.items())

    def _verdict(self, shape, node, handler):
        state = self._state(node)
        if state is None:
            return -1
        for index, host_filter in enumerate(handler.filters):
            if not host_filter.filter_all([state], shape.spec):
                return index
        return len(handler.filters)

    def _catch_up(self, shape):
        """Bring the shape's answers up to the hosts' current state."""
        handler = self.manager._get_handlers()[0]
        if shape.window is None:
            changed = self.order
        else:
            changed = set(self.log[shape.seen:])
        shape.seen = len(self.log)
        if not changed:
            return
        moved = shape.window is None
        for node in changed:
            fits = self._fits(shape, node)
            if fits != shape.fits.get(node):
                shape.fits[node] = fits
                moved = True
            verdict = self._verdict(shape, node, handler) if fits else None
            if verdict != shape.verdict.get(node):
                shape.verdict[node] = verdict
                moved = True
            if shape.weighing is not None and node in self.states:
                shape.weighing.consumed(self.states[node])
        if moved:
            self._window(shape, handler)

    def _window(self, shape, handler):
        # Over every host, so in C: map, compress and Counter.
        window = list(itertools.compress(
            self.order, map(shape.fits.__getitem__, self.order)))
        if shape.cap is not None:
            del window[shape.cap:]
        shape.window = window
        verdicts = list(map(shape.verdict.__getitem__, window))
        passed = len(handler.filters)
        shape.members = list(map(self.states.__getitem__, itertools.compress(
            window, map(passed.__eq__, verdicts))))
        # How many hosts each filter let through: a host passed the
        # filters before the one that rejected it (-1: no host state).
        rejected = collections.Counter(verdicts)
        states = len(window) - rejected[-1]
        steps, count = [], states
        for index, host_filter in enumerate(handler.filters):
            out = count - rejected[index]
            steps.append(filters.FilterStep(host_filter.name, count, out))
            count = out
            if not out:
                break
        shape.steps = steps
        shape.num_states = states

    # -- one decision --------------------------------------------------------

    def _decide(self, shape, uuid):
        _filters, weight_handler, _chance = self.manager._get_handlers()
        self._catch_up(shape)
        spec = shape.spec
        spec.instance_uuid = uuid
        recorder = decision.Recorder(decision.kind_of(None), 1)
        recorder.query = shape.query_text
        recorder.candidates = len(shape.window)
        recorder.hosts = shape.num_states
        recorder.start_instance(0)
        try:
            if not shape.window:
                raise explain.no_valid_host(explain.explain_no_candidates(),
                                            shape.query)
            if not shape.num_states:
                return None     # the full path words this case
            result = filters.FilterResult(list(shape.members),
                                          list(shape.steps))
            recorder.filtered(result)
            if not result.hosts:
                raise explain.no_valid_host(explain.explain_filtered(
                    len(shape.window), shape.num_states, result, 0, 1),
                    shape.query)
        except exception.NoValidHost as err:
            self.counts['fast'] += 1
            recorder.failed(err.kwargs.get('reason', str(err)))
            err.kwargs['decision'] = decision.dumps(recorder.failure())
            raise
        weighing = shape.weighing
        if weighing is None or weighing.handler is not weight_handler:
            weighing = shape.weighing = kept_weighing.KeptWeighing(
                weight_handler, spec)
        # NOTE(sim): the host_subset_size best are among these, and
        # every host tied with the best when ties are shuffled:
        # weights.pick makes the same draws from them as from the whole
        # list.
        opts = CONF.filter_scheduler
        subset, shuffle = (opts.host_subset_size,
                           opts.shuffle_best_same_weighed_hosts)
        ordered, totals = weighing.best(result.hosts, subset, ties=shuffle)
        recorder.weighed(weighing.top(decision.TOP_HOSTS),
                         weighing.multipliers(), count=len(result.hosts))
        chosen = weights.pick(ordered, totals, subset, shuffle)[0]
        node = chosen.uuid
        self.counts['fast'] += 1
        hs.consume_selected_host(chosen, spec, uuid)
        self.hosts.consume_in_cache(chosen, spec)
        recorder.picked(chosen)
        provider = self.providers[node]
        for rc, amount in shape.resources.items():
            provider.add(rc, amount)
        self.claimed[uuid] = {node: shape.resources}
        self.pending[uuid] = {
            'allocations': {node: {'resources': dict(shape.resources)}},
            'project_id': spec.project_id, 'user_id': spec.user_id,
            'consumer_generation': None, 'consumer_type': 'INSTANCE'}
        return ((chosen.host, chosen.nodename, node),
                recorder.attempt_for(0, []), spec)
