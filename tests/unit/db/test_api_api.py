"""API DB API: cell, host and instance mappings, flavors."""

import fixtures
import sqlalchemy as sa
import testtools

from nova_lite.db.api import api
from nova_lite.db.api import models
from nova_lite import exception
from tests import db_fixtures


class APIDBTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        url = self.useFixture(db_fixtures.SQLiteDatabase('api.sqlite')).url
        self.ctx = self.useFixture(db_fixtures.APIDatabase(url)).context

    def _cell(self, name='cell1', **kw):
        values = {'name': name, 'transport_url': 'fake://%s' % name,
                  'database_connection': 'sqlite:///%s.sqlite' % name}
        values.update(kw)
        return api.cell_mapping_create(self.ctx, values)


class TestCellMappings(APIDBTestCase):

    def test_create_get_list_update_delete(self):
        cell1 = self._cell()
        cell0 = self._cell('cell0', uuid=api.CELL0_UUID)
        self.assertEqual(cell1.id, api.cell_mapping_get_by_uuid(
            self.ctx, cell1.uuid).id)
        self.assertEqual(cell1.id, api.cell_mapping_get_by_name(
            self.ctx, 'cell1').id)
        self.assertEqual([cell0.uuid, cell1.uuid], [
            c.uuid for c in api.cell_mapping_get_all(self.ctx)])
        self.assertTrue(api.cell_mapping_update(
            self.ctx, cell1.uuid, {'disabled': True}).disabled)
        self.assertRaises(exception.CellMappingExists, self._cell, 'x',
                          uuid=cell1.uuid)
        api.cell_mapping_delete(self.ctx, cell1.uuid)
        self.assertRaises(exception.CellMappingNotFound,
                          api.cell_mapping_get_by_uuid, self.ctx, cell1.uuid)


class TestHostAndInstanceMappings(APIDBTestCase):

    def test_host_mappings(self):
        cell1, cell2 = self._cell(), self._cell('cell2')
        api.host_mapping_create(self.ctx, 'h1', cell1.id)
        api.host_mapping_create(self.ctx, 'h2', cell2.id)
        mapping = api.host_mapping_get_by_host(self.ctx, 'h1')
        self.assertEqual(cell1.uuid, mapping.cell_mapping.uuid)
        self.assertRaises(exception.HostMappingExists,
                          api.host_mapping_create, self.ctx, 'h1', cell2.id)
        self.assertEqual(['h2'], [m.host for m in api.host_mapping_get_all(
            self.ctx, cell_id=cell2.id)])
        api.host_mapping_delete(self.ctx, 'h1')
        self.assertRaises(exception.HostMappingNotFound,
                          api.host_mapping_get_by_host, self.ctx, 'h1')

    def test_instance_mappings(self):
        cell1 = self._cell()
        api.instance_mapping_create(self.ctx, {'instance_uuid': 'i1',
                                               'project_id': 'p1'})
        mapping = api.instance_mapping_get_by_instance_uuid(self.ctx, 'i1')
        self.assertIsNone(mapping.cell_mapping)
        mapping = api.instance_mapping_update(self.ctx, 'i1',
                                              {'cell_id': cell1.id})
        self.assertEqual(cell1.uuid, mapping.cell_mapping.uuid)
        self.assertEqual(1, api.instance_mapping_count_by_cell(
            self.ctx, cell1.id))
        self.assertRaises(exception.InstanceMappingExists,
                          api.instance_mapping_create, self.ctx,
                          {'instance_uuid': 'i1', 'project_id': 'p1'})
        api.instance_mapping_delete(self.ctx, 'i1')
        self.assertRaises(exception.InstanceMappingNotFound,
                          api.instance_mapping_get_by_instance_uuid,
                          self.ctx, 'i1')


    def test_update_of_mapping_deleted_meanwhile_is_not_found(self):
        """The delete race: the row goes between the update's read and
        its write (as a user's delete does on MariaDB)."""
        api.instance_mapping_create(self.ctx, {'instance_uuid': 'i2',
                                               'project_id': 'p1'})
        real_get = api._instance_mapping_get

        def get_then_vanish(s, instance_uuid):
            mapping = real_get(s, instance_uuid)
            table = models.InstanceMapping.__table__
            s.execute(sa.delete(table).where(
                table.c.instance_uuid == instance_uuid))
            return mapping

        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.db.api.api._instance_mapping_get', get_then_vanish))
        self.assertRaises(exception.InstanceMappingNotFound,
                          api.instance_mapping_update, self.ctx, 'i2',
                          {'queued_for_delete': True})


class TestFlavors(APIDBTestCase):

    def test_create_get_with_extra_specs(self):
        flavor = api.flavor_create(
            self.ctx, {'name': 'm1.tiny', 'flavorid': '1', 'memory_mb': 512,
                       'vcpus': 1, 'root_gb': 1},
            extra_specs={'hw:cpu_policy': 'dedicated'})
        got = api.flavor_get_by_flavor_id(self.ctx, '1')
        self.assertEqual(flavor.id, got.id)
        self.assertEqual({'hw:cpu_policy': 'dedicated'}, got.extra_specs)
        self.assertEqual(flavor.id, api.flavor_get_by_name(
            self.ctx, 'm1.tiny').id)
        self.assertRaises(exception.FlavorExists, api.flavor_create,
                          self.ctx, {'name': 'm1.tiny', 'flavorid': '2',
                                     'memory_mb': 1, 'vcpus': 1})
        specs = api.flavor_extra_specs_update(
            self.ctx, '1', {'hw:cpu_policy': 'shared', 'trait:X': 'required'})
        self.assertEqual({'hw:cpu_policy': 'shared', 'trait:X': 'required'},
                         specs)
        api.flavor_extra_spec_delete(self.ctx, '1', 'trait:X')
        self.assertEqual({'hw:cpu_policy': 'shared'},
                         api.flavor_get(self.ctx, flavor.id).extra_specs)
        api.flavor_destroy(self.ctx, '1')
        self.assertRaises(exception.FlavorNotFound,
                          api.flavor_get_by_flavor_id, self.ctx, '1')

    def test_list_private_flavors_by_project(self):
        api.flavor_create(self.ctx, {'name': 'pub', 'flavorid': '1',
                                     'memory_mb': 1024, 'vcpus': 1})
        api.flavor_create(self.ctx, {'name': 'priv', 'flavorid': '2',
                                     'memory_mb': 512, 'vcpus': 1,
                                     'is_public': False}, projects=['p1'])
        self.assertEqual(['priv', 'pub'], [
            f.name for f in api.flavor_get_all(self.ctx)])
        self.assertEqual(['priv', 'pub'], [
            f.name for f in api.flavor_get_all(self.ctx, project_id='p1')])
        self.assertEqual(['pub'], [
            f.name for f in api.flavor_get_all(self.ctx, project_id='p2')])
        api.flavor_add_project(self.ctx, '2', 'p2')
        self.assertEqual(['p1', 'p2'], sorted(api.flavor_get_by_flavor_id(
            self.ctx, '2').projects))
        api.flavor_remove_project(self.ctx, '2', 'p1')
        self.assertEqual(['priv', 'pub'], [
            f.name for f in api.flavor_get_all(self.ctx, project_id='p2')])
