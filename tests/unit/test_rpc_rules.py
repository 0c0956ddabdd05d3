"""RPC rules on a real fake:// bus: each action at send and at dispatch."""

import threading
import time

import oslo_messaging as messaging
import testtools

from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import rpc
from nova_lite import rpc_rules
from nova_lite import testing

UUID1 = '11111111-1111-1111-1111-111111111111'
UUID2 = '22222222-2222-2222-2222-222222222222'


class Endpoint:
    target = messaging.Target(version='1.0')

    def __init__(self):
        self.seen = []
        self.changed = threading.Condition()

    def echo(self, context, value, instance_uuid=None):
        with self.changed:
            self.seen.append(value)
            self.changed.notify_all()
        return value

    def wait_seen(self, count, timeout=5.0):
        deadline = time.monotonic() + timeout
        with self.changed:
            while len(self.seen) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError('seen %s' % self.seen)
                self.changed.wait(left)
        return list(self.seen)


class RulesTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())
        self.addCleanup(rpc_rules.clear, discard=True)
        transport = rpc.get_cell_transport('fake:///rules')
        self.endpoint = Endpoint()
        target = messaging.Target(topic='rules', server='host1')
        server = rpc.get_server(target, [self.endpoint], transport=transport)
        server.start()
        self.addCleanup(server.wait)
        self.addCleanup(server.stop)
        self.client = rpc.get_client(messaging.Target(topic='rules'),
                                     transport=transport).prepare(
                                         server='host1', timeout=5)
        self.ctxt = nl_context.get_admin_context()

    def cast(self, value, **kwargs):
        self.client.cast(self.ctxt, 'echo', value=value, **kwargs)

    def call(self, value, **kwargs):
        return self.client.call(self.ctxt, 'echo', value=value, **kwargs)

    def test_no_rule_is_an_empty_tuple(self):
        self.assertEqual((), rpc_rules.RULES)
        self.assertEqual('a', self.call('a'))

    def test_hold_cast_at_send_until_released(self):
        rpc_rules.add('hold', method='echo', bus='rules', count=1)
        self.cast('held')
        self.call('other')  # a later message overtakes the held one
        held = rpc_rules.wait_held(method='echo')
        self.assertEqual(('rules', 'rules', 'host1', 'cast'),
                         (held['bus'], held['topic'], held['server'],
                          held['kind']))
        self.assertEqual(['other'], self.endpoint.seen)
        self.assertEqual(1, rpc_rules.release(method='echo'))
        self.assertEqual(['other', 'held'], self.endpoint.wait_seen(2))
        self.assertEqual([], rpc_rules.held())

    def test_hold_call_blocks_the_caller(self):
        rpc_rules.add('hold', method='echo', count=1)
        answers = []
        caller = threading.Thread(target=lambda: answers.append(
            self.call('x')))
        caller.start()
        rpc_rules.wait_held(method='echo', kind='call')
        self.assertEqual([], answers)
        rpc_rules.release()
        caller.join(5)
        self.assertEqual(['x'], answers)

    def test_drop(self):
        rpc_rules.add('drop', method='echo')
        self.cast('lost')
        self.assertRaises(messaging.MessagingTimeout, self.call, 'lost')
        rpc_rules.clear()
        self.assertEqual('kept', self.call('kept'))
        self.assertEqual(['kept'], self.endpoint.seen)

    def test_duplicate_cast_is_handled_twice(self):
        rpc_rules.add('duplicate', method='echo', count=1)
        self.cast('twice')
        self.assertEqual(['twice', 'twice'], self.endpoint.wait_seen(2))
        self.assertEqual([], rpc_rules.rules())

    def test_fail_at_send(self):
        rpc_rules.add('fail', method='echo', count=1)
        self.assertRaises(messaging.MessagingTimeout, self.call, 'a')
        rpc_rules.add('fail', method='echo', error='remote', count=1)
        self.assertRaises(exception.InjectedRPCFault, self.call, 'b')
        rpc_rules.add('fail', method='echo', count=1)
        self.assertRaises(messaging.MessageDeliveryFailure, self.cast, 'c')
        self.assertEqual([], self.endpoint.seen)

    def test_delay_call(self):
        rpc_rules.add('delay', method='echo', seconds=0.2, count=1)
        started = time.monotonic()
        self.assertEqual('late', self.call('late'))
        self.assertGreaterEqual(time.monotonic() - started, 0.2)

    def test_count_and_window_expire(self):
        rpc_rules.add('drop', method='echo', count=2)
        self.cast('1')
        self.cast('2')
        self.assertEqual('3', self.call('3'))
        self.assertEqual([], rpc_rules.rules())
        rule = rpc_rules.add('drop', method='echo', window=0.1)
        self.cast('4')
        time.sleep(0.15)
        self.assertEqual('5', self.call('5'))
        self.assertEqual(['3', '5'], self.endpoint.seen)
        self.assertFalse(rpc_rules.remove(rule))

    def test_match_on_instance_and_server(self):
        rpc_rules.add('drop', instance=UUID1)
        rpc_rules.add('drop', server='host2')
        self.cast('a', instance_uuid=UUID1)
        self.assertEqual('b', self.call('b', instance_uuid=UUID2))
        self.assertEqual(['b'], self.endpoint.seen)
        self.assertEqual([UUID1], [r.get('instance')
                                   for r in rpc_rules.rules()][:1])

    def test_remove_and_list(self):
        rule = rpc_rules.add('hold', method='echo', topic='rules')
        [described] = rpc_rules.rules()
        self.assertEqual({'id': rule, 'action': 'hold', 'at': 'send',
                          'count': None, 'left': None, 'window': None,
                          'matched': 0, 'method': 'echo', 'topic': 'rules'},
                         described)
        self.assertTrue(rpc_rules.remove(rule))
        self.assertEqual((), rpc_rules.RULES)

    def test_hold_at_dispatch(self):
        rpc_rules.add('hold', at='dispatch', method='echo', count=1)
        self.cast('held')
        held = rpc_rules.wait_held(at='dispatch')
        self.assertEqual('cast', held['kind'])
        self.assertEqual([], self.endpoint.seen)
        rpc_rules.release(at='dispatch')
        self.assertEqual(['held'], self.endpoint.wait_seen(1))

    def test_fail_and_duplicate_at_dispatch(self):
        rpc_rules.add('fail', at='dispatch', method='echo', count=1)
        self.assertRaises(exception.InjectedRPCFault, self.call, 'a')
        rpc_rules.add('duplicate', at='dispatch', method='echo', count=1)
        self.assertEqual('b', self.call('b'))
        self.assertEqual(['b', 'b'], self.endpoint.seen)

    def test_clear_discards_held(self):
        rpc_rules.add('hold', method='echo')
        self.cast('never')
        rpc_rules.wait_held()
        self.assertEqual(1, rpc_rules.clear(discard=True))
        self.assertEqual('after', self.call('after'))
        self.assertEqual(['after'], self.endpoint.seen)

    def test_bad_rules(self):
        self.assertRaises(ValueError, rpc_rules.add, 'explode')
        self.assertRaises(ValueError, rpc_rules.add, 'hold', at='later')
        self.assertRaises(ValueError, rpc_rules.add, 'fail', error='x')
        self.assertRaises(ValueError, rpc_rules.add, 'drop', count=0)
        self.assertEqual((), rpc_rules.RULES)

    def test_wait_spent(self):
        rule = rpc_rules.add('drop', method='echo', count=2)
        self.cast('1')
        self.assertRaises(AssertionError, rpc_rules.wait_spent, rule,
                          timeout=0.1)
        self.cast('2')
        rpc_rules.wait_spent(rule, timeout=1)
        self.assertEqual([], rpc_rules.rules())

    def test_wait_held_times_out(self):
        self.assertRaises(AssertionError, rpc_rules.wait_held, timeout=0.1,
                          method='echo')
