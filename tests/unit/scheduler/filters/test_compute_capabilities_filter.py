from nova_lite.scheduler.filters import compute_capabilities_filter as f
from tests.unit.scheduler import fakes


class TestComputeCapabilitiesFilter(fakes.FilterTestCase):
    FILTER = f.ComputeCapabilitiesFilter

    def test_no_capabilities_passes(self):
        spec = fakes.fake_spec(extra_specs={'hw:cpu_policy': 'dedicated',
                                            'unknown_key': 'x'})
        self.assertPasses(fakes.fake_host(), spec)

    def test_attribute_capability(self):
        host = fakes.fake_host(hypervisor_type='fake')
        spec = fakes.fake_spec(
            extra_specs={'capabilities:hypervisor_type': 'fake'})
        self.assertPasses(host, spec)
        spec.flavor.extra_specs['capabilities:hypervisor_type'] = 'kvm'
        self.assertFails(host, spec)

    def test_nested_cpu_info(self):
        host = fakes.fake_host(cpu_info={'arch': 'x86_64',
                                         'features': ['avx', 'sse']})
        spec = fakes.fake_spec(extra_specs={
            'capabilities:cpu_info:features': '<all-in> avx sse'})
        self.assertPasses(host, spec)
        spec.flavor.extra_specs['capabilities:cpu_info:features'] = (
            '<all-in> avx512')
        self.assertFails(host, spec)

    def test_missing_capability_fails(self):
        spec = fakes.fake_spec(extra_specs={'capabilities:gpu_model': 'x'})
        self.assertFails(fakes.fake_host(), spec)

    def test_unscoped_key_of_host_attribute_counts(self):
        host = fakes.fake_host(vcpus_total=8)
        self.assertPasses(host, fakes.fake_spec(
            extra_specs={'vcpus_total': '>= 4'}))
        self.assertFails(host, fakes.fake_spec(
            extra_specs={'vcpus_total': '>= 16'}))

    def test_stats(self):
        host = fakes.fake_host(stats={'cpu_family': 'skylake'})
        spec = fakes.fake_spec(
            extra_specs={'capabilities:cpu_family': 's== skylake'})
        self.assertPasses(host, spec)
