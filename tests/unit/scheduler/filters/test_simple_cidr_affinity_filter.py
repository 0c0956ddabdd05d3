from nova_lite import exception
from nova_lite.scheduler.filters import affinity_filter
from tests.unit.scheduler import fakes


class TestSimpleCIDRAffinityFilter(fakes.FilterTestCase):
    FILTER = affinity_filter.SimpleCIDRAffinityFilter

    def test_no_hint_passes(self):
        self.assertPasses(fakes.fake_host(), fakes.fake_spec())

    def test_host_in_network_passes(self):
        spec = fakes.fake_spec(scheduler_hints={
            'build_near_host_ip': '10.0.0.5', 'cidr': '/24'})
        self.assertPasses(fakes.fake_host(host_ip='10.0.0.200'), spec)
        self.assertFails(fakes.fake_host(host_ip='10.0.1.1'), spec)
        self.assertFails(fakes.fake_host(), spec)

    def test_default_cidr_is_everything(self):
        spec = fakes.fake_spec(scheduler_hints={
            'build_near_host_ip': '10.0.0.5'})
        self.assertPasses(fakes.fake_host(host_ip='192.168.1.1'), spec)

    def test_bad_ip_is_an_invalid_request(self):
        spec = fakes.fake_spec(scheduler_hints={
            'build_near_host_ip': 'not-an-ip', 'cidr': '24'})
        self.assertRaises(exception.InvalidSchedulerRequest,
                          self.filt.host_passes,
                          fakes.fake_host(host_ip='10.0.0.1'), spec)
