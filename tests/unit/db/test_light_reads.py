"""Reads on the hot paths that need one or a few columns read only them:
the action of an event's start or finish (its id), a compute's liveness
before each cast to it (three columns of its service)."""

import datetime

import sqlalchemy as sa
from sqlalchemy import event

from nova_lite.db.cell import api as cell_api
from nova_lite.db.cell import instance_api as api
from nova_lite import exception
from nova_lite import servicegroup
from tests.unit.db import test_cell_api


class LightReadsTest(test_cell_api.CellDBTestCase):

    def setUp(self):
        super().setUp()
        self.selects = []

        def record(conn, cursor, statement, params, context, many):
            if statement.lstrip().upper().startswith('SELECT'):
                self.selects.append(' '.join(statement.split()))
        event.listen(sa.engine.Engine, 'before_cursor_execute', record)
        self.addCleanup(event.remove, sa.engine.Engine,
                        'before_cursor_execute', record)

    def selected(self, table):
        """The column lists of the SELECTs from ``table``."""
        return [s.split(' FROM ')[0][len('SELECT '):]
                for s in self.selects if ' FROM %s ' % table in s + ' ']

    def test_an_event_reads_only_its_action_id(self):
        api.action_start(self.ctx, {'action': 'delete',
                                    'instance_uuid': 'i1'})
        del self.selects[:]
        api.action_event_start(self.ctx, 'i1', 'compute_terminate_instance',
                               host='h1')
        api.action_event_finish(self.ctx, 'i1', 'compute_terminate_instance')
        self.assertEqual(['instance_actions.id'] * 2,
                         self.selected('instance_actions'))
        action = api.action_get_by_request_id(self.ctx, 'i1',
                                              self.ctx.request_id)
        (row,) = api.action_events_get(self.ctx, action.id)
        self.assertEqual(('Success', 'h1'), (row.result, row.host))
        self.assertIsNotNone(row.finish_time)
        self.assertIsNone(action.message)

    def test_an_error_event_still_marks_its_action(self):
        api.action_start(self.ctx, {'action': 'delete',
                                    'instance_uuid': 'i1'})
        api.action_event_start(self.ctx, 'i1', 'compute_terminate_instance')
        api.action_event_finish(self.ctx, 'i1', 'compute_terminate_instance',
                                result='Error', traceback='boom')
        action = api.action_get_by_request_id(self.ctx, 'i1',
                                              self.ctx.request_id)
        self.assertEqual('Error', action.message)
        self.assertIsNotNone(action.updated_at)
        self.assertRaises(exception.InstanceActionNotFound,
                          api.action_event_start, self.ctx, 'i2', 'x')

    def test_a_compute_liveness_reads_three_columns(self):
        service = cell_api.service_create(self.ctx, {
            'host': 'h1', 'binary': servicegroup.COMPUTE_BINARY,
            'topic': 'compute'})
        del self.selects[:]
        self.assertTrue(servicegroup.compute_is_up(self.ctx, 'h1'))
        self.assertEqual(['services.forced_down, services.last_seen_up, '
                          'services.created_at'], self.selected('services'))
        cell_api.service_update(self.ctx, service.id, {
            'last_seen_up': datetime.datetime(2020, 1, 1)})
        self.assertFalse(servicegroup.compute_is_up(self.ctx, 'h1'))
        self.assertFalse(servicegroup.compute_is_up(self.ctx, 'h2'))
