from nova_lite.scheduler import host_state
from nova_lite.scheduler.weights import affinity
from tests.unit.scheduler import fakes


class TestServerGroupSoftAntiAffinityWeigher(fakes.WeigherTestCase):
    WEIGHER = affinity.ServerGroupSoftAntiAffinityWeigher

    def test_host_with_fewest_members_wins(self):
        hosts = [fakes.fake_host('h1'), fakes.fake_host('h2')]
        spec = fakes.fake_spec(instance_group=fakes.group(
            'soft-anti-affinity', hosts=['h1']))
        self.assertEqual('h2', self.best(hosts, spec))

    def test_picks_in_the_same_request_count(self):
        hosts = [fakes.fake_host('h1'), fakes.fake_host('h2')]
        spec = fakes.fake_spec(instance_group=fakes.group(
            'soft-anti-affinity'))
        host_state.consume_selected_host(hosts[1], spec, 'i1')
        self.assertEqual('h1', self.best(hosts, spec))
