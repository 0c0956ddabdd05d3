from nova_lite.scheduler.filters import availability_zone_filter
from tests.unit.scheduler import fakes


class TestAvailabilityZoneFilter(fakes.FilterTestCase):
    FILTER = availability_zone_filter.AvailabilityZoneFilter

    def test_no_zone_requested_passes(self):
        host = fakes.fake_host(aggregates=[
            fakes.aggregate(availability_zone='az1')])
        self.assertPasses(host, fakes.fake_spec())

    def test_host_in_requested_zone_passes(self):
        host = fakes.fake_host(aggregates=[
            fakes.aggregate(availability_zone='az1')])
        self.assertPasses(host, fakes.fake_spec(availability_zone='az1'))

    def test_host_in_other_zone_fails(self):
        host = fakes.fake_host(aggregates=[
            fakes.aggregate(availability_zone='az2')])
        self.assertFails(host, fakes.fake_spec(availability_zone='az1'))

    def test_host_without_zone_is_in_default_zone(self):
        host = fakes.fake_host()
        self.assertPasses(host, fakes.fake_spec(availability_zone='nova'))
        self.assertFails(host, fakes.fake_spec(availability_zone='az1'))
