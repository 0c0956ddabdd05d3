import json

from nova_lite import exception
from nova_lite.scheduler.filters import json_filter
from tests.unit.scheduler import fakes


class TestJsonFilter(fakes.FilterTestCase):
    FILTER = json_filter.JsonFilter

    def _spec(self, query):
        return fakes.fake_spec(scheduler_hints={'query': json.dumps(query)})

    def test_no_query_passes(self):
        self.assertPasses(fakes.fake_host(), fakes.fake_spec())

    def test_comparison(self):
        spec = self._spec(['>=', '$free_ram_mb', 1024])
        self.assertPasses(fakes.fake_host(free_ram_mb=2048), spec)
        self.assertFails(fakes.fake_host(free_ram_mb=512), spec)

    def test_and_or_not_in(self):
        spec = self._spec(['and',
                           ['or', ['=', '$host', 'h1'], ['=', '$host', 'h2']],
                           ['not', ['in', '$hypervisor_type', 'kvm', 'xen']]])
        self.assertPasses(fakes.fake_host('h1', hypervisor_type='fake'),
                          spec)
        self.assertFails(fakes.fake_host('h3', hypervisor_type='fake'),
                         spec)
        self.assertFails(fakes.fake_host('h2', hypervisor_type='kvm'), spec)

    def test_dict_variable(self):
        spec = self._spec(['=', '$stats.rack', 'r1'])
        self.assertPasses(fakes.fake_host(stats={'rack': 'r1'}), spec)
        self.assertFails(fakes.fake_host(stats={}), spec)

    def test_filter_all(self):
        spec = self._spec(['<', '$num_instances', 3])
        hosts = [fakes.fake_host('a', num_instances=1),
                 fakes.fake_host('b', num_instances=5)]
        self.assertEqual(['a'], [h.host for h in
                                 self.filt.filter_all(hosts, spec)])

    def test_malformed_query_names_the_hint(self):
        for query in ('[not json', '["frobnicate", 1]', '{"a": 1}'):
            spec = fakes.fake_spec(scheduler_hints={'query': query})
            err = self.assertRaises(exception.InvalidSchedulerRequest,
                                    self.filt.filter_all,
                                    [fakes.fake_host()], spec)
            self.assertEqual('query', err.key)
