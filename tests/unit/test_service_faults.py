"""Lab faults a service applies to itself, through its base RPC endpoint."""

import fixtures
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
import sqlalchemy
import testtools

from nova_lite import baserpc
from nova_lite import context as nl_context
from nova_lite.db import lab_faults as db_faults
from nova_lite import rpc_rules
from nova_lite import service_faults


class FakeService:
    host = 'compute1'
    binary = 'nova-lite-compute'

    def __init__(self):
        self.heartbeating = True

    def stop_heartbeats(self):
        self.heartbeating = False

    def resume_heartbeats(self):
        self.heartbeating = True


class TestServiceFaults(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.service = FakeService()
        self.endpoint = baserpc.BaseRPC(self.service)
        self.addCleanup(service_faults.clear, self.service)
        self.addCleanup(rpc_rules.clear)

    def test_fault_for_another_host_is_ignored(self):
        self.assertIsNone(self.endpoint.chaos_fault(
            None, {'fault': 'heartbeats', 'host': 'compute2'}))
        self.assertTrue(self.service.heartbeating)
        self.assertEqual([], self.endpoint.chaos_list(None)['faults'])

    def test_heartbeats_stopped_listed_and_cleared(self):
        self.endpoint.chaos_fault(None, {'fault': 'heartbeats',
                                         'host': 'compute1'})
        self.assertFalse(self.service.heartbeating)
        self.assertEqual([{'fault': 'heartbeats', 'host': 'compute1'}],
                         self.endpoint.chaos_list(None)['faults'])
        self.endpoint.chaos_clear(None)
        self.assertTrue(self.service.heartbeating)
        self.assertEqual([], self.endpoint.chaos_list(None)['faults'])

    def test_partition_is_two_local_rules_until_cleared(self):
        applied = self.endpoint.chaos_fault(
            None, {'fault': 'partition', 'host': 'compute1',
                   'seconds': 60})
        rules = {r['id']: r for r in rpc_rules.rules()}
        self.assertEqual(sorted(applied['rules']), sorted(rules))
        self.assertEqual({('fail', 'send'), ('delay', 'dispatch')},
                         {(r['action'], r['at']) for r in rules.values()})
        self.assertEqual({60}, {r['window'] for r in rules.values()})
        self.endpoint.chaos_clear(None)
        self.assertEqual([], rpc_rules.rules())
        self.assertEqual([], self.endpoint.chaos_list(None)['faults'])

    def test_unknown_fault_is_refused_not_raised(self):
        self.assertIsNone(self.endpoint.chaos_fault(
            None, {'fault': 'meteor', 'host': 'compute1'}))
        self.assertIsNone(self.endpoint.chaos_fault(
            None, {'fault': 'partition', 'host': 'compute1',
                   'seconds': -1}))
        self.assertEqual([], service_faults.active(self.service))

    def test_clear_by_another_service_leaves_this_ones_faults(self):
        # Functional tests run every service in one process.
        other = FakeService()
        other.host = 'conductor'
        self.endpoint.chaos_fault(None, {'fault': 'heartbeats',
                                         'host': 'compute1'})
        baserpc.BaseRPC(other).chaos_clear(None)
        self.assertFalse(self.service.heartbeating)
        self.endpoint.chaos_clear(None)
        self.assertTrue(self.service.heartbeating)

    def test_control_messages_are_never_matched(self):
        self.assertIn('chaos_fault', rpc_rules.CONTROL_METHODS)


class TestDatabaseFault(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.service = FakeService()
        self.endpoint = baserpc.BaseRPC(self.service)
        self.addCleanup(service_faults.clear, self.service)
        self.slept = []
        self.useFixture(fixtures.MockPatchObject(
            db_faults, 'sleep', self.slept.append))
        self.useFixture(fixtures.MockPatchObject(db_faults, 'rand',
                                                 lambda: 0.5))
        self.cm = enginefacade.transaction_context()
        self.cm.configure(connection='sqlite://')

    def _query(self):
        with self.cm.reader.using(nl_context.get_admin_context()) as s:
            return s.execute(sqlalchemy.text('SELECT 7')).scalar()

    def test_errors_raise_a_lost_connection_until_cleared(self):
        self.assertEqual(7, self._query())
        applied = self.endpoint.chaos_fault(None, {
            'fault': 'database', 'host': 'compute1', 'error_rate': 1.0})
        self.assertEqual({'fault': 'database', 'host': 'compute1',
                          'delay': 0.0, 'error_rate': 1.0}, applied)
        self.assertRaises(db_exc.DBConnectionError, self._query)
        self.assertEqual([applied],
                         self.endpoint.chaos_list(None)['faults'])
        self.endpoint.chaos_clear(None)
        self.assertEqual(7, self._query())
        self.assertEqual([], self.endpoint.chaos_list(None)['faults'])

    def test_delay_on_every_host_and_a_rate_below_the_draw(self):
        self.endpoint.chaos_fault(None, {
            'fault': 'database', 'host': service_faults.EVERY_HOST,
            'delay': 0.25, 'error_rate': 0.4})
        # The fake draw (0.5) is above the rate: delayed, not failed.
        self.assertEqual(7, self._query())
        # Each statement of the transaction waits.
        self.assertNotEqual([], self.slept)
        self.assertEqual({0.25}, set(self.slept))
        waited = len(self.slept)
        self.endpoint.chaos_clear(None)
        self.assertEqual(7, self._query())
        self.assertEqual(waited, len(self.slept))

    def test_other_host_and_bad_values_apply_nothing(self):
        self.assertIsNone(self.endpoint.chaos_fault(None, {
            'fault': 'database', 'host': 'compute2', 'error_rate': 1.0}))
        self.assertIsNone(self.endpoint.chaos_fault(None, {
            'fault': 'database', 'host': 'compute1', 'error_rate': 3}))
        self.assertEqual(7, self._query())
        self.assertIsNone(db_faults.current())
