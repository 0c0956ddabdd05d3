from nova_lite.scheduler.weights import metrics
from tests.unit.scheduler import fakes


class TestMetricsWeigher(fakes.WeigherTestCase):
    WEIGHER = metrics.MetricsWeigher

    def test_weighted_sum(self):
        self.flags(group='metrics', weight_setting=['cpu.freq=1.0',
                                                    'load=-100'])
        hosts = [fakes.fake_host('slow', metrics={'cpu.freq': 2000,
                                                  'load': 0.1}),
                 fakes.fake_host('loaded', metrics={'cpu.freq': 3000,
                                                    'load': 20})]
        # slow: 2000 - 10 = 1990; loaded: 3000 - 2000 = 1000.
        self.assertEqual('slow', self.best(hosts))

    def test_missing_metric_comes_last(self):
        self.flags(group='metrics', weight_setting=['load=-1'])
        hosts = [fakes.fake_host('unknown'),
                 fakes.fake_host('busy', metrics={'load': 50})]
        self.assertEqual('busy', self.best(hosts))

    def test_malformed_setting_is_ignored(self):
        self.assertEqual([('a', 2.0)], metrics.parse_weight_setting(
            ['a=2', 'b', '=3', 'c=x']))

    def test_multiplier_option(self):
        self.flags(group='metrics', weight_setting=['load=1'],
                   weight_multiplier=-1.0)
        hosts = [fakes.fake_host('low', metrics={'load': 1}),
                 fakes.fake_host('high', metrics={'load': 9})]
        self.assertEqual('low', self.best(hosts))
