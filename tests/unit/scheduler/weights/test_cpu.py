from nova_lite.scheduler.weights import cpu
from tests.unit.scheduler import fakes


class TestCPUWeigher(fakes.WeigherTestCase):
    WEIGHER = cpu.CPUWeigher

    def test_counts_allocation_ratio(self):
        hosts = [fakes.fake_host('a', vcpus_total=8, vcpus_used=4,
                                 cpu_allocation_ratio=1.0),
                 fakes.fake_host('b', vcpus_total=4, vcpus_used=4,
                                 cpu_allocation_ratio=4.0)]
        # a: 4 free, b: 12 free.
        self.assertEqual('b', self.best(hosts))

    def test_negative_multiplier_stacks(self):
        self.flags(group='filter_scheduler', cpu_weight_multiplier=-1.0)
        hosts = [fakes.fake_host('a', vcpus_total=8, vcpus_used=7),
                 fakes.fake_host('b', vcpus_total=8, vcpus_used=1)]
        self.assertEqual('a', self.best(hosts))
