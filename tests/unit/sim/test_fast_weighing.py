"""The replay's kept weighing gives the scheduler's order and weights.

:class:`nova_lite.sim.kept_weighing.KeptWeighing` sums every total with numpy
when a weigher's range moves; the best hosts, their weights (to the
bit) and the decision record's top hosts must be what
:meth:`WeightHandler.get_weighed_hosts` gives, also for raw weights and
multipliers numpy must leave to the scheduler's own sum.
"""

import math
import random
import subprocess
import sys

from nova_lite.scheduler import decision
from nova_lite.scheduler import host_state
from nova_lite.scheduler import weights
from nova_lite.sim import kept_weighing
from tests.unit.scheduler import fakes
from tests.unit.scheduler import test_request_weighing as trw

# Raw weights numpy does not sum as Python does, or that make NaN.
_ODD_RAM = (float('nan'), float('inf'), -float('inf'), 2 ** 60 + 1,
            2 ** 53 + 1, 1e300, 4096.5)


def _exact(ordered, totals):
    # repr tells NaN, -0.0 and the last bit apart.
    return [(host, repr(total)) for host, total in
            zip(ordered, totals, strict=True)]


def _parts(weighed):
    return [(item.obj, repr(item.weight),
             sorted((name, repr(part)) for name, part in item.parts.items()))
            for item in weighed]


class TestKeptWeighing(fakes.TestCase):

    def _configure(self, rng, odd):
        values = (0.0, 1.0, -1.0, 2.0, 0.5, 1e6, -1e6)
        if odd:
            values += (1e308, -1e308, float('inf'))
        for option in trw._MULTIPLIERS:
            value = rng.choice(values)
            if option.startswith('soft_'):
                value = abs(value)  # the policy gives the sign
            self.flags(**{option: value}, group='filter_scheduler')
        self.flags(weight_setting=rng.choice(
            ([], ['cpu.percent=-1.0'])),
            weight_multiplier=rng.choice((1.0, -1.0)), group='metrics')

    def _hosts(self, rng, odd):
        hosts = trw._random_hosts(rng, rng.choice((2, 3, 20, 60, 200)))
        if odd:
            for host in rng.sample(hosts, rng.randrange(1, 3)):
                host.free_ram_mb = rng.choice(_ODD_RAM)
            if rng.random() < 0.3:
                agg = fakes.aggregate(
                    'odd', hosts=(),
                    ram_weight_multiplier=rng.choice(('nan', 'inf', '1e308')))
                rng.choice(hosts).aggregates.append(agg)
        return hosts

    def _replay(self, rng, odd):
        self._configure(rng, odd)
        hosts = self._hosts(rng, odd)
        spec = trw._random_spec(rng)
        handler = weights.WeightHandler()
        weighing = kept_weighing.KeptWeighing(handler, spec)
        count = rng.choice((1, 2, 5))
        ties = rng.random() < 0.5
        for current in trw._rounds(rng, hosts, 15, 0.9):
            expected = handler.get_weighed_hosts(current, spec)
            ordered, totals = weighing.best(current, count, ties)
            end = min(len(expected), count)
            while (ties and end < len(expected) and
                   expected[end].weight == expected[0].weight):
                end += 1
            self.assertEqual(
                _exact([w.obj for w in expected[:end]],
                       [w.weight for w in expected[:end]]),
                _exact(ordered, totals))
            self.assertEqual(_parts(expected[:decision.TOP_HOSTS]),
                             _parts(weighing.top(decision.TOP_HOSTS)))
            chosen = weights.pick(ordered, totals, count, ties, rng)[0]
            host_state.consume_selected_host(chosen, spec, None)
            weighing.consumed(chosen)

    def test_best_is_the_full_reweigh(self):
        rng = random.Random(20261207)
        for _case in range(120):
            self._replay(rng, odd=False)

    def test_best_is_the_full_reweigh_with_odd_numbers(self):
        rng = random.Random(7)
        for _case in range(120):
            self._replay(rng, odd=True)

    def test_numpy_sums_ordinary_weights(self):
        # Packing: every pick moves the range; the scheduler's sum is
        # not called.
        self.flags(ram_weight_multiplier=-1.0, group='filter_scheduler')
        hosts = [fakes.fake_host('h%d' % i, free_ram_mb=8192 + 512 * i)
                 for i in range(50)]
        spec = fakes.fake_spec(memory_mb=2048)
        handler = weights.WeightHandler()
        weighing = kept_weighing.KeptWeighing(handler, spec)
        full = handler.get_weighed_hosts
        self.patch(weights.RequestWeighing, '_all_totals',
                   lambda _self: self.fail('summed in Python'))
        for _pick in range(5):
            expected = full(hosts, spec)[0]
            ordered, totals = weighing.best(hosts, 1)
            self.assertEqual([(expected.obj, expected.weight)],
                             list(zip(ordered, totals, strict=True)))
            host_state.consume_selected_host(ordered[0], spec, None)
            weighing.consumed(ordered[0])

    def test_nan_is_left_to_the_scheduler(self):
        hosts = [fakes.fake_host('h%d' % i, free_ram_mb=8192 + 512 * i)
                 for i in range(5)]
        hosts[2].free_ram_mb = float('nan')
        spec = fakes.fake_spec()
        weighing = kept_weighing.KeptWeighing(weights.WeightHandler(), spec)
        ordered, totals = weighing.best(hosts, 1)
        self.assertFalse(weighing._sortable)
        self.assertTrue(any(math.isnan(t) for t in weighing._totals))

    def test_integers_a_float_cannot_hold_are_left_to_the_scheduler(self):
        # Python divides 3 by 2**53 + 1 exactly rounded; a float64 holds
        # 2**53 + 1 as 2**53, and 3 / 2**53 is another float.
        for option in trw._MULTIPLIERS:
            self.flags(**{option: 0.0}, group='filter_scheduler')
        self.flags(ram_weight_multiplier=1.0, group='filter_scheduler')
        hosts = [fakes.fake_host('h%d' % i, free_ram_mb=ram)
                 for i, ram in enumerate((0, 3, 2 ** 53 + 1))]
        spec = fakes.fake_spec()
        handler = weights.WeightHandler()
        expected = handler.get_weighed_hosts(hosts, spec)
        ordered, totals = kept_weighing.KeptWeighing(
            handler, spec).best(hosts, 3)
        self.assertEqual(_exact([w.obj for w in expected],
                                [w.weight for w in expected]),
                         _exact(ordered, totals))


class TestNumpyOnUse(fakes.TestCase):

    def test_manage_does_not_import_numpy(self):
        # Every nova-lite-manage command imports the replay's modules.
        code = ('import sys, nova_lite.cmd.manage; '
                'sys.exit("numpy" in sys.modules)')
        subprocess.run([sys.executable, '-c', code], check=True)
