from nova_lite.scheduler.filters import image_props_filter as f
from tests.unit.scheduler import fakes


class TestImagePropertiesFilter(fakes.FilterTestCase):
    FILTER = f.ImagePropertiesFilter

    def _host(self, version=6001000):
        return fakes.fake_host(
            supported_instances=[('x86_64', 'fake', 'hvm')],
            hypervisor_version=version)

    def test_image_without_requirements_passes(self):
        self.assertPasses(fakes.fake_host(), fakes.fake_spec())

    def test_matching_architecture_passes(self):
        spec = fakes.fake_spec(image_props={'hw_architecture': 'X86_64',
                                            'hw_vm_mode': 'hvm'})
        self.assertPasses(self._host(), spec)

    def test_other_architecture_fails(self):
        spec = fakes.fake_spec(image_props={'hw_architecture': 'aarch64'})
        self.assertFails(self._host(), spec)

    def test_host_without_supported_instances_fails(self):
        spec = fakes.fake_spec(image_props={'img_hv_type': 'fake'})
        self.assertFails(fakes.fake_host(), spec)

    def test_default_architecture_option(self):
        self.flags(group='filter_scheduler',
                   image_properties_default_architecture='aarch64')
        spec = fakes.fake_spec(image_props={'img_hv_type': 'fake'})
        self.assertFails(self._host(), spec)

    def test_hypervisor_version(self):
        spec = fakes.fake_spec(image_props={
            'img_hv_requested_version': '>=6.1'})
        self.assertPasses(self._host(6001000), spec)
        self.assertFails(self._host(6000009), spec)
        spec.image.properties['img_hv_requested_version'] = '<7'
        self.assertPasses(self._host(6001000), spec)

    def test_version_helpers(self):
        self.assertEqual((6, 1, 0), f.version_from_int(6001000))
        self.assertFalse(f.version_satisfies(6001000, '>=banana'))

    def test_filter_all_matches_host_passes(self):
        spec = fakes.fake_spec(image_props={'hw_architecture': 'x86_64'})
        hosts = [self._host(), fakes.fake_host('h2')]
        self.assertEqual([hosts[0]], self.filt.filter_all(hosts, spec))
