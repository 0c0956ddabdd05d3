import datetime

from oslo_utils import timeutils

from nova_lite.scheduler.filters import compute_filter
from tests.unit.scheduler import fakes


class TestComputeFilter(fakes.FilterTestCase):
    FILTER = compute_filter.ComputeFilter

    def test_enabled_and_up_passes(self):
        self.assertPasses(fakes.fake_host(), fakes.fake_spec())

    def test_disabled_fails(self):
        host = fakes.fake_host(service={'disabled': True, 'up': True,
                                        'disabled_reason': 'maintenance'})
        self.assertFails(host, fakes.fake_spec())

    def test_down_fails(self):
        host = fakes.fake_host(service={'disabled': False, 'up': False})
        self.assertFails(host, fakes.fake_spec())

    def test_forced_down_fails(self):
        host = fakes.fake_host(service={'disabled': False, 'up': True,
                                        'forced_down': True})
        self.assertFails(host, fakes.fake_spec())

    def test_heartbeat_age_decides_without_up_key(self):
        now = timeutils.utcnow()
        fresh = fakes.fake_host(service={'disabled': False,
                                         'last_seen_up': now})
        stale = fakes.fake_host(service={
            'disabled': False,
            'last_seen_up': now - datetime.timedelta(seconds=3600)})
        self.assertPasses(fresh, fakes.fake_spec())
        self.assertFails(stale, fakes.fake_spec())
