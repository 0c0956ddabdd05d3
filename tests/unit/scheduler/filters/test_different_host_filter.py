from nova_lite.scheduler.filters import affinity_filter
from tests.unit.scheduler import fakes


class TestDifferentHostFilter(fakes.FilterTestCase):
    FILTER = affinity_filter.DifferentHostFilter

    def test_no_hint_passes(self):
        self.assertPasses(fakes.fake_host(instances=['a']), fakes.fake_spec())

    def test_host_with_listed_instance_fails(self):
        spec = fakes.fake_spec(scheduler_hints={'different_host': ['a']})
        self.assertFails(fakes.fake_host(instances=['a']), spec)
        self.assertPasses(fakes.fake_host(instances=['z']), spec)

    def test_all_hosts_read_the_hint_once(self):
        self.assertHintReadOnce('different_host')
