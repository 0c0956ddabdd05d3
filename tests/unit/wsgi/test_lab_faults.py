"""REST lab faults: requests delayed and answered 503 from the lab's file."""

import builtins
import os
from unittest import mock

import fixtures
import testtools
import webob

from nova_lite.placement import faults as placement_faults
from nova_lite.placement import deploy as placement_deploy
from nova_lite.wsgi import faults
from nova_lite.wsgi import lab_faults


def _ok(environ, start_response):
    start_response('200 OK', [('Content-Type', 'application/json')])
    return [b'{"ok": true}']


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


class TestLabFault(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.state = self.useFixture(fixtures.TempDir()).path
        self.clock = FakeClock()
        self.slept = []
        self.faults = lab_faults.FaultFile(
            os.path.join(self.state, lab_faults.FILE), 'placement',
            clock=self.clock)
        self.app = faults.FaultWrapper(
            lab_faults.LabFault(_ok, self.faults, placement_faults.ERRORS,
                                sleep=self.slept.append, rand=lambda: 0.5),
            placement_faults.ERRORS)

    def _get(self):
        return webob.Request.blank('/resource_providers').get_response(
            self.app)

    def test_delay_and_jitter_are_slept(self):
        lab_faults.write(self.state, 'placement',
                         {'delay': 2, 'jitter': 1})
        response = self._get()
        self.assertEqual(200, response.status_int)
        # 2 s plus half of the 1 s jitter (the fake random gives 0.5).
        self.assertEqual([2.5], self.slept)

    def test_error_rate_one_answers_503_in_placement_format(self):
        lab_faults.write(self.state, 'placement', {'error_rate': 1.0})
        response = self._get()
        self.assertEqual(503, response.status_int)
        self.assertEqual([], self.slept)
        self.assertEqual('application/json', response.content_type)
        [error] = response.json_body['errors']
        self.assertEqual(503, error['status'])
        self.assertEqual('Service Unavailable', error['title'])
        self.assertIn('Lab fault', error['detail'])

    def test_another_services_fault_or_an_expired_one_passes(self):
        lab_faults.write(self.state, 'compute', {'error_rate': 1.0})
        self.assertEqual(200, self._get().status_int)
        self.clock.now += lab_faults.CHECK_INTERVAL
        lab_faults.write(self.state, 'placement',
                         {'error_rate': 1.0, 'until': 1.0})
        self.assertEqual(200, self._get().status_int)

    def test_no_fault_stats_once_per_interval_and_never_reads(self):
        stat = mock.Mock(wraps=os.stat)
        opened = mock.Mock(wraps=builtins.open)
        self.useFixture(fixtures.MockPatch(
            'nova_lite.wsgi.lab_faults.os.stat', stat))
        self.useFixture(fixtures.MockPatch(
            'nova_lite.wsgi.lab_faults.open', opened, create=True))
        for _ in range(50):
            self.assertEqual(200, self._get().status_int)
        self.assertEqual(1, stat.call_count)
        self.clock.now += lab_faults.CHECK_INTERVAL
        for _ in range(50):
            self._get()
        self.assertEqual(2, stat.call_count)
        opened.assert_not_called()
        self.assertEqual([], self.slept)

    def test_fault_set_and_cleared_is_seen_after_the_interval(self):
        self.assertEqual(200, self._get().status_int)
        lab_faults.write(self.state, 'placement', {'error_rate': 1.0})
        # Not before the next check.
        self.assertEqual(200, self._get().status_int)
        self.clock.now += lab_faults.CHECK_INTERVAL
        self.assertEqual(503, self._get().status_int)
        self.assertEqual(['placement'], lab_faults.remove(self.state))
        self.clock.now += lab_faults.CHECK_INTERVAL
        self.assertEqual(200, self._get().status_int)

    def test_bad_values_are_refused(self):
        for fault in ({}, {'error_rate': 2}, {'delay': -1}):
            self.assertRaises(ValueError, lab_faults.write, self.state,
                              'placement', fault)
        self.assertRaises(ValueError, lab_faults.write, self.state,
                          'glance', {'delay': 1})


class TestPipeline(testtools.TestCase):

    def _find(self, app):
        seen = 0
        while app is not None and seen < 20:
            if isinstance(app, lab_faults.LabFault):
                return app
            app = getattr(app, 'app', None)
            seen += 1
        return None

    def test_placement_has_the_layer_only_in_a_lab(self):
        from nova_lite import conf as nl_conf
        state = self.useFixture(fixtures.TempDir()).path
        self.useFixture(fixtures.EnvironmentVariable('NOVA_LITE_STATE_DIR',
                                                     state))
        layer = self._find(placement_deploy.deploy(nl_conf.CONF))
        self.assertIsNotNone(layer)
        self.assertEqual('placement', layer.faults.service)
        self.useFixture(fixtures.EnvironmentVariable('NOVA_LITE_STATE_DIR'))
        self.assertIsNone(self._find(placement_deploy.deploy(nl_conf.CONF)))
