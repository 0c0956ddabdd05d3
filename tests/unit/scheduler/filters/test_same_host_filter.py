from nova_lite.scheduler.filters import affinity_filter
from tests.unit.scheduler import fakes


class TestSameHostFilter(fakes.FilterTestCase):
    FILTER = affinity_filter.SameHostFilter

    def test_no_hint_passes(self):
        self.assertPasses(fakes.fake_host(), fakes.fake_spec())

    def test_host_with_listed_instance_passes(self):
        spec = fakes.fake_spec(scheduler_hints={'same_host': ['a', 'b']})
        self.assertPasses(fakes.fake_host(instances=['b']), spec)
        self.assertFails(fakes.fake_host(instances=['c']), spec)

    def test_single_string_hint(self):
        spec = fakes.fake_spec(scheduler_hints={'same_host': 'a'})
        self.assertPasses(fakes.fake_host(instances=['a']), spec)

    def test_all_hosts_read_the_hint_once(self):
        self.assertHintReadOnce('same_host')
