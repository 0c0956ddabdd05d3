from nova_lite.scheduler.weights import io_ops
from tests.unit.scheduler import fakes


class TestIoOpsWeigher(fakes.WeigherTestCase):
    WEIGHER = io_ops.IoOpsWeigher

    def _hosts(self):
        return [fakes.fake_host('busy', num_io_ops=6),
                fakes.fake_host('quiet', num_io_ops=1)]

    def test_quiet_host_wins_by_default(self):
        self.assertEqual('quiet', self.best(self._hosts()))

    def test_positive_multiplier_prefers_busy(self):
        self.flags(group='filter_scheduler', io_ops_weight_multiplier=1.0)
        self.assertEqual('busy', self.best(self._hosts()))
