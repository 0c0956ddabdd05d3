"""Writes on a delete's path whose caller has no use for the row: they
read nothing back. The API's ``deleting`` (the compute reads the
instance again when its terminate starts), the terminate's soft delete
with its last state, and the finish of its event."""

import sqlalchemy as sa
from sqlalchemy import event

from nova_lite.conductor import manager as conductor_manager
from nova_lite import context as nl_context
from nova_lite.db.cell import instance_api as api
from nova_lite import exception
from nova_lite import objects
from tests.unit.db import test_cell_api

EVENT = 'compute_terminate_instance'
LAST_STATE = {'vm_state': 'deleted', 'task_state': None, 'power_state': 0,
              'terminated_at': '2026-01-02T03:04:05Z'}


class BlindWritesTest(test_cell_api.CellDBTestCase):

    def setUp(self):
        super().setUp()
        objects.register_all()
        self.statements = []

        def record(conn, cursor, statement, params, context, many):
            self.statements.append(' '.join(statement.split()))
        event.listen(sa.engine.Engine, 'before_cursor_execute', record)
        self.addCleanup(event.remove, sa.engine.Engine,
                        'before_cursor_execute', record)
        self.instance = api.instance_create(self.ctx, {
            'project_id': 'p1', 'user_id': 'u1', 'host': 'h1', 'node': 'n1',
            'vm_state': 'active', 'task_state': None})
        api.action_start(self.ctx, {'action': 'delete',
                                    'instance_uuid': self.instance.uuid})
        del self.statements[:]

    def verbs(self):
        """Each statement's verb and table (BEGIN and the like left out)."""
        found = []
        for text in self.statements:
            words = text.split()
            if words[0] == 'SELECT':
                found.append('SELECT ' + words[words.index('FROM') + 1])
            elif words[0] in ('UPDATE', 'INSERT', 'DELETE'):
                found.append('%s %s' % (words[0], words[1] if words[0] ==
                                        'UPDATE' else words[2]))
        return found

    def row(self):
        ctx = nl_context.get_admin_context(read_deleted='yes')
        ctx.db_connection = self.ctx.db_connection
        return api.instance_get_by_uuid(ctx, self.instance.uuid)

    def test_deleting_is_one_update(self):
        instance = objects.Instance.get_by_uuid(self.ctx, self.instance.uuid)
        del self.statements[:]
        instance.set_task_state('deleting')
        self.assertEqual(['UPDATE instances'], self.verbs())
        self.assertEqual('deleting', instance.task_state)
        self.assertFalse(instance.obj_what_changed())
        row = self.row()
        self.assertEqual(('deleting', 'active'),
                         (row.task_state, row.vm_state))
        self.assertIsNotNone(row.updated_at)

    def test_deleting_a_deleted_instance_is_not_found(self):
        instance = objects.Instance.get_by_uuid(self.ctx, self.instance.uuid)
        api.instance_destroy(self.ctx, self.instance.uuid)
        self.assertRaises(exception.InstanceNotFound,
                          instance.set_task_state, 'deleting')
        self.assertRaises(exception.InstanceNotFound,
                          api.instance_task_state_set, self.ctx, 'nope',
                          'deleting')

    def test_a_terminate_finish_reads_no_instance_nor_event_row(self):
        api.action_event_start(self.ctx, self.instance.uuid, EVENT,
                               host='h1')
        del self.statements[:]
        conductor_manager._destroy_instance(
            self.ctx, self.instance.uuid, LAST_STATE, event=EVENT,
            read_back=False)
        self.assertEqual(['UPDATE instances', 'SELECT instance_actions',
                          'SELECT instance_actions_events',
                          'UPDATE instance_actions_events'], self.verbs())
        self.assertEqual(['instance_actions_events.id'], [
            text.split(' FROM ')[0][len('SELECT '):]
            for text in self.statements
            if text.startswith('SELECT') and
            ' FROM instance_actions_events ' in text])
        row = self.row()
        self.assertEqual((row.id, 'deleted', None, 0),
                         (row.deleted, row.vm_state, row.task_state,
                          row.power_state))
        self.assertIsNotNone(row.deleted_at)
        self.assertEqual(2026, row.terminated_at.year)
        action = api.action_get_by_request_id(self.ctx, self.instance.uuid,
                                              self.ctx.request_id)
        (finished,) = api.action_events_get(self.ctx, action.id)
        self.assertEqual(('Success', 'h1'), (finished.result, finished.host))
        self.assertIsNotNone(finished.finish_time)
        # Deleted: a second soft delete finds nothing, and writes nothing.
        self.assertRaises(exception.InstanceNotFound, api.instance_destroy,
                          self.ctx, self.instance.uuid, read_back=False)
        self.assertEqual(row.id, self.row().deleted)

    def test_a_terminate_start_writes_its_event_without_a_row_object(self):
        self.assertIsNone(objects.InstanceActionEvent.event_start(
            self.ctx, self.instance.uuid, EVENT, host='h1',
            read_back=False))
        self.assertEqual(['SELECT instance_actions',
                          'INSERT instance_actions_events'], self.verbs())
        action = api.action_get_by_request_id(self.ctx, self.instance.uuid,
                                              self.ctx.request_id)
        (started,) = api.action_events_get(self.ctx, action.id)
        self.assertEqual((EVENT, 'h1', None),
                         (started.event, started.host, started.finish_time))
        self.assertIsNotNone(started.start_time)
        self.assertIsNotNone(started.created_at)

    def test_an_error_finish_read_nothing_back_still_marks_the_action(self):
        api.action_event_start(self.ctx, self.instance.uuid, EVENT)
        self.assertIsNone(objects.InstanceActionEvent.event_finish(
            self.ctx, self.instance.uuid, EVENT, result='Error',
            traceback='boom', read_back=False))
        action = api.action_get_by_request_id(self.ctx, self.instance.uuid,
                                              self.ctx.request_id)
        (finished,) = api.action_events_get(self.ctx, action.id)
        self.assertEqual(('Error', 'boom'),
                         (finished.result, finished.traceback))
        self.assertEqual('Error', action.message)
        self.assertRaises(exception.InstanceActionEventNotFound,
                          api.action_event_finish, self.ctx,
                          self.instance.uuid, 'other', read_back=False)
