from nova_lite.scheduler.filters import resource_filters
from tests.unit.scheduler import fakes


class TestAggregateRamFilter(fakes.FilterTestCase):
    FILTER = resource_filters.AggregateRamFilter

    def test_aggregate_ratio(self):
        host = fakes.fake_host(
            total_usable_ram_mb=4096, free_ram_mb=0,
            aggregates=[fakes.aggregate(ram_allocation_ratio='2.0')])
        self.assertPasses(host, fakes.fake_spec(memory_mb=4096))
        self.assertFails(host, fakes.fake_spec(memory_mb=4097))

    def test_falls_back_to_host_ratio(self):
        host = fakes.fake_host(total_usable_ram_mb=4096, free_ram_mb=0,
                               ram_allocation_ratio=1.5)
        self.assertPasses(host, fakes.fake_spec(memory_mb=2048))
