from nova_lite.scheduler.filters import (
    aggregate_image_properties_isolation as f)
from tests.unit.scheduler import fakes


class TestAggregateImagePropertiesIsolation(fakes.FilterTestCase):
    FILTER = f.AggregateImagePropertiesIsolation

    def _host(self, **metadata):
        return fakes.fake_host(aggregates=[fakes.aggregate(**metadata)])

    def test_matching_property_passes(self):
        spec = fakes.fake_spec(image_props={'os_distro': 'debian'})
        self.assertPasses(self._host(os_distro='debian,ubuntu'), spec)

    def test_other_value_fails(self):
        spec = fakes.fake_spec(image_props={'os_distro': 'windows'})
        self.assertFails(self._host(os_distro='debian'), spec)

    def test_property_not_set_on_image_passes(self):
        self.assertPasses(self._host(os_distro='debian'), fakes.fake_spec())

    def test_namespace_limits_keys(self):
        self.flags(group='filter_scheduler',
                   aggregate_image_properties_isolation_namespace='iso')
        host = self._host(os_distro='debian', **{'iso.os_type': 'linux'})
        spec = fakes.fake_spec(image_props={'os_distro': 'windows',
                                            'iso.os_type': 'linux'})
        self.assertPasses(host, spec)
        spec.image.properties['iso.os_type'] = 'windows'
        self.assertFails(host, spec)
