from nova_lite.scheduler.filters import io_ops_filter
from tests.unit.scheduler import fakes


class TestAggregateIoOpsFilter(fakes.FilterTestCase):
    FILTER = io_ops_filter.AggregateIoOpsFilter

    def test_aggregate_limit(self):
        host = fakes.fake_host(num_io_ops=3, aggregates=[
            fakes.aggregate(max_io_ops_per_host='3')])
        self.assertFails(host, fakes.fake_spec())

    def test_smallest_aggregate_value_wins(self):
        host = fakes.fake_host(num_io_ops=3, aggregates=[
            fakes.aggregate('a', max_io_ops_per_host='10'),
            fakes.aggregate('b', max_io_ops_per_host='2,20')])
        self.assertFails(host, fakes.fake_spec())

    def test_falls_back_to_option(self):
        self.flags(group='filter_scheduler', max_io_ops_per_host=4)
        host = fakes.fake_host(num_io_ops=3, aggregates=[
            fakes.aggregate(max_io_ops_per_host='lots')])
        self.assertPasses(host, fakes.fake_spec())
        self.assertFails(fakes.fake_host(num_io_ops=4), fakes.fake_spec())
