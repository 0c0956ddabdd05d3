from nova_lite.scheduler.weights import affinity
from tests.unit.scheduler import fakes


class TestServerGroupSoftAffinityWeigher(fakes.WeigherTestCase):
    WEIGHER = affinity.ServerGroupSoftAffinityWeigher

    def _hosts(self):
        return [fakes.fake_host('h1'), fakes.fake_host('h2'),
                fakes.fake_host('h3')]

    def test_host_with_most_members_wins(self):
        spec = fakes.fake_spec(instance_group=fakes.group(
            'soft-affinity', hosts=['h2', 'h2', 'h3']))
        weighed = self.weigh(self._hosts(), spec)
        self.assertEqual(['h2', 'h3', 'h1'], [w.obj.host for w in weighed])

    def test_other_policy_weighs_nothing(self):
        spec = fakes.fake_spec(instance_group=fakes.group(
            'soft-anti-affinity', hosts=['h2']))
        self.assertEqual([0.0] * 3,
                         [w.weight for w in self.weigh(self._hosts(), spec)])

    def test_multiplier_must_not_be_negative(self):
        self.assertRaises(ValueError, self.flags, group='filter_scheduler',
                          soft_affinity_weight_multiplier=-1.0)
