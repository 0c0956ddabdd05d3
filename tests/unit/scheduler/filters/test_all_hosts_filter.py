from nova_lite.scheduler.filters import all_hosts_filter
from tests.unit.scheduler import fakes


class TestAllHostsFilter(fakes.FilterTestCase):
    FILTER = all_hosts_filter.AllHostsFilter

    def test_every_host_passes(self):
        host = fakes.fake_host(service={'disabled': True, 'up': False})
        self.assertPasses(host, fakes.fake_spec(memory_mb=10 ** 9))

    def test_runs_once_per_request(self):
        self.assertFalse(self.filt.run_filter_for_index(1))
