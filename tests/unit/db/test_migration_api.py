"""Cell DB API: migrations."""

from nova_lite.db.cell import migration_api as api
from nova_lite import exception
from tests.unit.db import test_cell_api


class TestMigrations(test_cell_api.CellDBTestCase):

    def test_migrations(self):
        mig = api.migration_create(self.ctx, {
            'instance_uuid': 'i1', 'source_compute': 'a', 'source_node': 'a1',
            'dest_compute': 'b', 'dest_node': 'b1', 'status': 'migrating',
            'migration_type': 'resize'})
        self.assertEqual(mig.id, api.migration_get_by_uuid(
            self.ctx, mig.uuid).id)
        self.assertEqual([mig.id], [m.id for m in
                         api.migration_get_in_progress_by_host_and_node(
                             self.ctx, 'b', 'b1')])
        api.migration_update(self.ctx, mig.id, {'status': 'confirmed'})
        self.assertEqual([], api.migration_get_in_progress_by_host_and_node(
            self.ctx, 'a', 'a1'))
        self.assertEqual(mig.id, api.migration_get_by_instance_and_status(
            self.ctx, 'i1', 'confirmed').id)
        self.assertRaises(exception.MigrationNotFound, api.migration_get,
                          self.ctx, 999)
