"""What a page of servers reads: bounded by the page, not by every server
of the cloud (the statements a page runs, the instance rows it loads)."""

import sqlalchemy as sa
from sqlalchemy import event

from nova_lite.db.cell import models as cell_models
from tests.functional import test_servers


class ServerListReadsTest(test_servers.ServersTestBase):

    CELLS = ('cell1', 'cell2')

    def setUp(self):
        super().setUp()
        self.statements = []
        self.loaded = []

        def record(conn, cursor, statement, params, context, many):
            self.statements.append(' '.join(statement.split()))

        def load(target, context):
            self.loaded.append(target.uuid)
        event.listen(sa.engine.Engine, 'before_cursor_execute', record)
        self.addCleanup(event.remove, sa.engine.Engine,
                        'before_cursor_execute', record)
        event.listen(cell_models.Instance, 'load', load)
        self.addCleanup(event.remove, cell_models.Instance, 'load', load)

    def reset(self):
        del self.statements[:]
        del self.loaded[:]

    def from_table(self, table):
        return [s for s in self.statements if s.startswith('SELECT')
                and ' FROM %s ' % table in s + ' ']

    def test_detail_reads_the_page_hints_in_one_query(self):
        first = self.boot('ACTIVE', name='s0')
        self.boot('ACTIVE', name='s1',
                  scheduler_hints={'different_host': [first['id']]})
        self.boot('ACTIVE', name='s2')
        self.reset()
        response = self.api.get('/servers/detail')
        self.assertEqual(200, response.status)
        hints = {s['name']: s['scheduler_hints']
                 for s in response.body['servers']}
        self.assertEqual({'s0': {}, 's1': {'different_host': [first['id']]},
                          's2': {}}, hints)
        self.assertEqual(1, len(self.from_table('request_specs')))

    def names(self, query):
        response = self.api.get('/servers?' + query)
        self.assertEqual(200, response.status, response)
        return [s['name'] for s in response.body['servers']]

    def test_sorted_pages_load_a_page_per_cell(self):
        for name in ('echo', 'alpha', 'delta', 'bravo', 'charlie'):
            self.boot('ACTIVE', name=name)
        query = 'sort_key=display_name&sort_dir=asc&limit=2'
        self.reset()
        self.assertEqual(['alpha', 'bravo'], self.names(query))
        self.assertLessEqual(len(self.loaded), 2)
        marker = self.api.get('/servers?' + query).body['servers'][-1]['id']
        self.reset()
        self.assertEqual(['charlie', 'delta'],
                         self.names(query + '&marker=' + marker))
        # the marker's own row, then at most a page
        self.assertLessEqual(len(self.loaded), 3)
        self.assertEqual(['echo'], self.names(
            'sort_key=display_name&sort_dir=desc&limit=1'))

    def test_name_filter_is_matched_by_the_cells(self):
        for name in ('web-0', 'db-0', 'web-1', 'web-2', 'db-1'):
            self.boot('ACTIVE', name=name)
        self.reset()
        self.assertEqual(['web-2', 'web-1'], self.names('name=^web&limit=2'))
        self.assertLessEqual(len(self.loaded), 2)
        marker = self.api.get('/servers?name=^web&limit=2').body[
            'servers'][-1]['id']
        self.reset()
        self.assertEqual(['web-0'], self.names(
            'name=^web&limit=2&marker=' + marker))
        self.assertLessEqual(len(self.loaded), 2)
        self.assertEqual(['db-0', 'db-1'], self.names(
            'name=db&sort_key=display_name&sort_dir=asc'))
        self.assertEqual([], self.names('name=^WEB'))
