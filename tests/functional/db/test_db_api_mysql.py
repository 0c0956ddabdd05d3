"""The DB API on MariaDB: what differs from SQLite (uniques, timestamps).

The unit tests run the DB API on SQLite; this runs the parts where the
engines differ (duplicate detection, soft-delete uniques, microsecond
timestamps, conditional updates, flavor cascades) once on a throwaway
MariaDB database.
"""

import sqlalchemy as sa
from sqlalchemy.dialects import mysql
import testtools

from nova_lite.db.api import api as api_db
from nova_lite.db.cell import api as cell_db
from nova_lite.db.cell import instance_api
from nova_lite import exception
from tests import db_fixtures


class TestDBAPIOnMySQL(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.cell_url = self.useFixture(db_fixtures.MySQLDatabase(self)).url
        self.useFixture(db_fixtures.SyncedDatabase(self.cell_url, 'cell'))
        self.ctx = self.useFixture(
            db_fixtures.CellContext(self.cell_url)).context
        api_url = self.useFixture(db_fixtures.MySQLDatabase(self)).url
        self.api_ctx = self.useFixture(
            db_fixtures.APIDatabase(api_url)).context

    def test_cell_db(self):
        service = cell_db.service_create(self.ctx, {
            'host': 'h', 'binary': 'nova-lite-compute', 'topic': 'compute'})
        self.assertRaises(exception.ServiceExists, cell_db.service_create,
                          self.ctx, {'host': 'h', 'binary': 'x',
                                     'topic': 'compute'})
        beat = cell_db.service_update(self.ctx, service.id,
                                      {'report_count': 1})
        self.assertEqual(beat.last_seen_up, cell_db.service_get(
            self.ctx, service.id).last_seen_up)

        node = cell_db.compute_node_create(self.ctx, {
            'host': 'h', 'hypervisor_hostname': 'n'})
        cell_db.compute_node_delete(self.ctx, node.id)
        again = cell_db.compute_node_create(self.ctx, {
            'host': 'h', 'hypervisor_hostname': 'n'})
        self.assertRaises(exception.ComputeNodeExists,
                          cell_db.compute_node_restore, self.ctx, node.id)
        cell_db.compute_node_delete(self.ctx, again.id)
        cell_db.compute_node_restore(self.ctx, node.id)
        self.assertEqual(1, cell_db.compute_node_mark_mapped(
            self.ctx, [node.id]))

        inst = instance_api.instance_create(self.ctx, {
            'task_state': 'scheduling', 'metadata': {'k': 'v'}})
        self.assertRaises(exception.UnexpectedTaskStateError,
                          instance_api.instance_update, self.ctx, inst.uuid,
                          {'task_state': None}, expected_task_state='x')
        instance_api.instance_destroy(self.ctx, inst.uuid)
        self.assertRaises(exception.InstanceNotFound,
                          instance_api.instance_get_by_uuid, self.ctx,
                          inst.uuid)

    def test_quota_count_reads_only_an_index(self):
        for i, (user, state, vcpus) in enumerate([
                ('u1', 'active', 2), ('u1', 'soft-delete', 4),
                ('u2', None, 8), ('u2', 'error', 1)]):
            instance_api.instance_create(self.ctx, {
                'project_id': 'p1', 'user_id': user, 'vm_state': state,
                'vcpus': vcpus, 'memory_mb': 512 * (i + 1)})
        instance_api.instance_create(self.ctx, {
            'project_id': 'p2', 'user_id': 'u1', 'vcpus': 16,
            'memory_mb': 1})
        self.assertEqual({'instances': 3, 'cores': 11, 'ram': 4096},
                         instance_api.instance_counts(self.ctx, 'p1'))
        self.assertEqual({'instances': 1, 'cores': 2, 'ram': 512},
                         instance_api.instance_counts(self.ctx, 'p1', 'u1'))
        for user in (None, 'u1'):
            statement = instance_api.instance_counts_statement(
                self.ctx, 'p1', user)
            compiled = statement.compile(
                dialect=mysql.dialect(),
                compile_kwargs={'literal_binds': True})
            self.assertIn('Using index', self._explain(str(compiled)))

    def _explain(self, sql):
        engine = sa.create_engine(self.cell_url)
        try:
            with engine.connect() as conn:
                plan = conn.exec_driver_sql('EXPLAIN ' + sql).mappings().one()
        finally:
            engine.dispose()
        return plan['Extra'] or ''

    def test_sort_and_keyset_order_strings_as_python(self):
        # MariaDB's collation ignores case; the API merges cells in
        # Python's order, so a cell must sort (and cut a page) by it too.
        for name in ('bravo', 'Alpha', 'alpha', None, 'Bravo'):
            instance_api.instance_create(self.ctx, {'display_name': name,
                                                    'project_id': 'p'})
        order = [('display_name', 'asc'), ('uuid', 'desc')]
        rows = instance_api.instance_get_all_by_filters(
            self.ctx, {}, sort_keys=order)
        names = [r.display_name for r in rows]
        self.assertEqual([None, 'Alpha', 'Bravo', 'alpha', 'bravo'], names)
        after = instance_api.instance_get_all_by_filters(
            self.ctx, {}, sort_keys=order, limit=2,
            after=[rows[1].display_name, rows[1].uuid])
        self.assertEqual(['Bravo', 'alpha'],
                         [r.display_name for r in after])
        desc = instance_api.instance_get_all_by_filters(
            self.ctx, {}, sort_keys=[('display_name', 'desc'),
                                     ('uuid', 'desc')],
            after=['Alpha', rows[1].uuid])
        self.assertEqual([None], [r.display_name for r in desc])
        named = instance_api.instance_get_all_by_filters(
            self.ctx, {'name': '^[ab]'}, sort_keys=order)
        self.assertEqual(['alpha', 'bravo'],
                         [r.display_name for r in named])

    def test_api_db(self):
        cell = api_db.cell_mapping_create(self.api_ctx, {
            'name': 'c', 'transport_url': 'fake://',
            'database_connection': 'sqlite://'})
        api_db.host_mapping_create(self.api_ctx, 'h', cell.id)
        self.assertRaises(exception.HostMappingExists,
                          api_db.host_mapping_create, self.api_ctx, 'h',
                          cell.id)
        api_db.flavor_create(self.api_ctx, {
            'name': 'f', 'flavorid': '1', 'memory_mb': 1, 'vcpus': 1},
            extra_specs={'a': 'b'}, projects=['p'])
        api_db.flavor_destroy(self.api_ctx, '1')
        self.assertEqual([], api_db.flavor_get_all(self.api_ctx))
