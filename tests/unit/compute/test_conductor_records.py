"""The cell conductor's record methods for computes, on a SQLite cell DB.

Called on the manager directly (no bus): what a compute gets back over
RPC is what these return.
"""

import contextlib

import fixtures
from oslo_db import exception as db_exc
import oslo_messaging as messaging
from oslo_utils import uuidutils
from sqlalchemy import engine as sa_engine
from sqlalchemy import event
import testtools

from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite.conductor import manager as conductor_manager
from nova_lite import context as nl_context
from nova_lite.db import session
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import db_transaction
from nova_lite import testing

NODE_UUID = '0d6b3f5e-9c4a-4e1b-8f2d-7a6c5b4e3d21'


def unwrapped(method):
    """``method`` raising what the caller would get over RPC."""
    def call(*args, **kwargs):
        try:
            return method(*args, **kwargs)
        except messaging.ExpectedException as wrapped:
            raise wrapped.exc_info[1]
    return call


@contextlib.contextmanager
def counted_transactions():
    """A list that gets one item per database transaction begun inside."""
    begun = []

    def on_begin(conn):
        begun.append(conn)
    event.listen(sa_engine.Engine, 'begin', on_begin)
    try:
        yield begun
    finally:
        event.remove(sa_engine.Engine, 'begin', on_begin)


@contextlib.contextmanager
def counted_statements():
    """A list that gets the first word of each statement run inside."""
    run = []

    def on_execute(conn, cursor, statement, *args):
        run.append(statement.split(None, 1)[0].upper())
    event.listen(sa_engine.Engine, 'before_cursor_execute', on_execute)
    try:
        yield run
    finally:
        event.remove(sa_engine.Engine, 'before_cursor_execute', on_execute)


class ConductorRecordsTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())
        self.useFixture(testing.DatabaseFixture(with_cell0=False, api=False))
        self.ctxt = nl_context.get_admin_context()
        self.conductor = conductor_manager.ConductorManager(host='cond')

    def _node(self, **values):
        values.setdefault('uuid', NODE_UUID)
        values.setdefault('vcpus', 8)
        return self.conductor.compute_node_get_or_create(
            self.ctxt, 'h1', 'n1', values)

    def test_get_or_create_then_update_in_place(self):
        first = self._node()
        again = self._node(vcpus=16)
        self.assertEqual((first.id, NODE_UUID, 16),
                         (again.id, again.uuid, again.vcpus))
        nodes = self.conductor.compute_node_get_all_by_host(self.ctxt, 'h1')
        self.assertEqual([first.id], [n.id for n in nodes])

    def test_deleted_node_is_restored_with_its_row(self):
        first = self._node()
        self.conductor.compute_node_delete(self.ctxt, first.id)
        self.assertEqual([], self.conductor.compute_node_get_all_by_host(
            self.ctxt, 'h1'))
        deleted = self.conductor.compute_node_get_all_by_host(
            self.ctxt, 'h1', include_deleted=True)
        self.assertTrue(deleted[0].deleted)
        back = self._node()
        self.assertEqual((first.id, False), (back.id, back.deleted))

    def test_save_many_creates_updates_and_restores_in_one_call(self):
        kept = self._node()
        gone = self.conductor.compute_node_get_or_create(
            self.ctxt, 'h1', 'n2', {'uuid': NODE_UUID[:-2] + '22',
                                    'vcpus': 8})
        self.conductor.compute_node_delete(self.ctxt, gone.id)
        nodes = {'n1': {'uuid': NODE_UUID, 'vcpus': 32},
                 'n2': {'uuid': gone.uuid, 'vcpus': 4},
                 'n3': {'uuid': NODE_UUID[:-2] + '33', 'vcpus': 2,
                        'stats': {'supported_instances': '[]'}}}
        saved = self.conductor.compute_nodes_save(self.ctxt, 'h1', nodes)
        self.assertEqual(['n1', 'n2', 'n3'],
                         [n.hypervisor_hostname for n in saved])
        self.assertEqual((kept.id, 32), (saved[0].id, saved[0].vcpus))
        self.assertEqual((gone.id, False, 4),
                         (saved[1].id, saved[1].deleted, saved[1].vcpus))
        self.assertEqual((nodes['n3']['uuid'], 'h1', {
            'supported_instances': '[]'}),
            (saved[2].uuid, saved[2].host, saved[2].stats))
        live = self.conductor.compute_node_get_all_by_host(self.ctxt, 'h1')
        self.assertEqual({(n.hypervisor_hostname, n.vcpus) for n in saved},
                         {(n.hypervisor_hostname, n.vcpus) for n in live})

    def test_save_many_writes_nothing_on_a_bad_value(self):
        self._node()
        save = unwrapped(self.conductor.compute_nodes_save)
        self.assertRaises(ValueError, save, self.ctxt, 'h1', {
            'n1': {'uuid': NODE_UUID, 'vcpus': 64},
            'n2': {'uuid': NODE_UUID[:-2] + '22', 'vcpus': 'many'}})
        nodes = self.conductor.compute_node_get_all_by_host(self.ctxt, 'h1')
        self.assertEqual([('n1', 8)],
                         [(n.hypervisor_hostname, n.vcpus) for n in nodes])

    def test_build_result_counts_and_resets(self):
        node = self._node()
        for expected in (1, 2):
            count = self.conductor.compute_node_build_result(
                self.ctxt, node.id, False)
            self.assertEqual(expected, count)
        self.assertEqual(0, self.conductor.compute_node_build_result(
            self.ctxt, node.id, True))

    def _instance(self):
        instance = objects.Instance(self.ctxt, host='h1',
                                    vm_state=vm_states.ACTIVE,
                                    task_state=task_states.POWERING_OFF,
                                    flavor={'vcpus': 1})
        instance.create()
        return instance

    def test_instance_update_expects_the_task_state(self):
        instance = self._instance()
        self.assertRaises(
            exception.UnexpectedTaskStateError,
            unwrapped(self.conductor.instance_update), self.ctxt,
            instance.uuid,
            {'task_state': None}, expected_task_state=[task_states.SPAWNING])
        updated = self.conductor.instance_update(
            self.ctxt, instance.uuid,
            {'vm_state': vm_states.STOPPED, 'task_state': None},
            expected_task_state=[task_states.POWERING_OFF])
        self.assertEqual((vm_states.STOPPED, None, {'vcpus': 1}),
                         (updated.vm_state, updated.task_state,
                          updated.flavor))
        found = self.conductor.instance_get_all_by_filters(
            self.ctxt, {'host': 'h1', 'vm_state': vm_states.STOPPED})
        self.assertEqual([instance.uuid], [i.uuid for i in found])

    def test_instance_update_is_one_transaction_returning_the_row(self):
        instance = self._instance()
        with counted_transactions() as begun:
            updated = self.conductor.instance_update(
                self.ctxt, instance.uuid, {'task_state': None},
                expected_task_state=[task_states.POWERING_OFF])
        self.assertEqual(1, len(begun))
        self.assertEqual((instance.id, 'h1', vm_states.ACTIVE, None,
                          {'vcpus': 1}),
                         (updated.id, updated.host, updated.vm_state,
                          updated.task_state, updated.flavor))
        self.assertEqual({}, updated.obj_get_changes())

    def test_instance_update_of_a_missing_instance(self):
        self.assertRaises(
            exception.InstanceNotFound,
            unwrapped(self.conductor.instance_update), self.ctxt,
            '5a0e3a44-0000-4000-8000-000000000001', {'task_state': None})

    def test_instance_update_without_values_returns_the_instance(self):
        instance = self._instance()
        same = self.conductor.instance_update(self.ctxt, instance.uuid, {})
        self.assertEqual((instance.id, task_states.POWERING_OFF),
                         (same.id, same.task_state))

    def test_compute_node_update_is_one_transaction_returning_the_row(self):
        node = self._node()
        with counted_transactions() as begun:
            updated = self.conductor.compute_node_update(
                self.ctxt, node.id, {'vcpus': 12, 'stats': {'a': '1'}})
        self.assertEqual(1, len(begun))
        self.assertEqual((node.id, NODE_UUID, 12, {'a': '1'}, 'n1'),
                         (updated.id, updated.uuid, updated.vcpus,
                          updated.stats, updated.hypervisor_hostname))
        self.assertEqual(12, self._node(vcpus=12).vcpus)

    def test_compute_node_update_of_a_missing_or_deleted_node(self):
        node = self._node()
        self.conductor.compute_node_delete(self.ctxt, node.id)
        self.assertRaises(
            exception.ComputeNodeNotFound,
            unwrapped(self.conductor.compute_node_update), self.ctxt,
            node.id, {'vcpus': 2})

    def test_compute_node_update_without_values_returns_the_node(self):
        node = self._node()
        same = self.conductor.compute_node_update(self.ctxt, node.id, {})
        self.assertEqual((node.id, NODE_UUID, 8),
                         (same.id, same.uuid, same.vcpus))

    def test_action_event_and_fault(self):
        instance = self._instance()
        self.conductor.action_start(self.ctxt, instance.uuid, 'stop')
        self.conductor.action_event_start(self.ctxt, instance.uuid,
                                          'compute_stop_instance', host='h1')
        self.conductor.action_event_finish(
            self.ctxt, instance.uuid, 'compute_stop_instance',
            result='Error', traceback='tb')
        action = objects.InstanceAction.get_by_request_id(
            self.ctxt, instance.uuid, self.ctxt.request_id)
        self.assertEqual('Error', action.message)
        self.conductor.instance_fault_create(
            self.ctxt, {'instance_uuid': instance.uuid, 'code': 500,
                        'message': 'boom', 'host': 'h1'})
        fault = objects.InstanceFault.get_latest_for_instance(
            self.ctxt, instance.uuid)
        self.assertEqual(('boom', 500), (fault.message, fault.code))

    def test_instance_destroy(self):
        instance = self._instance()
        self.conductor.instance_destroy(self.ctxt, instance.uuid)
        self.assertRaises(exception.InstanceNotFound,
                          unwrapped(self.conductor.instance_get_by_uuid),
                          self.ctxt,
                          instance.uuid)

    def test_instance_destroy_writes_the_last_state_in_its_transaction(self):
        instance = self._instance()
        with counted_transactions() as begun, counted_statements() as run:
            destroyed = self.conductor.instance_destroy(
                self.ctxt, instance.uuid,
                values={'vm_state': vm_states.DELETED, 'task_state': None})
        # 1.5: the values and the soft delete in one transaction (2
        # before: a read, then the delete, and the update a call apart),
        # one read and one UPDATE (were two of each).
        self.assertEqual(1, len(begun))
        self.assertEqual(['SELECT', 'UPDATE'],
                         [w for w in run if w in ('SELECT', 'UPDATE')])
        self.assertEqual((vm_states.DELETED, None, True),
                         (destroyed.vm_state, destroyed.task_state,
                          destroyed.deleted))
        deleted = objects.Instance.get_by_uuid(
            nl_context.get_admin_context(read_deleted='yes'), instance.uuid)
        self.assertEqual((vm_states.DELETED, None),
                         (deleted.vm_state, deleted.task_state))

    def test_instance_destroy_of_a_deleted_instance_writes_nothing(self):
        instance = self._instance()
        self.conductor.instance_destroy(self.ctxt, instance.uuid)
        self.assertRaises(exception.InstanceNotFound,
                          unwrapped(self.conductor.instance_destroy),
                          self.ctxt, instance.uuid,
                          values={'vm_state': vm_states.DELETED})
        deleted = objects.Instance.get_by_uuid(
            nl_context.get_admin_context(read_deleted='yes'), instance.uuid)
        self.assertEqual(vm_states.ACTIVE, deleted.vm_state)

    # -- 1.6: a terminate in two calls -------------------------------------

    def _events(self, instance_uuid):
        action = objects.InstanceAction.get_by_request_id(
            self.ctxt, instance_uuid, self.ctxt.request_id)
        return [(e.event, e.host, e.result) for e in
                objects.InstanceActionEventList.get_by_action(self.ctxt,
                                                              action.id)]

    def test_terminate_start_reads_starts_and_lists_in_one_transaction(self):
        instance = self._instance()
        self.conductor.action_start(self.ctxt, instance.uuid, 'delete')
        for status in ('migrating', 'confirmed', 'error'):
            self.conductor.migration_create(self.ctxt, {
                'instance_uuid': instance.uuid, 'status': status})
        with counted_transactions() as begun:
            current, migrations = self.conductor.terminate_start(
                self.ctxt, instance.uuid, 'compute_terminate_instance', 'h1')
        self.assertEqual(1, len(begun))
        self.assertEqual((instance.uuid, 'h1'), (current.uuid, current.host))
        # Only what the terminate ends travels back.
        self.assertEqual(['migrating'], [m.status for m in migrations])
        self.assertEqual([('compute_terminate_instance', 'h1', None)],
                         self._events(instance.uuid))

    def test_terminate_start_without_an_action_still_reads(self):
        instance = self._instance()
        current, migrations = self.conductor.terminate_start(
            self.ctxt, instance.uuid, 'compute_terminate_instance', 'h1')
        self.assertEqual((instance.uuid, []), (current.uuid, migrations))

    def test_terminate_start_of_a_deleted_instance(self):
        instance = self._instance()
        self.conductor.instance_destroy(self.ctxt, instance.uuid)
        self.assertRaises(exception.InstanceNotFound,
                          unwrapped(self.conductor.terminate_start),
                          self.ctxt, instance.uuid, 'e', 'h1')

    def test_terminate_finish_deletes_and_finishes_in_one_transaction(self):
        instance = self._instance()
        self.conductor.action_start(self.ctxt, instance.uuid, 'delete')
        self.conductor.terminate_start(self.ctxt, instance.uuid,
                                       'compute_terminate_instance', 'h1')
        with counted_transactions() as begun:
            self.assertIsNone(self.conductor.terminate_finish(
                self.ctxt, instance.uuid,
                {'vm_state': vm_states.DELETED, 'task_state': None},
                'compute_terminate_instance'))
        self.assertEqual(1, len(begun))
        deleted = objects.Instance.get_by_uuid(
            nl_context.get_admin_context(read_deleted='yes'), instance.uuid)
        self.assertEqual((vm_states.DELETED, None, True),
                         (deleted.vm_state, deleted.task_state,
                          deleted.deleted))
        self.assertEqual([('compute_terminate_instance', 'h1', 'Success')],
                         self._events(instance.uuid))

    def test_terminate_finish_without_a_started_event_still_deletes(self):
        instance = self._instance()
        self.conductor.terminate_finish(self.ctxt, instance.uuid,
                                        {'vm_state': vm_states.DELETED},
                                        'compute_terminate_instance')
        self.assertRaises(exception.InstanceNotFound,
                          unwrapped(self.conductor.instance_get_by_uuid),
                          self.ctxt, instance.uuid)

    def test_terminate_finish_of_a_deleted_instance_finishes_nothing(self):
        instance = self._instance()
        self.conductor.action_start(self.ctxt, instance.uuid, 'delete')
        self.conductor.terminate_start(self.ctxt, instance.uuid, 'e', 'h1')
        self.conductor.instance_destroy(self.ctxt, instance.uuid)
        self.assertRaises(exception.InstanceNotFound,
                          unwrapped(self.conductor.terminate_finish),
                          self.ctxt, instance.uuid,
                          {'vm_state': vm_states.DELETED}, 'e')
        # The compute's bracket then finishes it as an error.
        self.assertEqual([('e', 'h1', None)], self._events(instance.uuid))

    def test_terminate_finish_writes_the_node_usage_after(self):
        node = self._node(vcpus_used=1)
        instance = self._instance()
        with counted_transactions() as begun:
            written = self.conductor.terminate_finish(
                self.ctxt, instance.uuid, {'vm_state': vm_states.DELETED},
                'e', node={'id': node.id, 'values': {'vcpus_used': 0}})
        self.assertEqual(2, len(begun))
        self.assertEqual((node.id, 0), (written.id, written.vcpus_used))
        self.assertEqual(0, self._node().vcpus_used)

    def _building(self):
        instance = objects.Instance(self.ctxt, host='h1',
                                    vm_state=vm_states.BUILDING,
                                    task_state=task_states.SPAWNING)
        instance.create()
        self.conductor.action_start(self.ctxt, instance.uuid, 'create')
        self.conductor.action_event_start(self.ctxt, instance.uuid,
                                          'build', host='h1')
        return instance

    def test_build_finish_writes_and_finishes_in_one_transaction(self):
        node = self._node()
        instance = self._building()
        with counted_transactions() as begun:
            written = self.conductor.build_finish(
                self.ctxt, instance.uuid,
                {'vm_state': vm_states.ACTIVE, 'task_state': None},
                [task_states.SPAWNING], 'build',
                node={'id': node.id, 'values': {'vcpus_used': 2}})
        # the instance and its event, then the node
        self.assertEqual(2, len(begun))
        self.assertEqual(2, written.vcpus_used)
        active = objects.Instance.get_by_uuid(self.ctxt, instance.uuid)
        self.assertEqual((vm_states.ACTIVE, None),
                         (active.vm_state, active.task_state))
        self.assertEqual([('build', 'h1', 'Success')],
                         self._events(instance.uuid))
        self.assertIsNone(self.conductor.build_finish(
            self.ctxt, self._building().uuid, {'vm_state': vm_states.ACTIVE},
            [task_states.SPAWNING], 'build'))

    def _scheduled(self):
        instance = objects.Instance(self.ctxt, vm_state=vm_states.BUILDING,
                                    task_state=task_states.SCHEDULING)
        instance.create()
        self.conductor.action_start(self.ctxt, instance.uuid, 'create')
        return instance

    def test_build_start_writes_and_starts_in_one_transaction(self):
        instance = self._scheduled()
        with counted_transactions() as begun:
            written = self.conductor.build_start(
                self.ctxt, instance.uuid,
                {'task_state': task_states.SPAWNING, 'host': 'h1'},
                [task_states.SCHEDULING, None], [vm_states.BUILDING],
                'build', 'h1')
        self.assertEqual(1, len(begun))
        self.assertEqual((task_states.SPAWNING, 'h1'),
                         (written.task_state, written.host))
        stored = objects.Instance.get_by_uuid(self.ctxt, instance.uuid)
        self.assertEqual(task_states.SPAWNING, stored.task_state)
        self.assertEqual([('build', 'h1', None)], self._events(instance.uuid))

    def test_build_start_of_a_changed_instance_starts_the_event(self):
        instance = self._scheduled()
        self.conductor.instance_update(self.ctxt, instance.uuid,
                                       {'vm_state': vm_states.ERROR,
                                        'task_state': None})
        self.assertRaises(
            exception.UnexpectedVMStateError,
            unwrapped(self.conductor.build_start), self.ctxt, instance.uuid,
            {'task_state': task_states.SPAWNING, 'host': 'h1'},
            [task_states.SCHEDULING, None], [vm_states.BUILDING], 'build',
            'h1')
        stored = objects.Instance.get_by_uuid(self.ctxt, instance.uuid)
        self.assertEqual((vm_states.ERROR, None),
                         (stored.vm_state, stored.host))
        self.assertEqual([('build', 'h1', None)], self._events(instance.uuid))

    def test_build_start_of_a_missing_instance(self):
        self.assertRaises(
            exception.InstanceNotFound,
            unwrapped(self.conductor.build_start), self.ctxt,
            uuidutils.generate_uuid(), {'task_state': task_states.SPAWNING},
            [task_states.SCHEDULING, None], [vm_states.BUILDING], 'build',
            'h1')

    def test_build_finish_of_a_changed_instance_writes_nothing(self):
        node = self._node()
        instance = self._building()
        self.conductor.instance_update(self.ctxt, instance.uuid,
                                       {'task_state': task_states.DELETING})
        self.assertRaises(
            exception.UnexpectedTaskStateError,
            unwrapped(self.conductor.build_finish), self.ctxt, instance.uuid,
            {'vm_state': vm_states.ACTIVE, 'task_state': None},
            [task_states.SPAWNING], 'build',
            node={'id': node.id, 'values': {'vcpus_used': 2}})
        self.assertEqual([('build', 'h1', None)], self._events(instance.uuid))
        self.assertEqual(0, self._node().vcpus_used)

    def test_a_node_usage_not_written_leaves_the_instance_write(self):
        node = self._node()
        self.conductor.compute_node_delete(self.ctxt, node.id)
        instance = self._building()
        self.assertIsNone(self.conductor.build_finish(
            self.ctxt, instance.uuid, {'vm_state': vm_states.ACTIVE},
            [task_states.SPAWNING], 'build',
            node={'id': node.id, 'values': {'vcpus_used': 2}}))
        self.assertEqual(vm_states.ACTIVE, objects.Instance.get_by_uuid(
            self.ctxt, instance.uuid).vm_state)


class BuildWritesAfterLostCommitTestCase(testtools.TestCase):
    """A build write whose COMMIT went through but whose answer was lost
    (a Galera node or the proxy in front going away): the retry finds
    its expected task state gone, because its own write changed it; the
    build must go on, not fail a write that was made."""

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())
        self.useFixture(testing.DatabaseFixture(with_cell0=False, api=False))
        self.useFixture(fixtures.MockPatchObject(
            session, 'FIRST_RETRY_INTERVAL', 0.001))
        self.ctxt = nl_context.get_admin_context()
        self.conductor = conductor_manager.ConductorManager(host='cond')
        self.instance = objects.Instance(
            self.ctxt, vm_state=vm_states.BUILDING,
            task_state=task_states.SCHEDULING)
        self.instance.create()
        self.conductor.action_start(self.ctxt, self.instance.uuid, 'create')

    def _answer_lost_after_first_commit(self, fail=None):
        real = db_transaction.cell_writing
        calls = []

        @contextlib.contextmanager
        def cell_writing(cctxt):
            calls.append(1)
            with real(cctxt) as writer:
                yield writer
            if len(calls) == 1:
                raise fail or db_exc.DBConnectionError('Lost connection')
        self.useFixture(fixtures.MockPatchObject(
            db_transaction, 'cell_writing', cell_writing))
        return calls

    def _start(self):
        return unwrapped(self.conductor.build_start)(
            self.ctxt, self.instance.uuid,
            {'task_state': task_states.SPAWNING, 'host': 'h1'},
            [task_states.SCHEDULING, None], [vm_states.BUILDING], 'build',
            'h1')

    def _finish(self):
        return unwrapped(self.conductor.build_finish)(
            self.ctxt, self.instance.uuid,
            {'vm_state': vm_states.ACTIVE, 'task_state': None},
            [task_states.SPAWNING], 'build')

    def test_build_start_goes_on(self):
        calls = self._answer_lost_after_first_commit()
        written = self._start()
        self.assertEqual(2, len(calls))
        self.assertEqual((task_states.SPAWNING, 'h1'),
                         (written.task_state, written.host))

    def test_build_finish_goes_on(self):
        self._start()
        calls = self._answer_lost_after_first_commit()
        self._finish()
        self.assertEqual(2, len(calls))
        stored = objects.Instance.get_by_uuid(self.ctxt, self.instance.uuid)
        self.assertEqual((vm_states.ACTIVE, None),
                         (stored.vm_state, stored.task_state))

    def test_a_refusal_after_a_deadlock_stands(self):
        # A deadlock rolled its transaction back: the state found is not
        # its own write's.
        self._start()
        self._answer_lost_after_first_commit(
            fail=db_exc.DBDeadlock('Deadlock found'))
        self.assertRaises(exception.UnexpectedTaskStateError, self._finish)

    def test_another_state_after_a_lost_connection_stands(self):
        # The first attempt lost its connection before its COMMIT, and
        # another write (a delete) changed the task state meanwhile: the
        # retry's refusal stands.
        self._start()
        real = db_transaction.cell_writing
        calls = []

        @contextlib.contextmanager
        def cell_writing(cctxt):
            calls.append(1)
            if len(calls) == 1:
                with fixtures.MockPatchObject(db_transaction,
                                              'cell_writing', real):
                    self.conductor.instance_update(
                        self.ctxt, self.instance.uuid,
                        {'task_state': task_states.DELETING})
                raise db_exc.DBConnectionError('Lost connection')
            with real(cctxt) as writer:
                yield writer
        self.useFixture(fixtures.MockPatchObject(
            db_transaction, 'cell_writing', cell_writing))
        self.assertRaises(exception.UnexpectedTaskStateError, self._finish)
        self.assertEqual(2, len(calls))
