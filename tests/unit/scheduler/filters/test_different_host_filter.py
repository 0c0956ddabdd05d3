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
        spec = fakes.fake_spec(scheduler_hints={'different_host': ['a', 'b']})
        hosts = [fakes.fake_host('h%d' % i, instances=[uuid])
                 for i, uuid in enumerate(('a', 'c', 'b', 'd'))]
        expected = [h for h in hosts if self.filt.host_passes(h, spec)]
        reads = []
        real = spec.get_hint_list

        def counted(name):
            reads.append(name)
            return real(name)
        self.patch(spec, 'get_hint_list', counted)
        self.assertEqual(expected, self.filt.filter_all(hosts, spec))
        self.assertEqual(['different_host'], reads)
