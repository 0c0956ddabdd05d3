from nova_lite.scheduler.weights import ram
from tests.unit.scheduler import fakes


class TestRAMWeigher(fakes.WeigherTestCase):
    WEIGHER = ram.RAMWeigher

    def _hosts(self):
        return [fakes.fake_host('small', free_ram_mb=1024),
                fakes.fake_host('big', free_ram_mb=8192),
                fakes.fake_host('mid', free_ram_mb=4096)]

    def test_spreads_by_default(self):
        weighed = self.weigh(self._hosts())
        self.assertEqual(['big', 'mid', 'small'],
                         [w.obj.host for w in weighed])
        self.assertEqual(1.0, weighed[0].weight)
        self.assertEqual(0.5, weighed[1].weight)
        # minval 0: the smallest host is compared with zero, not itself.
        self.assertEqual(0.125, weighed[2].weight)

    def test_negative_multiplier_stacks(self):
        self.flags(group='filter_scheduler', ram_weight_multiplier=-1.0)
        self.assertEqual('small', self.best(self._hosts()))

    def test_aggregate_overrides_multiplier(self):
        hosts = self._hosts()
        hosts[1].aggregates = [fakes.aggregate(ram_weight_multiplier='0')]
        self.assertEqual('mid', self.best(hosts))
