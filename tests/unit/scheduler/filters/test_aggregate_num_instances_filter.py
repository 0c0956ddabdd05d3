from nova_lite.scheduler.filters import num_instances_filter
from tests.unit.scheduler import fakes


class TestAggregateNumInstancesFilter(fakes.FilterTestCase):
    FILTER = num_instances_filter.AggregateNumInstancesFilter

    def test_aggregate_limit(self):
        host = fakes.fake_host(num_instances=5, aggregates=[
            fakes.aggregate(max_instances_per_host='5')])
        self.assertFails(host, fakes.fake_spec())
        host.aggregates[0].metadata['max_instances_per_host'] = '6'
        self.assertPasses(host, fakes.fake_spec())

    def test_falls_back_to_option(self):
        self.flags(group='filter_scheduler', max_instances_per_host=5)
        self.assertFails(fakes.fake_host(num_instances=5), fakes.fake_spec())
