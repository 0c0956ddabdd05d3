"""The pieces composed the way a scheduler manager uses them.

Query and prefilters, then per instance: filter, weigh, pick, consume. No
placement here: the host states stand for the providers placement
returned. This is also the usage example for the manager.
"""

from nova_lite import exception
from nova_lite.scheduler import explain
from nova_lite.scheduler import filters
from nova_lite.scheduler import host_state
from nova_lite.scheduler import placement_query as pq
from nova_lite.scheduler import request_filter
from nova_lite.scheduler import weights
from tests.unit.scheduler import fakes


def schedule(spec, hosts, instance_uuids, aggregates=()):
    """Chosen host names per instance, or NoValidHost with the reason."""
    try:
        query = pq.build_query(spec)
        request_filter.process_reqspec(spec, query, aggregates)
    except (exception.InvalidSchedulerRequest,
            request_filter.RequestFilterFailed) as err:
        raise explain.no_valid_host(explain.explain_invalid_request(err))
    filter_handler = filters.FilterHandler()
    weight_handler = weights.WeightHandler()
    chosen = []
    for index, instance_uuid in enumerate(instance_uuids):
        spec.instance_uuid = instance_uuid
        result = filter_handler.get_filtered_hosts(hosts, spec, index)
        if not result.hosts:
            raise explain.no_valid_host(explain.explain_filtered(
                len(hosts), len(hosts), result, index,
                len(instance_uuids)), query)
        weighed = weight_handler.get_weighed_hosts(result.hosts, spec)
        best = weights.pick_host(weighed)[0].obj
        host_state.consume_selected_host(best, spec, instance_uuid)
        chosen.append(best.host)
    return chosen


class TestPipeline(fakes.TestCase):

    def _hosts(self, count=3):
        return [fakes.fake_host('h%d' % i, free_ram_mb=4096 + i)
                for i in range(count)]

    def test_spreads_by_free_ram(self):
        spec = fakes.fake_spec(memory_mb=1024, num_instances=3)
        self.assertEqual(['h2', 'h1', 'h0'],
                         schedule(spec, self._hosts(), ['a', 'b', 'c']))

    def test_anti_affinity_fourth_instance_fails_with_reason(self):
        group = fakes.group('anti-affinity', members=['a', 'b', 'c', 'd'])
        spec = fakes.fake_spec(instance_group=group, num_instances=4,
                               scheduler_hints={'group': 'g1'})
        err = self.assertRaises(exception.NoValidHost, schedule, spec,
                                self._hosts(), ['a', 'b', 'c', 'd'])
        self.assertIn('for instance 4 of 4', str(err))
        self.assertIn('ServerGroupAntiAffinityFilter removed 3 of 3 hosts '
                      '(none left)', str(err))

    def test_affinity_stacks_on_first_pick(self):
        spec = fakes.fake_spec(instance_group=fakes.group('affinity'))
        self.assertEqual(['h2', 'h2', 'h2'],
                         schedule(spec, self._hosts(), ['a', 'b', 'c']))

    def test_malformed_extra_spec_names_the_key(self):
        spec = fakes.fake_spec(extra_specs={'resources:VCPU': 'abc'})
        err = self.assertRaises(exception.NoValidHost, schedule, spec,
                                self._hosts(), ['a'])
        self.assertIn('No valid host was found', str(err))
        self.assertIn('resources:VCPU', str(err))
