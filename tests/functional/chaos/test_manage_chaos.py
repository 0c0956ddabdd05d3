"""nova-lite-manage chaos add | list | clear against in-process services.

All services share the test's process, and so one rule table: each
service that takes the fanout adds its own copy of the rule, so the
count of copies says how many services got it.
"""

import contextlib
import io
import threading
import time

import fixtures
import testtools

from nova_lite import baserpc
from nova_lite.cmd import manage
from nova_lite.cmd.manage_common import CommandError
from nova_lite import context as nl_context
from nova_lite.db import lab_faults as db_faults
from nova_lite import rpc_rules
from nova_lite.testing import integrated
from nova_lite.wsgi import lab_faults

# super conductor and scheduler on the API bus; cell conductor and host1
# on cell1's bus.
SERVICES = 4


class ManageChaosTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(integrated.IntegratedFixture())
        self.cloud.start_compute('host1')

    def manage(self, *argv):
        args = manage.build_parser().parse_args(argv)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = args.func(args)
        return code, out.getvalue()

    def wait_rules(self, count):
        deadline = time.monotonic() + 10
        while len(rpc_rules.rules()) != count:
            if time.monotonic() > deadline:
                raise AssertionError('rules: %s' % rpc_rules.rules())
            time.sleep(0.02)

    def test_add_list_clear(self):
        code, out = self.manage('chaos', 'add', 'drop', '--method',
                                'build_and_run_instance', '--count', '1')
        self.assertEqual(0, code)
        self.assertIn('api, cell1', out)
        self.wait_rules(SERVICES)
        self.assertEqual({'build_and_run_instance'},
                         {r['method'] for r in rpc_rules.rules()})
        code, out = self.manage('chaos', 'list', '--timeout', '1')
        self.assertEqual(0, code)
        self.assertIn('host1', out)
        self.assertIn('@send method=build_and_run_instance left=1', out)
        self.assertNotIn('no answer', out)
        # A rule that would drop everything does not keep clear out.
        self.manage('chaos', 'add', 'drop')
        self.wait_rules(2 * SERVICES)
        code, out = self.manage('chaos', 'clear')
        self.assertEqual(0, code)
        self.wait_rules(0)

    def test_release_lets_a_held_call_go(self):
        self.manage('chaos', 'add', 'hold', '--method', 'ping', '--count',
                    '1')
        self.wait_rules(SERVICES)
        answers = []
        api = baserpc.BaseAPI('compute', transport=self.cloud.computes[
            'host1'].transport)
        caller = threading.Thread(target=lambda: answers.append(api.ping(
            nl_context.get_admin_context(), 'x', server='host1',
            timeout=5)['arg']))
        caller.start()
        self.cloud.wait_held(method='ping')
        code, out = self.manage('chaos', 'release', '--method', 'ping')
        self.assertEqual(0, code)
        caller.join(5)
        self.assertEqual(['x'], answers)

    def test_invalid_rule_is_refused_before_sending(self):
        self.assertRaises(SystemExit, self.manage, 'chaos', 'add', 'melt')
        self.assertRaisesRegex(CommandError, 'count must be at least 1',
                               self.manage, 'chaos', 'add', 'drop',
                               '--count', '0')
        self.assertEqual([], rpc_rules.rules())

    def test_fault_heartbeats_listed_and_cleared(self):
        service = self.cloud.computes['host1']
        code, out = self.manage('chaos', 'fault', 'heartbeats', '--host',
                                'host1')
        self.assertEqual(0, code)
        deadline = time.monotonic() + 10
        while not service._heartbeats_stopped:
            self.assertLess(time.monotonic(), deadline, 'heartbeats go on')
            time.sleep(0.02)
        code, out = self.manage('chaos', 'list', '--json', '--timeout', '1')
        self.assertIn('"fault": "heartbeats"', out)
        code, out = self.manage('chaos', 'clear')
        self.assertEqual(0, code)
        deadline = time.monotonic() + 10
        while service._heartbeats_stopped:
            self.assertLess(time.monotonic(), deadline, 'still stopped')
            time.sleep(0.02)
        code, out = self.manage('chaos', 'list', '--json', '--timeout', '1')
        self.assertNotIn('"fault": "heartbeats"', out)

    def test_fault_database_listed_and_cleared(self):
        # Every service here shares the process, and so its engines: a
        # small delay and no errors, so the commands still work.
        code, out = self.manage('chaos', 'fault', 'database', '--host',
                                'host1', '--delay', '0.001')
        self.assertEqual(0, code)
        deadline = time.monotonic() + 10
        while db_faults.current() is None:
            self.assertLess(time.monotonic(), deadline, 'no database fault')
            time.sleep(0.02)
        self.assertEqual({'delay': 0.001, 'error_rate': 0.0},
                         db_faults.current())
        code, out = self.manage('chaos', 'list', '--timeout', '1')
        self.assertIn('database(delay=0.001 error_rate=0.0)', out)
        self.manage('chaos', 'clear')
        deadline = time.monotonic() + 10
        while db_faults.current() is not None:
            self.assertLess(time.monotonic(), deadline, 'still slow')
            time.sleep(0.02)

    def test_fault_database_needs_a_target_and_a_value(self):
        self.assertRaisesRegex(CommandError, 'give --host or --all',
                               self.manage, 'chaos', 'fault', 'database',
                               '--delay', '1')
        self.assertRaisesRegex(CommandError, 'needs a delay or an error',
                               self.manage, 'chaos', 'fault', 'database',
                               '--all')
        self.assertIsNone(db_faults.current())

    def test_fault_placement_listed_and_cleared(self):
        state = self.useFixture(fixtures.TempDir()).path
        code, out = self.manage('chaos', 'fault', 'placement', '--delay',
                                '0.5', '--error-rate', '0.25',
                                '--state-dir', state)
        self.assertEqual(0, code)
        self.assertEqual({'placement': {'delay': 0.5, 'jitter': 0.0,
                                        'error_rate': 0.25}},
                         lab_faults.read(state))
        code, out = self.manage('chaos', 'list', '--timeout', '1',
                                '--state-dir', state)
        self.assertIn('Lab fault: rest placement delay=0.5 jitter=0.0 '
                      'error_rate=0.25', out)
        code, out = self.manage('chaos', 'clear', '--state-dir', state)
        self.assertIn('REST faults removed: placement.', out)
        self.assertEqual({}, lab_faults.read(state))
        code, out = self.manage('chaos', 'list', '--json', '--timeout', '1',
                                '--state-dir', state)
        self.assertNotIn('"rest"', out)
        self.assertRaisesRegex(CommandError, 'error_rate is a fraction',
                               self.manage, 'chaos', 'fault', 'compute-api',
                               '--error-rate', '2', '--state-dir', state)
