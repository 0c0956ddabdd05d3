from nova_lite.scheduler.weights import num_instances
from tests.unit.scheduler import fakes


class TestNumInstancesWeigher(fakes.WeigherTestCase):
    WEIGHER = num_instances.NumInstancesWeigher

    def _hosts(self):
        return [fakes.fake_host('few', num_instances=1),
                fakes.fake_host('many', num_instances=9)]

    def test_off_by_default(self):
        weighed = self.weigh(self._hosts())
        self.assertEqual([0.0, 0.0], [w.weight for w in weighed])
        self.assertEqual('few', weighed[0].obj.host)

    def test_positive_packs(self):
        self.flags(group='filter_scheduler',
                   num_instances_weight_multiplier=1.0)
        self.assertEqual('many', self.best(self._hosts()))

    def test_negative_spreads(self):
        self.flags(group='filter_scheduler',
                   num_instances_weight_multiplier=-1.0)
        self.assertEqual('few', self.best(self._hosts()))
