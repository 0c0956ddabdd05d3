from nova_lite.scheduler.filters import resource_filters
from tests.unit.scheduler import fakes


class TestAggregateCoreFilter(fakes.FilterTestCase):
    FILTER = resource_filters.AggregateCoreFilter

    def _host(self, used):
        return fakes.fake_host(vcpus_total=4, vcpus_used=used, aggregates=[
            fakes.aggregate('a', cpu_allocation_ratio='4.0'),
            fakes.aggregate('b', cpu_allocation_ratio='2.0')])

    def test_smallest_aggregate_ratio_wins(self):
        self.assertPasses(self._host(used=4), fakes.fake_spec(vcpus=4))
        self.assertFails(self._host(used=5), fakes.fake_spec(vcpus=4))

    def test_falls_back_to_host_ratio(self):
        host = fakes.fake_host(vcpus_total=4, vcpus_used=4,
                               cpu_allocation_ratio=1.0)
        self.assertFails(host, fakes.fake_spec(vcpus=1))
