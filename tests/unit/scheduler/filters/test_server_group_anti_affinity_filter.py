from nova_lite import exception
from nova_lite.scheduler.filters import affinity_filter
from nova_lite.scheduler import host_state
from tests.unit.scheduler import fakes


class TestServerGroupAntiAffinityFilter(fakes.FilterTestCase):
    FILTER = affinity_filter.ServerGroupAntiAffinityFilter

    def test_host_without_members_passes(self):
        spec = fakes.fake_spec(instance_group=fakes.group(
            'anti-affinity', members=['i1']))
        self.assertPasses(fakes.fake_host(instances=['other']), spec)

    def test_host_with_a_member_fails(self):
        spec = fakes.fake_spec(instance_group=fakes.group(
            'anti-affinity', members=['i1']))
        self.assertFails(fakes.fake_host(instances=['i1']), spec)

    def test_max_server_per_host_rule(self):
        spec = fakes.fake_spec(instance_group=fakes.group(
            'anti-affinity', members=['i1', 'i2', 'i3'],
            rules={'max_server_per_host': '2'}))
        self.assertPasses(fakes.fake_host(instances=['i1']), spec)
        self.assertFails(fakes.fake_host(instances=['i1', 'i2']), spec)

    def test_instance_own_host_passes(self):
        spec = fakes.fake_spec(instance_uuid='i1', instance_group=fakes.group(
            'anti-affinity', members=['i1']))
        self.assertPasses(fakes.fake_host(instances=['i1']), spec)

    def test_picks_in_same_request_count(self):
        spec = fakes.fake_spec(instance_group=fakes.group(
            'anti-affinity', members=['i1', 'i2']))
        host = fakes.fake_host()
        host_state.consume_selected_host(host, spec, 'i1')
        spec.instance_uuid = 'i2'
        self.assertFails(host, spec)

    def test_bad_rule_is_an_invalid_request(self):
        spec = fakes.fake_spec(instance_group=fakes.group(
            'anti-affinity', rules={'max_server_per_host': 'many'}))
        err = self.assertRaises(exception.InvalidSchedulerRequest,
                                self.filt.host_passes, fakes.fake_host(),
                                spec)
        self.assertEqual('max_server_per_host', err.key)

    def test_pick_on_a_sibling_node_of_the_host_counts(self):
        spec = fakes.fake_spec(instance_group=fakes.group(
            'anti-affinity', members=['i1', 'i2']))
        node1 = fakes.fake_host(host='host1', node='node1')
        node2 = fakes.fake_host(host='host1', node='node2')
        host_state.consume_selected_host(node1, spec, 'i1')
        spec.instance_uuid = 'i2'
        self.assertFails(node2, spec)
        self.assertPasses(fakes.fake_host(host='host2', node='node3'),
                          spec)
