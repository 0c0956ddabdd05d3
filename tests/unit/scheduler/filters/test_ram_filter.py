from nova_lite.scheduler.filters import resource_filters
from tests.unit.scheduler import fakes


class TestRamFilter(fakes.FilterTestCase):
    FILTER = resource_filters.RamFilter

    def test_fits(self):
        host = fakes.fake_host(total_usable_ram_mb=4096, free_ram_mb=1024)
        self.assertPasses(host, fakes.fake_spec(memory_mb=1024))
        self.assertEqual(4096, host.limits['memory_mb'])
        self.assertFails(host, fakes.fake_spec(memory_mb=1025))

    def test_allocation_ratio_overcommits(self):
        host = fakes.fake_host(total_usable_ram_mb=4096, free_ram_mb=0,
                               ram_allocation_ratio=1.5)
        self.assertPasses(host, fakes.fake_spec(memory_mb=2048))
        self.assertFails(host, fakes.fake_spec(memory_mb=2049))

    def test_aggregate_ratio_is_ignored(self):
        host = fakes.fake_host(
            total_usable_ram_mb=4096, free_ram_mb=0,
            aggregates=[fakes.aggregate(ram_allocation_ratio='2.0')])
        self.assertFails(host, fakes.fake_spec(memory_mb=1))
