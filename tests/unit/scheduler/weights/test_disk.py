from nova_lite.scheduler.weights import disk
from tests.unit.scheduler import fakes


class TestDiskWeigher(fakes.WeigherTestCase):
    WEIGHER = disk.DiskWeigher

    def _hosts(self):
        return [fakes.fake_host('a', free_disk_mb=1000),
                fakes.fake_host('b', free_disk_mb=5000)]

    def test_most_free_disk_wins(self):
        self.assertEqual('b', self.best(self._hosts()))

    def test_negative_multiplier_stacks(self):
        self.flags(group='filter_scheduler', disk_weight_multiplier=-2.0)
        weighed = self.weigh(self._hosts())
        self.assertEqual('a', weighed[0].obj.host)
        self.assertEqual(-2.0, weighed[1].weight)
