from nova_lite.scheduler.filters import resource_filters
from tests.unit.scheduler import fakes


class TestDiskFilter(fakes.FilterTestCase):
    FILTER = resource_filters.DiskFilter

    def test_counts_root_ephemeral_and_swap(self):
        host = fakes.fake_host(total_usable_disk_gb=20,
                               free_disk_mb=10 * 1024)
        self.assertPasses(host, fakes.fake_spec(root_gb=5, ephemeral_gb=4,
                                                swap=1024))
        self.assertFails(host, fakes.fake_spec(root_gb=5, ephemeral_gb=4,
                                               swap=1025))

    def test_allocation_ratio(self):
        host = fakes.fake_host(total_usable_disk_gb=10, free_disk_mb=0,
                               disk_allocation_ratio=2.0)
        self.assertPasses(host, fakes.fake_spec(root_gb=10))
        self.assertEqual(20, host.limits['disk_gb'])
