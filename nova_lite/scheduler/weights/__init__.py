"""Host weighers: the plugin base class, the handler and the final pick.

Every weigher gives each host a raw number (``_weigh_object``). The handler
normalises each weigher's numbers to 0..1 over the hosts being compared,
multiplies them by the weigher's multiplier and adds them up, as Nova does;
so a weigher's multiplier, not the scale of its raw numbers, says how much
it counts. Hosts come back best first. :func:`pick_host` then picks at
random among the ``host_subset_size`` best.

A multiplier is an option of ``[filter_scheduler]`` (``ram_weight_
multiplier``...), overridden per host by aggregate metadata of the same
name (the smallest when several aggregates set it).
"""

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
        """The raw weight of one host; larger is better before multiplier."""
        raise NotImplementedError()

    def weigh_objects(self, hosts, spec):
        """Raw weights of ``hosts``, in order."""
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
    if not weighed:
        return weighed
    rng = rng or random
    opts = CONF.filter_scheduler
    if host_subset_size is None:
        host_subset_size = opts.host_subset_size
    if shuffle_best is None:
        shuffle_best = opts.shuffle_best_same_weighed_hosts
    weighed = list(weighed)
    if shuffle_best:
        best = [w for w in weighed if w.weight == weighed[0].weight]
        rng.shuffle(best)
        weighed[:len(best)] = best
    subset = weighed[:max(1, min(host_subset_size, len(weighed)))]
    chosen = rng.choice(subset)
    weighed.remove(chosen)
    return [chosen] + weighed
