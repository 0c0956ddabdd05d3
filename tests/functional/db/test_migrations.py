"""The alembic migrations build exactly the schema the models declare.

For the API and cell databases, on a SQLite file and on a throwaway MariaDB
database: upgrade to head (twice: the second run must be a no-op), then
alembic's autogenerate comparison between the live schema and the models
must find nothing.
"""

from alembic import autogenerate
from alembic import migration as alembic_migration
import sqlalchemy as sa
import testtools

from nova_lite.db.api import models as api_models
from nova_lite.db.cell import models as cell_models
from nova_lite.db import migration
from tests import db_fixtures

METADATA = {'api': api_models.Base.metadata,
            'cell': cell_models.Base.metadata}


class _MigrationsMatchModels:

    def _url(self):
        raise NotImplementedError

    def _check(self, database):
        url = self._url()
        self.assertIsNone(migration.version(url, database))
        self.assertEqual(migration.head(database),
                         migration.db_sync(url, database))
        self.assertEqual(migration.head(database),
                         migration.db_sync(url, database))
        self.assertEqual(migration.head(database),
                         migration.version(url, database))
        engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
        self.addCleanup(engine.dispose)
        with engine.connect() as conn:
            mc = alembic_migration.MigrationContext.configure(
                conn, opts={'compare_type': True,
                            'compare_server_default': False})
            diff = autogenerate.compare_metadata(mc, METADATA[database])
        self.assertEqual([], diff)

    def test_api_schema_matches_models(self):
        self._check('api')

    def test_cell_schema_matches_models(self):
        self._check('cell')


class TestMigrationsSQLite(_MigrationsMatchModels, testtools.TestCase):

    def _url(self):
        return self.useFixture(db_fixtures.SQLiteDatabase()).url


class TestMigrationsMySQL(_MigrationsMatchModels, testtools.TestCase):

    def _url(self):
        return self.useFixture(db_fixtures.MySQLDatabase(self)).url


class TestPortDeviceMigration(testtools.TestCase):
    """0005 fills the new ``device_id`` column of the ports already
    stored from their bodies (bound ports only; other kinds untouched)."""

    def test_device_ids_filled_from_port_bodies(self):
        url = self.useFixture(db_fixtures.SQLiteDatabase()).url
        self.assertEqual('0004', migration.db_sync(url, 'api', '0004'))
        engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
        self.addCleanup(engine.dispose)
        rows = [('p-bound', 'port', '{"device_id": "server-1"}'),
                ('p-free', 'port', '{"device_id": ""}'),
                ('n-1', 'network', '{"device_id": "server-1"}')]
        with engine.begin() as conn:
            for uuid, kind, body in rows:
                conn.execute(sa.text(
                    'INSERT INTO network_resources (uuid, kind, body) '
                    'VALUES (:uuid, :kind, :body)'),
                    {'uuid': uuid, 'kind': kind, 'body': body})
        migration.db_sync(url, 'api')
        with engine.connect() as conn:
            found = dict(conn.execute(sa.text(
                'SELECT uuid, device_id FROM network_resources')).all())
        self.assertEqual({'p-bound': 'server-1', 'p-free': None,
                          'n-1': None}, found)
