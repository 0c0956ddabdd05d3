from nova_lite.scheduler.filters import metrics_filter
from tests.unit.scheduler import fakes


class TestMetricsFilter(fakes.FilterTestCase):
    FILTER = metrics_filter.MetricsFilter

    def test_no_setting_passes(self):
        self.assertPasses(fakes.fake_host(), fakes.fake_spec())

    def test_missing_metric_fails_when_required(self):
        self.flags(group='metrics', weight_setting=['load=1.0', 'temp=-1'])
        self.assertPasses(fakes.fake_host(metrics={'load': 1, 'temp': 40}),
                          fakes.fake_spec())
        self.assertFails(fakes.fake_host(metrics={'load': 1}),
                         fakes.fake_spec())
        self.flags(group='metrics', required=False)
        self.assertPasses(fakes.fake_host(metrics={'load': 1}),
                          fakes.fake_spec())
