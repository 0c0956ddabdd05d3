"""The placement alembic migrations produce exactly the models' schema.

Checked with alembic's autogenerate comparison on SQLite and, when it
answers, MariaDB; db_sync is idempotent and get_current reports head.
"""

from alembic import autogenerate
from alembic import migration as alembic_migration
import sqlalchemy as sa
import testtools

from nova_lite.placement.db import migration
from nova_lite.placement.db import models
from tests import db_fixtures

HEAD = '0001_initial'


class _MigrationChecks:
    def _url(self):
        raise NotImplementedError

    def _diff(self, url):
        engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
        try:
            with engine.connect() as conn:
                context = alembic_migration.MigrationContext.configure(
                    conn, opts={'compare_type': True})
                return autogenerate.compare_metadata(
                    context, models.Base.metadata)
        finally:
            engine.dispose()

    def test_models_match_migrations(self):
        url = self._url()
        migration.db_sync(url)
        diff = [d for d in self._diff(url)
                if not (d[0] == 'remove_table' and
                        d[1].name == 'alembic_version')]
        self.assertEqual([], diff)

    def test_db_sync_is_idempotent(self):
        url = self._url()
        self.assertIsNone(migration.get_current(url))
        migration.db_sync(url)
        migration.db_sync(url)
        self.assertEqual(HEAD, migration.get_current(url))


class TestMigrationsSQLite(_MigrationChecks, testtools.TestCase):
    def _url(self):
        return self.useFixture(db_fixtures.SQLiteDatabase()).url


class TestMigrationsMySQL(_MigrationChecks, testtools.TestCase):
    def _url(self):
        return self.useFixture(db_fixtures.MySQLDatabase(
            self, prefix='nl_placement_mig')).url
