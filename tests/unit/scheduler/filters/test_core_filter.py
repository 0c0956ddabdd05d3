from nova_lite.scheduler.filters import resource_filters
from tests.unit.scheduler import fakes


class TestCoreFilter(fakes.FilterTestCase):
    FILTER = resource_filters.CoreFilter

    def test_fits_with_ratio(self):
        host = fakes.fake_host(vcpus_total=4, vcpus_used=6,
                               cpu_allocation_ratio=2.0)
        self.assertPasses(host, fakes.fake_spec(vcpus=2))
        self.assertEqual(8, host.limits['vcpu'])
        self.assertFails(host, fakes.fake_spec(vcpus=3))

    def test_more_than_physical_fails(self):
        host = fakes.fake_host(vcpus_total=4, cpu_allocation_ratio=16.0)
        self.assertFails(host, fakes.fake_spec(vcpus=5))

    def test_host_without_cpus_is_not_judged(self):
        self.assertPasses(fakes.fake_host(vcpus_total=0),
                          fakes.fake_spec(vcpus=64))
