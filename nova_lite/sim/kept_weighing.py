"""The scheduler's request weighing kept from request to request of one
shape, for the simulator's fast path (:mod:`nova_lite.sim.fast`), with
its totals summed by numpy when every one of them moves."""

import functools
import importlib
import math

from nova_lite.scheduler import weights

# Raw weights numpy may sum as Python does: ints and floats under 2**52
# (so a difference of two of them is exact in a float too).
_NUMBERS = frozenset([int, float])
_EXACT = 2.0 ** 52
_INEXACT = object()


@functools.cache
def _numpy():
    """numpy, imported when a replay first sums totals: every
    nova-lite-manage command imports this module."""
    return importlib.import_module('numpy')


class KeptWeighing(weights.RequestWeighing):
    """The scheduler's :class:`~nova_lite.scheduler.weights.RequestWeighing`
    kept from request to request of one shape. :meth:`best` is its
    :meth:`weigh` without building the whole ordered host list a replay
    does not read: only the hosts the pick may draw from.

    When a weigher's range moves (with packing, nearly every pick: the
    packed host becomes an extreme) every total is summed again; here
    with numpy over arrays of the raw weights kept beside the scheduler's
    lists, doing for each host the scheduler's IEEE operations in its
    order (float64 subtraction, division, multiplication and addition
    are correctly rounded, as Python's are), so the same floats; and a
    stable sort of the negated totals puts ties in the order
    ``sorted(reverse=True)`` does. What numpy would not compute as Python
    does is left to the scheduler's own sum: raw weights that are not
    numbers, not finite, or integers too large for a float to hold
    exactly, non-finite multipliers, and NaN totals.
    """

    def __init__(self, handler, spec):
        super().__init__(handler, spec)
        # Weigher index -> float64 array of its list of raw weights (of
        # the current members), or _INEXACT.
        self._arrays = {}

    def best(self, hosts, count, ties=True):
        """``(the first hosts best first, their weights)``: ``count`` of
        them (or all there are) and, with ``ties``, every host tied with
        the best."""
        if not self._weigh_totals(hosts):
            return list(hosts), [0.0] * len(hosts)
        members, totals, order = self._members, self._totals, self._order
        top = totals[order[0]]
        end = min(len(order), max(1, count))
        while ties and end < len(order) and totals[order[end]] == top:
            end += 1
        return ([members[p] for p in order[:end]],
                [totals[p] for p in order[:end]])

    def _lists_replaced(self):
        self._arrays = {}

    def _lists_edited(self, gone, new):
        numpy = _numpy()
        arrays, self._arrays = self._arrays, {}
        # np.insert places each value before a position of the array it
        # is given: the k-th new host's position less k.
        before = [position - k for k, position in enumerate(new)]
        for index, array in arrays.items():
            if array is not _INEXACT:
                if gone:
                    array = numpy.delete(array, gone)
                if new:
                    array = numpy.insert(array, before, 0.0)
                self._arrays[index] = array
                self._set_exact(index, new)

    def _update(self, positions):
        super()._update(positions)
        for index in list(self._arrays):
            if not self._local[index]:
                del self._arrays[index]     # every host weighed again
            else:
                self._set_exact(index, positions)

    def _set_exact(self, index, positions):
        """Copy weigher ``index``'s raw weights at ``positions`` into its
        array, or drop the array when one is not a number numpy holds
        exactly."""
        array = self._arrays[index]
        if array is _INEXACT:
            return
        values = self._lists[index]
        for position in positions:
            value = values[position]
            if type(value) not in _NUMBERS or not abs(value) < _EXACT:
                del self._arrays[index]
                return
            array[position] = value

    def _array(self, index):
        """Weigher ``index``'s raw weights as float64, or None when they
        are not all ints and floats that a float64 holds exactly and
        whose differences it holds exactly too."""
        numpy = _numpy()
        array = self._arrays.get(index)
        if array is None:
            values = self._lists[index]
            array = _INEXACT
            if _NUMBERS.issuperset(map(type, values)):
                floats = numpy.array(values, dtype=numpy.float64)
                if numpy.abs(floats).max() < _EXACT:
                    array = floats
            self._arrays[index] = array
        return None if array is _INEXACT else array

    def _multipliers(self, index):
        """Weigher ``index``'s multiplier of every host (a number, or an
        array when some host's aggregate overrides it), or None when one
        is not a finite number."""
        numpy = _numpy()
        default = self._defaults[index]
        if type(default) is not float or not math.isfinite(default):
            return None
        overrides = self._overrides[index]
        if not overrides:
            return default
        multipliers = numpy.full(len(self._members), default)
        for position in overrides:
            multiplier = self._multiplier(index, position)
            if type(multiplier) is not float or not math.isfinite(
                    multiplier):
                return None
            multipliers[position] = multiplier
        return multipliers

    def _array_totals(self):
        """Every total as the scheduler sums it, as a float64 array, or
        None when numpy's sum would not be the scheduler's. (Where the
        scheduler skips a zero weight this adds ``0.0 * multiplier``,
        which leaves a total as it is: a total is never -0.0 and the
        multiplier is finite.)"""
        numpy = _numpy()
        totals = numpy.zeros(len(self._members))
        for index, (low, high) in enumerate(self._ranges):
            span = high - low
            if span == 0:
                continue
            if not (type(low) in _NUMBERS and type(high) in _NUMBERS and
                    abs(low) < _EXACT and abs(high) < _EXACT):
                return None
            raws = self._array(index)
            multipliers = self._multipliers(index)
            if raws is None or multipliers is None:
                return None
            totals = totals + (raws - low) / span * multipliers
        return totals

    def _all_totals(self):
        numpy = _numpy()
        with numpy.errstate(over='ignore', invalid='ignore'):
            totals = self._array_totals()
            if totals is None or numpy.isnan(totals).any():
                super()._all_totals()
                return
            self._order = numpy.argsort(-totals, kind='stable').tolist()
        self._totals = totals.tolist()
        self._sortable = True
        self._keys = None
