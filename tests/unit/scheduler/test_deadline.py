"""The caller's deadline: the scheduler leaves no claim for an answer
nobody waits for (a claim made after the super conductor's call
timed out and it buried the instance in cell0)."""

import time
from unittest import mock

from nova_lite.clients import placement as placement_client
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.scheduler import deadline
from nova_lite.scheduler import rpcapi
from tests.unit.scheduler import fakes
from tests.unit.scheduler import test_manager


class ContextDeadlineTestCase(fakes.TestCase):

    def test_deadline_travels_with_the_context(self):
        ctxt = nl_context.get_admin_context()
        called = ctxt.with_reply_deadline(20)
        self.assertIsNone(ctxt.reply_deadline)
        self.assertAlmostEqual(time.time() + 20, called.reply_deadline,
                               delta=2)
        got = nl_context.RequestContext.from_dict(called.to_dict())
        self.assertEqual(called.reply_deadline, got.reply_deadline)
        self.assertEqual(ctxt.request_id, got.request_id)

    def test_no_deadline_no_key(self):
        ctxt = nl_context.get_admin_context()
        self.assertNotIn('reply_deadline', ctxt.to_dict())
        got = nl_context.RequestContext.from_dict(ctxt.to_dict())
        self.assertIsNone(got.reply_deadline)
        self.assertIsNone(deadline.remaining(got))

    def test_client_sends_its_timeout_as_deadline(self):
        api = rpcapi.SchedulerAPI.__new__(rpcapi.SchedulerAPI)
        api.client = mock.Mock()
        self.flags(rpc_response_timeout=17)
        ctxt = nl_context.get_admin_context()
        for timeout, expected in ((None, 17), (5, 5)):
            api.client.reset_mock()
            api.select_destinations(ctxt, 'spec', ['a'], timeout=timeout)
            api.client.prepare.assert_called_once_with(timeout=expected)
            sent = api.client.prepare.return_value.call.call_args[0][0]
            self.assertEqual(ctxt.request_id, sent.request_id)
            self.assertAlmostEqual(time.time() + expected,
                                   sent.reply_deadline, delta=2)


class ClientAsksAgainTestCase(fakes.TestCase):

    def _api(self, *outcomes):
        api = rpcapi.SchedulerAPI.__new__(rpcapi.SchedulerAPI)
        api.client = mock.Mock()
        api.client.prepare.return_value.call.side_effect = outcomes
        return api

    def test_past_deadline_answer_is_asked_again_once(self):
        late = exception.NoValidHost(reason='late', past_deadline=True)
        api = self._api(late, [['sel']])
        ctxt = nl_context.get_admin_context()
        self.assertEqual([['sel']],
                         api.select_destinations(ctxt, 'spec', ['a']))
        calls = api.client.prepare.return_value.call.call_args_list
        self.assertEqual(2, len(calls))
        # with a fresh deadline
        self.assertLessEqual(calls[0][0][0].reply_deadline,
                             calls[1][0][0].reply_deadline)
        api = self._api(late, late)
        self.assertRaises(exception.NoValidHost, api.select_destinations,
                          ctxt, 'spec', ['a'])

    def test_other_novalidhost_is_final(self):
        api = self._api(exception.NoValidHost(reason='full'), [['sel']])
        self.assertRaises(exception.NoValidHost, api.select_destinations,
                          nl_context.get_admin_context(), 'spec', ['a'])
        self.assertEqual(
            1, api.client.prepare.return_value.call.call_count)


class SchedulerDeadlineTestCase(fakes.TestCase):

    def setUp(self):
        super().setUp()
        objects.register_all()
        self.hosts = [fakes.fake_host('h%d' % i, free_ram_mb=8192)
                      for i in range(3)]
        self.placement = test_manager.FakePlacement(self.hosts)
        self.mgr = test_manager.manager.SchedulerManager(
            host='sched', placement=self.placement,
            host_manager=test_manager.FakeHostManager(self.hosts))
        self.ctxt = nl_context.get_admin_context()

    def _select(self, uuids=('i1',), **spec_kw):
        return self.mgr.schedule(self.ctxt, fakes.fake_spec(**spec_kw),
                                 list(uuids), True)

    def test_deadline_ahead_claims_as_usual(self):
        self.ctxt.reply_deadline = time.time() + 30
        (sels,) = self._select()
        self.assertEqual({'i1': self.hosts[0].uuid}, self.placement.claims)
        self.assertEqual(3, len(sels))

    def test_no_claim_once_the_caller_gave_up(self):
        # The database reads took longer than the caller's timeout.
        self.ctxt.reply_deadline = time.time() - 5
        put = mock.Mock()
        self.placement.put_allocations = put
        err = self.assertRaises(exception.NoValidHost, self._select)
        self.assertIn('stopped before claiming', str(err))
        self.assertIn('s ago', str(err))
        self.assertTrue(err.kwargs[deadline.PAST_DEADLINE])
        put.assert_not_called()
        self.assertEqual({}, self.placement.claims)

    def test_no_claim_within_the_reply_margin(self):
        self.ctxt.reply_deadline = time.time() + deadline.REPLY_MARGIN / 2
        self.assertRaises(exception.NoValidHost, self._select)
        self.assertEqual({}, self.placement.claims)

    def test_claims_released_when_the_deadline_passes_meanwhile(self):
        # Placement was slow: the claims were made, but the answer would
        # reach nobody (the caller has dropped the claims already).
        self.ctxt.reply_deadline = time.time() + 30
        real_put = self.placement.put_allocations
        puts = []

        def slow_put(consumer_uuid, *args, **kwargs):
            real_put(consumer_uuid, *args, **kwargs)
            puts.append(consumer_uuid)
            if len(puts) == 2:
                self.ctxt.reply_deadline = time.time()
        self.placement.put_allocations = slow_put
        err = self.assertRaises(exception.NoValidHost, self._select,
                                ('a', 'b'), num_instances=2)
        self.assertIn('stopped before answering', str(err))
        self.assertEqual(['a', 'b'], puts)
        self.assertEqual({}, self.placement.claims)
        self.assertEqual(['a', 'b'], sorted(self.placement.deleted))

    def test_claim_without_an_answer_is_released(self):
        # Placement's answer timed out: it may still have made the claim.
        real_put = self.placement.put_allocations

        def timed_out(consumer_uuid, *args, **kwargs):
            real_put(consumer_uuid, *args, **kwargs)
            raise placement_client.PlacementUnreachable('read timed out')
        self.placement.put_allocations = timed_out
        err = self.assertRaises(exception.NoValidHost, self._select)
        self.assertIn('Placement could not be used', str(err))
        self.assertEqual({}, self.placement.claims)
        self.assertEqual(['i1'], self.placement.deleted)
