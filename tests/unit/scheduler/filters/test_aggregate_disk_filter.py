from nova_lite.scheduler.filters import resource_filters
from tests.unit.scheduler import fakes


class TestAggregateDiskFilter(fakes.FilterTestCase):
    FILTER = resource_filters.AggregateDiskFilter

    def test_aggregate_ratio(self):
        host = fakes.fake_host(
            total_usable_disk_gb=10, free_disk_mb=0,
            aggregates=[fakes.aggregate(disk_allocation_ratio='3')])
        self.assertPasses(host, fakes.fake_spec(root_gb=20))
        self.assertFails(host, fakes.fake_spec(root_gb=21))

    def test_without_aggregate_uses_host_ratio(self):
        host = fakes.fake_host(total_usable_disk_gb=10, free_disk_mb=0)
        self.assertFails(host, fakes.fake_spec(root_gb=1))
