from nova_lite.scheduler.filters import num_instances_filter
from tests.unit.scheduler import fakes


class TestNumInstancesFilter(fakes.FilterTestCase):
    FILTER = num_instances_filter.NumInstancesFilter

    def test_default_limit_is_50(self):
        self.assertPasses(fakes.fake_host(num_instances=49),
                          fakes.fake_spec())
        self.assertFails(fakes.fake_host(num_instances=50),
                         fakes.fake_spec())

    def test_option(self):
        self.flags(group='filter_scheduler', max_instances_per_host=1)
        self.assertFails(fakes.fake_host(num_instances=1), fakes.fake_spec())
        self.assertPasses(fakes.fake_host(num_instances=0),
                          fakes.fake_spec())
