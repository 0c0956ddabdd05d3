from nova_lite.scheduler.weights import build_failure
from tests.unit.scheduler import fakes


class TestBuildFailureWeigher(fakes.WeigherTestCase):
    WEIGHER = build_failure.BuildFailureWeigher

    def _hosts(self):
        return [fakes.fake_host('failing', failed_builds=3),
                fakes.fake_host('ok', failed_builds=0)]

    def test_failing_host_comes_last(self):
        weighed = self.weigh(self._hosts())
        self.assertEqual('ok', weighed[0].obj.host)
        self.assertEqual(-1000000.0, weighed[1].weight)

    def test_zero_multiplier_disables(self):
        self.flags(group='filter_scheduler',
                   build_failure_weight_multiplier=0.0)
        self.assertEqual([0.0, 0.0],
                         [w.weight for w in self.weigh(self._hosts())])

    def test_aggregate_override_is_negated_too(self):
        hosts = self._hosts()
        hosts[0].aggregates = [fakes.aggregate(
            build_failure_weight_multiplier='10')]
        weighed = self.weigh(hosts)
        self.assertEqual(-10.0, weighed[1].weight)
