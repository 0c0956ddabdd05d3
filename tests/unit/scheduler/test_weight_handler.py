"""The weight handler: normalise, multiply, sum; the final random pick."""

import random

from nova_lite.scheduler import weights
from tests.unit.scheduler import fakes


class TestNormalize(fakes.TestCase):

    def test_range(self):
        self.assertEqual([0.0, 0.5, 1.0], weights.normalize([2, 4, 6]))

    def test_equal_weights_are_zero(self):
        self.assertEqual([0.0, 0.0], weights.normalize([3, 3]))

    def test_minval_widens_range(self):
        self.assertEqual([0.5, 1.0], weights.normalize([2, 4], minval=0))

    def test_empty(self):
        self.assertEqual([], weights.normalize([]))


class TestWeightHandler(fakes.TestCase):

    def test_all_weighers_by_default(self):
        handler = weights.WeightHandler()
        self.assertEqual(10, len(handler.weighers))

    def test_sum_of_normalised_weights(self):
        handler = weights.WeightHandler(['RAMWeigher', 'IoOpsWeigher'])
        hosts = [fakes.fake_host('a', free_ram_mb=8000, num_io_ops=4),
                 fakes.fake_host('b', free_ram_mb=4000, num_io_ops=0)]
        weighed = handler.get_weighed_hosts(hosts, fakes.fake_spec())
        # a: 1.0 - 1.0 = 0.0; b: 0.5 - 0 = 0.5.
        self.assertEqual(['b', 'a'], [w.obj.host for w in weighed])
        self.assertEqual([0.5, 0.0], [w.weight for w in weighed])

    def test_one_host_is_not_weighed(self):
        handler = weights.WeightHandler(['RAMWeigher'])
        weighed = handler.get_weighed_hosts([fakes.fake_host()],
                                            fakes.fake_spec())
        self.assertEqual(0.0, weighed[0].weight)


class TestPickHost(fakes.TestCase):

    def _weighed(self):
        return [weights.WeighedHost(fakes.fake_host('h%d' % i), 10 - i)
                for i in range(5)]

    def test_subset_of_one_is_the_best(self):
        picked = weights.pick_host(self._weighed())
        self.assertEqual('h0', picked[0].obj.host)
        self.assertEqual(5, len(picked))

    def test_subset_picks_among_the_best(self):
        rng = random.Random(3)
        chosen = {weights.pick_host(self._weighed(), host_subset_size=3,
                                    rng=rng)[0].obj.host
                  for _ in range(50)}
        self.assertEqual({'h0', 'h1', 'h2'}, chosen)

    def test_subset_larger_than_list(self):
        picked = weights.pick_host(self._weighed()[:2], host_subset_size=9,
                                   rng=random.Random(1))
        self.assertEqual(2, len(picked))

    def test_shuffle_equal_best(self):
        weighed = [weights.WeighedHost(fakes.fake_host('h%d' % i), 1.0)
                   for i in range(4)]
        rng = random.Random(5)
        chosen = {weights.pick_host(weighed, shuffle_best=True,
                                    rng=rng)[0].obj.host
                  for _ in range(40)}
        self.assertGreater(len(chosen), 1)

    def test_empty(self):
        self.assertEqual([], weights.pick_host([]))
