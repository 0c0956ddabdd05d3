"""The integrated fixture's rules and fake clock, as a test author uses
them (the races they reproduce are in test_races)."""

import threading

import oslo_messaging as messaging
from oslo_utils import timeutils
import testtools

from nova_lite import baserpc
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite import rpc_rules
from nova_lite import servicegroup
from nova_lite.testing import integrated


class HarnessTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(integrated.IntegratedFixture())
        self.cloud.start_compute('host1')

    def test_rules_use_the_harness_bus_names(self):
        rule = self.cloud.add_rule('hold', bus='api', method='ping')
        [listed] = self.cloud.chaos.rules()
        self.assertEqual((rule, 'api', 'ping'),
                         (listed['id'], listed['bus'], listed['method']))
        self.assertEqual('', rpc_rules.rules()[0]['bus'])
        self.assertEqual(0, self.cloud.clear_rules())
        self.assertEqual((), rpc_rules.RULES)

    def _ping_api(self):
        return baserpc.BaseAPI('compute', transport=self.cloud.computes[
            'host1'].transport)

    def test_held_call_fails_in_its_caller_when_discarded(self):
        # What the fixture's cleanup does with a call still held: its
        # caller gets a timeout instead of blocking the services' stop.
        self.cloud.add_rule('hold', method='ping', bus='cell1')
        errors = []

        def ping():
            try:
                self._ping_api().ping(nl_context.get_admin_context(), 'x',
                                      server='host1', timeout=5)
            except messaging.MessagingTimeout as exc:
                errors.append(exc)
        caller = threading.Thread(target=ping)
        caller.start()
        held = self.cloud.wait_held(kind='call')
        self.assertEqual(('cell1', 'compute', 'host1'),
                         (held['bus'], held['topic'], held['server']))
        self.assertEqual(1, self.cloud.clear_rules(discard=True))
        caller.join(5)
        self.assertEqual(1, len(errors))
        self.assertEqual([], self.cloud.chaos.held())

    def test_fake_clock_moves_only_when_told(self):
        clock = self.cloud.use_fake_clock()
        now = timeutils.utcnow()
        self.assertEqual(now, timeutils.utcnow())
        clock.advance(90)
        self.assertEqual(90, (timeutils.utcnow() - now).total_seconds())
        self.assertIs(clock, self.cloud.use_fake_clock())

    def test_compute_down_only_that_compute(self):
        self.cloud.start_compute('host2')
        self.cloud.compute_down('host1')
        context = self.cloud.computes['host2'].manager.cell_context(
            nl_context.get_admin_context())
        up = {host: servicegroup.is_up(objects.Service.heartbeat_of(
            context, host, 'nova-lite-compute'))
            for host in ('host1', 'host2')}
        self.assertEqual({'host1': False, 'host2': True}, up)

    def test_run_periodic_unknown_task(self):
        self.assertRaises(ValueError, self.cloud.run_periodic, 'host1',
                          'no_such_task')

    def test_fail_as_remote_error_reaches_the_caller(self):
        self.cloud.add_rule('fail', at='dispatch', method='ping',
                            server='host1', count=1)
        api = self._ping_api()
        context = nl_context.get_admin_context()
        self.assertRaises(exception.InjectedRPCFault, api.ping, context,
                          'x', server='host1', timeout=5)
        self.assertEqual('x', api.ping(context, 'x', server='host1',
                                       timeout=5)['arg'])
