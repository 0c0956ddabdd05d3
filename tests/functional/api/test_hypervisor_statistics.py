"""GET /os-hypervisors/statistics: Nova's sums, one statement per cell."""

import sqlalchemy as sa

from nova_lite.db.cell import api as cell_db
from tests.functional.api import test_admin_resources

V = '/v2.1'
URL = V + '/os-hypervisors/statistics'
KEYS = ['count', 'vcpus', 'memory_mb', 'local_gb', 'vcpus_used',
        'memory_mb_used', 'local_gb_used', 'free_ram_mb', 'free_disk_gb',
        'current_workload', 'running_vms', 'disk_available_least']


class TestHypervisorStatistics(test_admin_resources.AdminTestCase):

    def _stats(self, **kw):
        resp = self.api.get(URL, **kw)
        self.assertEqual(200, resp.status, resp)
        return resp.body['hypervisor_statistics']

    def test_sums_over_cells_in_nova_keys(self):
        ctxt = self.api.cell_context('cell1')
        cell_db.compute_node_update(ctxt, self.nodes1[0].id, {
            'vcpus_used': 3, 'memory_mb_used': 1024, 'local_gb_used': 7,
            'free_ram_mb': 15360, 'running_vms': 2,
            'disk_available_least': 90})
        stats = self._stats()
        self.assertEqual(KEYS, list(stats))
        self.assertEqual({
            'count': 3, 'vcpus': 24, 'memory_mb': 3 * 16384,
            'local_gb': 300, 'vcpus_used': 3, 'memory_mb_used': 1024,
            'local_gb_used': 7, 'free_ram_mb': 15360 + 2 * 16384,
            'free_disk_gb': 300, 'current_workload': 0, 'running_vms': 2,
            # NULL on the nodes that never reported it: counted as 0.
            'disk_available_least': 90}, stats)

    def test_nodes_of_disabled_or_gone_services_are_not_counted(self):
        # Nova joins the nodes to their enabled nova-compute service.
        ctxt1 = self.api.cell_context('cell1')
        cell_db.service_update(ctxt1, self.svc1.id, {'disabled': True})
        self.assertEqual((1, 8), self._count_vcpus())
        cell_db.service_update(ctxt1, self.svc1.id, {'disabled': False})
        cell_db.compute_node_delete(ctxt1, self.nodes1[1].id)
        self.assertEqual((2, 16), self._count_vcpus())
        ctxt2 = self.api.cell_context('cell2')
        cell_db.service_destroy(ctxt2, self.svc2.id)
        self.assertEqual((1, 8), self._count_vcpus())

    def _count_vcpus(self):
        stats = self._stats()
        return stats['count'], stats['vcpus']

    def test_one_statement_per_cell(self):
        self.api.add_compute('host3', 'cell1', nodes=20)
        cell_urls = {str(cell.database_connection)
                     for name, cell in self.api.dbs.cells.items()
                     if name != 'cell0'}
        seen = []

        def count(conn, cursor, statement, *args):
            # NOTE(nova_lite): the SQLite driver's own BEGIN is not a
            # statement of the query.
            url = conn.engine.url.render_as_string(hide_password=False)
            if url in cell_urls and statement != 'BEGIN':
                seen.append(url)

        sa.event.listen(sa.engine.Engine, 'before_cursor_execute', count)
        self.addCleanup(sa.event.remove, sa.engine.Engine,
                        'before_cursor_execute', count)
        self.assertEqual(23, self._stats()['count'])
        self.assertEqual(sorted(cell_urls), sorted(seen))

    def test_gone_from_2_88(self):
        self.assertEqual(404, self.api.get(URL, version='2.88').status)
        self.assertEqual(3, self._stats(version='2.87')['count'])
