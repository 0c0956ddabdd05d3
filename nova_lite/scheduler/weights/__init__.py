"""Host weighers: the plugin base class, the handler and the final pick.

Every weigher gives each host a raw number (``_weigh_object``). The handler
normalises each weigher's numbers to 0..1 over the hosts being compared,
multiplies them by the weigher's multiplier and adds them up, as Nova does;
so a weigher's multiplier, not the scale of its raw numbers, says how much
it counts. Hosts come back best first. :func:`pick_host` then picks at
random among the ``host_subset_size`` best.

A request for several instances weighs its hosts once per instance; the
manager does it with :class:`RequestWeighing`, which gives the same order
and weights as :meth:`WeightHandler.get_weighed_hosts` but re-weighs only
the hosts that took a pick since the last weighing (a weigher whose raw
weight of a host depends on the other picks, see
:meth:`BaseHostWeigher.depends_on_picks`, weighs every host again).

A multiplier is an option of ``[filter_scheduler]`` (``ram_weight_
multiplier``...), overridden per host by aggregate metadata of the same
name (the smallest when several aggregates set it).
"""

import bisect
import itertools
import operator
import random
import sys

from oslo_log import log as logging

from nova_lite import conf as nl_conf
from nova_lite.scheduler.filters import utils as filter_utils
from nova_lite.scheduler import loadables

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)


class BaseHostWeigher:
    """A weigher plugin; subclasses implement :meth:`_weigh_object`.

    ``minval`` / ``maxval``, when set, widen the normalisation range (a
    RAM weigher with ``minval = 0`` compares free RAM against zero, not
    against the least free host).
    """

    minval = None
    maxval = None
    # The [filter_scheduler] option (and aggregate key) of the multiplier.
    multiplier_option = None
    # A weigher whose raw weight is one host state attribute names it:
    # every host is read without a method call per host.
    attribute = None

    @property
    def name(self):
        return type(self).__name__

    def default_multiplier(self):
        return getattr(CONF.filter_scheduler, self.multiplier_option)

    def weight_multiplier(self, host_state, default=None):
        """The multiplier for ``host_state`` (aggregate override first).

        :param default: the configured multiplier, when the caller already
            read it (reading options is slow enough to matter per host).
        """
        if default is None:
            default = self.default_multiplier()
        key = self.multiplier_option
        if not key or not any(key in agg.metadata
                              for agg in host_state.aggregates):
            return default
        return filter_utils.aggregate_number(host_state, key, default)

    def _weigh_object(self, host_state, spec):
        """The raw weight of one host; larger is better before multiplier.

        It may read the host state and the request spec's fields that do
        not change between the instances of a request; otherwise
        :meth:`depends_on_picks` must say so.
        """
        if self.attribute is None:
            raise NotImplementedError()
        return getattr(host_state, self.attribute)

    def depends_on_picks(self, spec):
        """Whether a host's raw weight may change when *another* host
        takes an instance of the request (a server group's hosts)."""
        return False

    def weigh_objects(self, hosts, spec):
        """Raw weights of ``hosts``, in order."""
        if self.attribute is not None:
            return list(map(operator.attrgetter(self.attribute), hosts))
        return [self._weigh_object(host, spec) for host in hosts]


class WeighedHost:
    """A host state and its total weight."""

    def __init__(self, obj, weight=0.0):
        self.obj = obj
        self.weight = weight
        # Each weigher's weighted share of ``weight`` (for the decision
        # record, :mod:`nova_lite.scheduler.decision`).
        self.parts = {}

    def __repr__(self):
        return 'WeighedHost [host: %r, weight: %s]' % (self.obj, self.weight)


def normalize(weights, minval=None, maxval=None):
    """Map ``weights`` onto 0..1; all equal (or empty range) gives zeros."""
    if not weights:
        return []
    low = min(weights) if minval is None else min(minval, min(weights))
    high = max(weights) if maxval is None else max(maxval, max(weights))
    span = high - low
    if span == 0:
        return [0.0] * len(weights)
    return [(w - low) / span for w in weights]


def all_weighers():
    """``{name: class}`` of every weigher in this package."""
    package = sys.modules[__name__]
    return loadables.discover(package, BaseHostWeigher)


def load_weighers(names):
    """Instances of the weighers ``names`` (``all``, names or paths)."""
    package = sys.modules[__name__]
    return [cls() for cls in loadables.load(
        names, package, BaseHostWeigher, kind='weigher')]


class WeightHandler:
    """Weighs host states with the configured weighers."""

    def __init__(self, weigher_names=None):
        if weigher_names is None:
            weigher_names = CONF.filter_scheduler.weight_classes
        self.weighers = load_weighers(weigher_names)

    def multipliers(self):
        """``{weigher name: configured multiplier}``."""
        return {w.name: w.default_multiplier() for w in self.weighers}

    def for_request(self, spec):
        """A :class:`RequestWeighing` of one request's hosts."""
        return RequestWeighing(self, spec)

    def get_weighed_hosts(self, hosts, spec):
        """``WeighedHost`` list, best first (stable for equal weights)."""
        weighed = [WeighedHost(host) for host in hosts]
        if len(weighed) <= 1:
            return weighed
        # Metadata keys of each host's aggregates, read once per request:
        # most hosts have no multiplier override and skip the lookup.
        agg_keys = [_aggregate_keys(host) for host in hosts]
        for weigher in self.weighers:
            raw = weigher.weigh_objects(hosts, spec)
            normalized = normalize(raw, weigher.minval, weigher.maxval)
            default = weigher.default_multiplier()
            key = weigher.multiplier_option
            for item, keys, value in zip(weighed, agg_keys, normalized,
                                         strict=True):
                if not value:
                    continue
                multiplier = default
                if key in keys:
                    multiplier = weigher.weight_multiplier(item.obj, default)
                item.weight += value * multiplier
                item.parts[weigher.name] = value * multiplier
            LOG.debug('Weigher %s: raw %s', weigher.name, raw[:10])
        weighed.sort(key=lambda item: item.weight, reverse=True)
        return weighed


_NO_KEYS = frozenset()
# How many hosts may come or go between two weighings of a request for
# the kept lists to be edited rather than read again.
_PATCH_MOST = 8
_AGGREGATES = operator.attrgetter('aggregates')


def _aggregate_keys(host_state):
    if not host_state.aggregates:
        # Most hosts: no set built per host and request.
        return _NO_KEYS
    keys = set()
    for agg in host_state.aggregates:
        keys.update(agg.metadata)
    return keys


def pick_host(weighed, host_subset_size=None, shuffle_best=None, rng=None):
    """Move the chosen host to the front of ``weighed`` and return the list.

    The chosen host is drawn among the ``host_subset_size`` best; with
    ``shuffle_best``, hosts tied for the best weight are shuffled first.
    """
    return pick(weighed, [w.weight for w in weighed], host_subset_size,
                shuffle_best, rng)


def pick(items, totals, host_subset_size=None, shuffle_best=None, rng=None):
    """:func:`pick_host` of ``items`` (best first) whose weights are
    ``totals`` (same order): the list with the chosen item first."""
    if not items:
        return items
    rng = rng or random
    opts = CONF.filter_scheduler
    if host_subset_size is None:
        host_subset_size = opts.host_subset_size
    if shuffle_best is None:
        shuffle_best = opts.shuffle_best_same_weighed_hosts
    items = list(items)
    if shuffle_best:
        best = [item for item, total in zip(items, totals, strict=True)
                if total == totals[0]]
        rng.shuffle(best)
        items[:len(best)] = best
    subset = items[:max(1, min(host_subset_size, len(items)))]
    chosen = rng.choice(subset)
    items.remove(chosen)
    return [chosen] + items


class RequestWeighing:
    """The weights of one request's hosts, kept from instance to instance.

    :meth:`weigh` gives, for the hosts that passed the filters, the order
    and weights :meth:`WeightHandler.get_weighed_hosts` gives (the same
    arithmetic in the same order, so the same floats and the same stable
    order). What it keeps between calls:

    - each weigher's raw weight of each host, dropped for a host that took
      a pick (:meth:`consumed`), so a request of N instances over H hosts
      evaluates each weigher about H + N times, not N * H; a weigher that
      :meth:`~BaseHostWeigher.depends_on_picks` weighs every host again;
    - the raw weights of the hosts in filter order, one list per weigher:
      when a few hosts leave or join the filtered hosts they are edited
      in at their positions (:meth:`_patch`);
    - each weigher's smallest and largest raw weight: a pick changes them
      only when the consumed host was, or becomes, an extreme, and an
      extreme it leaves stays while another host holds it;
    - the totals and their order: while every weigher's range stays the
      same, only the consumed host's total is recomputed and moved; a
      changed range (all normalised weights move) recomputes every total
      from the kept raw weights.

    Host states are told apart by identity (one object per host per
    request), as the manager hands them out.
    """

    def __init__(self, handler, spec):
        self.handler = handler
        self.spec = spec
        self.weighers = list(handler.weighers)
        self._defaults = [w.default_multiplier() for w in self.weighers]
        self._local = [not w.depends_on_picks(spec) for w in self.weighers]
        self._raw = [{} for _w in self.weighers]   # host -> raw weight
        self._changed = []      # hosts consumed since the last weighing
        self._members = None    # the hosts last weighed, in filter order
        self._pos = {}          # host -> position in _members
        self._lists = None      # per weigher: raw weights of _members
        self._extremes = None   # per weigher: (min, max) of its list
        self._overrides = None  # per weigher: {position: multiplier}
        self._ranges = None     # per weigher: (low, high) normalised over
        self._totals = None     # per position
        self._order = None      # positions, best first
        self._keys = None       # (-total, position) of _order, ascending
        self._sortable = False  # no NaN total: _keys may be bisected
        self._single = None     # the host list when there was <= 1

    def consumed(self, host):
        """``host`` took an instance: its raw weights are stale."""
        for raw in self._raw:
            raw.pop(host, None)
        self._changed.append(host)

    def weigh(self, hosts):
        """``(hosts best first, their weights)`` for ``hosts`` (the hosts
        that passed the filters, in their order)."""
        if not self._weigh_totals(hosts):
            # As get_weighed_hosts: one host is not weighed.
            return list(hosts), [0.0] * len(hosts)
        members, totals = self._members, self._totals
        return ([members[p] for p in self._order],
                [totals[p] for p in self._order])

    def _weigh_totals(self, hosts):
        """Bring the totals and their order up to date for ``hosts``;
        False (nothing weighed) when there are fewer than two."""
        changed, self._changed = self._changed, []
        if len(hosts) <= 1:
            self._members = None
            self._single = list(hosts)
            return False
        self._single = None
        if self._members is not None and hosts == self._members:
            positions = sorted({self._pos[h] for h in changed
                                if h in self._pos})
            self._update(positions)
        else:
            self._rebuild(hosts, changed)
            positions = None
        ranges = [_range(w, lo, hi) for w, (lo, hi) in
                  zip(self.weighers, self._extremes, strict=True)]
        if (positions is not None and ranges == self._ranges and
                all(self._local) and self._sortable):
            for position in positions:
                if not self._sortable:
                    break   # a NaN total: every total was recomputed
                self._move(position)
        else:
            self._ranges = ranges
            self._all_totals()
        return True

    def multipliers(self):
        """``{weigher name: configured multiplier}`` of this request."""
        return {weigher.name: default for weigher, default in
                zip(self.weighers, self._defaults, strict=True)}

    def top(self, count):
        """``WeighedHost`` (with each weigher's part) of the ``count``
        best hosts of the last weighing, for the decision record."""
        if self._single is not None:
            return [WeighedHost(host) for host in self._single]
        if self._members is None:
            return []
        # A weigher whose range is empty gives every host 0.
        weighing = [(index, weigher) for index, (weigher, (low, high)) in
                    enumerate(zip(self.weighers, self._ranges, strict=True))
                    if high - low != 0]
        result = []
        for position in self._order[:count]:
            item = WeighedHost(self._members[position],
                               self._totals[position])
            for index, weigher in weighing:
                value = self._value(index, position)
                if value:
                    item.parts[weigher.name] = value * self._multiplier(
                        index, position)
            result.append(item)
        return result

    # -- raw weights -------------------------------------------------------

    def _rebuild(self, hosts, changed=()):
        """Raw weights of a new set of hosts (kept ones reused); the last
        hosts less a few and plus a few are edited in (:meth:`_patch`),
        then the ``changed`` ones among them re-weighed."""
        if self._members is not None:
            stale = self._patch(hosts, changed)
            if stale is not None:
                self._update(stale)
                return
        spec = self.spec
        self._members = list(hosts)
        self._pos = {host: index for index, host in enumerate(hosts)}
        self._lists, self._extremes = [], []
        missing = None
        for index, weigher in enumerate(self.weighers):
            raw = self._raw[index]
            if self._local[index] and raw:
                if missing is None:
                    # The same for every weigher: each keeps the raw
                    # weights of the same hosts.
                    missing = [h for h in hosts if h not in raw]
                if missing:
                    raw.update(zip(missing,
                                   weigher.weigh_objects(missing, spec),
                                   strict=True))
                values = list(map(raw.__getitem__, hosts))
            else:
                values = weigher.weigh_objects(hosts, spec)
                if self._local[index]:
                    raw.update(zip(hosts, values, strict=True))
            self._lists.append(values)
            self._extremes.append((min(values), max(values)))
            LOG.debug('Weigher %s: raw %s', weigher.name, values[:10])
        self._new_positions()
        self._lists_replaced()

    def _lists_replaced(self):
        """Every raw weight list is new (a hook for subclasses)."""

    def _lists_edited(self, gone, new):
        """The raw weight lists lost the positions ``gone`` (of the old
        hosts) and gained ``new`` (of the new hosts) (a hook for
        subclasses)."""

    def _patch(self, hosts, changed):
        """``hosts`` as the last hosts with at most :data:`_PATCH_MOST`
        hosts taken out or put in, kept order: each weigher's list edited
        in place (the new hosts weighed), the extremes kept unless an
        extreme went (or a NaN came or went, or the first host changed:
        ``min`` and ``max`` start from it). The positions of the
        ``changed`` hosts kept, still to re-weigh; None (nothing done)
        when ``hosts`` is not that or a weigher depends on the picks."""
        if not self.weighers or not all(self._local):
            return None
        old_pos = self._pos
        pos = dict(zip(hosts, range(len(hosts)), strict=True))
        gone = sorted(map(old_pos.__getitem__, set(old_pos).difference(pos)))
        new = sorted(map(pos.__getitem__, set(pos).difference(old_pos)))
        if not gone and not new or len(gone) + len(new) > _PATCH_MOST:
            return None
        members = list(self._members)
        for position in reversed(gone):
            del members[position]
        for position in new:
            members.insert(position, hosts[position])
        if members != hosts:
            return None     # the kept hosts came in another order
        stale = sorted({pos[h] for h in changed if h in old_pos and h in pos})
        entrants = [hosts[position] for position in new]
        missing = [h for h in entrants if h not in self._raw[0]]
        for index, weigher in enumerate(self.weighers):
            raw = self._raw[index]
            if missing:
                raw.update(zip(missing, weigher.weigh_objects(missing,
                                                              self.spec),
                               strict=True))
            values = self._lists[index]
            low, high = self._extremes[index]
            removed = [values[position] for position in gone]
            for position in reversed(gone):
                del values[position]
            added = [raw[h] for h in entrants]
            for position, value in zip(new, added, strict=True):
                values.insert(position, value)
            if (0 in gone or 0 in new or any(v != v for v in removed) or
                    any(v != v for v in added)):
                self._extremes[index] = (min(values), max(values))
                continue
            low_went = any(v == low for v in removed)
            high_went = any(v == high for v in removed)
            for value in added:
                if value < low:
                    low = value
                elif value > high:
                    high = value
            self._extremes[index] = _still_extremes(values, low, high,
                                                    low_went, high_went)
        self._members = members
        self._pos = pos
        self._new_positions()
        self._lists_edited(gone, new)
        return stale

    def _new_positions(self):
        """The hosts moved: which of them have a multiplier override."""
        hosts = self._members
        self._overrides = [{} for _w in self.weighers]
        # Most hosts are in no aggregate: skipped in C.
        for position in itertools.compress(
                range(len(hosts)), map(_AGGREGATES, hosts)):
            keys = _aggregate_keys(hosts[position])
            for index, weigher in enumerate(self.weighers):
                if weigher.multiplier_option in keys:
                    self._overrides[index][position] = None  # read lazily
        self._keys = None
        self._sortable = False

    def _update(self, positions):
        """Same hosts as last time: re-weigh the consumed ones (and every
        host for a weigher that depends on the picks)."""
        spec = self.spec
        members = self._members
        for index, weigher in enumerate(self.weighers):
            values = self._lists[index]
            if not self._local[index]:
                values[:] = weigher.weigh_objects(members, spec)
                self._extremes[index] = (min(values), max(values))
                continue
            if not positions:
                continue
            hosts = [members[p] for p in positions]
            fresh = weigher.weigh_objects(hosts, spec)
            low, high = self._extremes[index]
            rescan = low_went = high_went = False
            for position, host, value in zip(positions, hosts, fresh,
                                             strict=True):
                old = values[position]
                values[position] = value
                self._raw[index][host] = value
                if value == old:
                    continue
                # A value past an extreme is the new extreme (the host
                # packed onto stays the fullest); an extreme that moves
                # inward may leave it to other hosts; a NaN rescans.
                if value != value or old != old:
                    rescan = True
                    continue
                if value < low:
                    low = value
                elif old == low:
                    low_went = True
                if value > high:
                    high = value
                elif old == high:
                    high_went = True
            if rescan:
                self._extremes[index] = (min(values), max(values))
            else:
                self._extremes[index] = _still_extremes(
                    values, low, high, low_went, high_went)

    # -- totals ------------------------------------------------------------

    def _value(self, index, position):
        """The normalised weight of weigher ``index`` for a host."""
        low, high = self._ranges[index]
        span = high - low
        if span == 0:
            return 0.0
        return (self._lists[index][position] - low) / span

    def _multiplier(self, index, position):
        overrides = self._overrides[index]
        if position not in overrides:
            return self._defaults[index]
        multiplier = overrides[position]
        if multiplier is None:
            multiplier = self.weighers[index].weight_multiplier(
                self._members[position], self._defaults[index])
            overrides[position] = multiplier
        return multiplier

    def _total(self, position):
        total = 0.0
        for index in range(len(self.weighers)):
            value = self._value(index, position)
            if value:
                total += value * self._multiplier(index, position)
        return total

    def _all_totals(self):
        """Every total (as get_weighed_hosts sums them) and their order."""
        totals = [0.0] * len(self._members)
        for index, (low, high) in enumerate(self._ranges):
            span = high - low
            if span == 0:
                continue
            values = [(raw - low) / span for raw in self._lists[index]]
            overrides = self._overrides[index]
            if not overrides:
                default = self._defaults[index]
                totals = [total + value * default if value else total
                          for total, value in zip(totals, values,
                                                  strict=True)]
                continue
            for position, value in enumerate(values):
                if value:
                    totals[position] += value * self._multiplier(
                        index, position)
        self._totals = totals
        # The stable sort get_weighed_hosts does, on the same sequence.
        self._order = sorted(range(len(totals)), key=totals.__getitem__,
                             reverse=True)
        # NaN: no bisecting, sort every time.
        self._sortable = not any(total != total for total in totals)
        self._keys = None   # built when a host first moves

    def _move(self, position):
        """Recompute one host's total and move it to its place."""
        old = self._totals[position]
        new = self._total(position)
        if new == old:
            return
        if new != new:
            self._all_totals()
            return
        if self._keys is None:
            self._keys = [(-self._totals[p], p) for p in self._order]
        self._totals[position] = new
        keys, order = self._keys, self._order
        at = bisect.bisect_left(keys, (-old, position))
        del keys[at]
        del order[at]
        at = bisect.bisect_left(keys, (-new, position))
        keys.insert(at, (-new, position))
        order.insert(at, position)


def _still_extremes(values, low, high, low_went, high_went):
    """``(min(values), max(values))`` when no value is below ``low`` or
    above ``high`` and no NaN came or went: a bound that a host left
    (``low_went``, ``high_went``) stays while another host holds it (a
    spreading pick leaves the most free RAM to the other empty hosts)."""
    if low_went and low not in values:
        low = min(values)
    if high_went and high not in values:
        high = max(values)
    return low, high


def _range(weigher, low, high):
    """The (low, high) that :func:`normalize` maps to 0 and 1."""
    if weigher.minval is not None:
        low = min(weigher.minval, low)
    if weigher.maxval is not None:
        high = max(weigher.maxval, high)
    return low, high
