from nova_lite.scheduler.filters import io_ops_filter
from tests.unit.scheduler import fakes


class TestIoOpsFilter(fakes.FilterTestCase):
    FILTER = io_ops_filter.IoOpsFilter

    def test_default_limit_is_8(self):
        self.assertPasses(fakes.fake_host(num_io_ops=7), fakes.fake_spec())
        self.assertFails(fakes.fake_host(num_io_ops=8), fakes.fake_spec())

    def test_option(self):
        self.flags(group='filter_scheduler', max_io_ops_per_host=2)
        self.assertFails(fakes.fake_host(num_io_ops=2), fakes.fake_spec())

    def test_aggregate_metadata_is_ignored(self):
        host = fakes.fake_host(num_io_ops=3, aggregates=[
            fakes.aggregate(max_io_ops_per_host='2')])
        self.assertPasses(host, fakes.fake_spec())
