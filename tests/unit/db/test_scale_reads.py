"""Reads that must not grow with the number of servers: what a boot's
quota check, a list page and the periodic tasks load from a cell database
stays bounded by the answer, not by every instance of the cell."""

import sqlite3

import sqlalchemy as sa
from sqlalchemy import event

from nova_lite.db.cell import instance_api as api
from nova_lite.db.cell import models
from nova_lite.objects import instance as instance_obj
from tests.unit.db import test_cell_api


class ScaleReadsTest(test_cell_api.CellDBTestCase):

    def setUp(self):
        super().setUp()
        self.selects = []
        self.loaded = []

        def record(conn, cursor, statement, params, context, many):
            if statement.lstrip().upper().startswith('SELECT'):
                self.selects.append(' '.join(statement.split()))

        def load(target, context):
            self.loaded.append(target.uuid)
        event.listen(sa.engine.Engine, 'before_cursor_execute', record)
        self.addCleanup(event.remove, sa.engine.Engine,
                        'before_cursor_execute', record)
        event.listen(models.Instance, 'load', load)
        self.addCleanup(event.remove, models.Instance, 'load', load)

    def _create(self, **kw):
        values = {'project_id': 'p1', 'user_id': 'u1', 'host': 'h1',
                  'node': 'n1', 'vm_state': 'active', 'vcpus': 2,
                  'memory_mb': 512, 'flavor': {'cur': {'name': 'm1.small'}}}
        values.update(kw)
        return api.instance_create(self.ctx, values)

    def reset(self):
        del self.selects[:]
        del self.loaded[:]

    def test_quota_counts_load_no_instance(self):
        for _ in range(3):
            self._create()
        self._create(user_id='u2', vcpus=4, memory_mb=1024)
        self._create(vm_state='soft-delete')
        self._create(project_id='p2')
        gone = self._create()
        api.instance_destroy(self.ctx, gone.uuid)
        self.reset()
        counts = instance_obj.InstanceList.get_counts(self.ctx, 'p1')
        self.assertEqual({'instances': 4, 'cores': 10, 'ram': 2560}, counts)
        self.assertEqual({'instances': 1, 'cores': 4, 'ram': 1024},
                         instance_obj.InstanceList.get_counts(
                             self.ctx, 'p1', 'u2'))
        self.assertEqual({'instances': 0, 'cores': 0, 'ram': 0},
                         instance_obj.InstanceList.get_counts(
                             self.ctx, 'nobody'))
        self.assertEqual([], self.loaded)
        self.assertEqual(3, len(self.selects))


class ScaleQueryPlansTest(test_cell_api.CellDBTestCase):
    """The cell database answers a list page from an index in its order:
    no sort of every live instance of the project (or the cell)."""

    def setUp(self):
        super().setUp()
        for project in ('p1', 'p1', 'p2'):
            api.instance_create(self.ctx, {
                'project_id': project, 'host': 'h1', 'node': 'n1',
                'vm_state': 'active'})

    def plans(self, func):
        """The query plan of each SELECT from instances ``func`` runs."""
        captured = []

        def record(conn, cursor, statement, params, context, many):
            if statement.lstrip().upper().startswith('SELECT') and \
                    'FROM instances' in ' '.join(statement.split()):
                captured.append((conn.engine.url.database, statement,
                                 params))
        event.listen(sa.engine.Engine, 'before_cursor_execute', record)
        try:
            func()
        finally:
            event.remove(sa.engine.Engine, 'before_cursor_execute', record)
        plans = []
        for path, statement, params in captured:
            connection = sqlite3.connect(path)
            try:
                plans.append(' / '.join(row[-1] for row in connection.execute(
                    'EXPLAIN QUERY PLAN ' + statement, params)))
            finally:
                connection.close()
        return plans

    def test_list_pages_read_an_index_in_their_order(self):
        order = ['created_at', 'uuid']
        for filters in ({'project_id': 'p1'}, {}):
            plans = self.plans(
                lambda f=filters: api.instance_get_all_by_filters(
                    self.ctx, f, sort_keys=order, limit=2))
            self.assertEqual(1, len(plans))
            self.assertNotIn('TEMP B-TREE', plans[0])
            self.assertIn('USING INDEX', plans[0])
