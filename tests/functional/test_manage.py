"""nova-lite-manage end to end: cell0 plus two cells, every command twice.

The scenario runs on SQLite files and on throwaway MariaDB databases. Each
command runs twice; the second run must leave every table as it was and
return the code nova-manage would. Most commands run in-process through
``manage.main(argv)`` (the console entry) to keep the suite fast; the
bad-argument checks run the real ``python -m nova_lite.cmd.manage`` in a
subprocess and check there is one line on stderr and no traceback.
"""

import contextlib
import io
import os
import subprocess
import sys

import fixtures
from oslo_config import fixture as config_fixture
import sqlalchemy as sa
import testtools

from nova_lite.cmd import manage
from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite.db.cell import api as cell_db
from nova_lite.db import migration
from nova_lite.db import session
from tests import db_fixtures

CELL0_UUID = manage.CELL0_UUID
API_TABLES = ('cell_mappings', 'host_mappings', 'instance_mappings',
              'alembic_version')
CELL_TABLES = ('compute_nodes', 'services', 'alembic_version')


def run_manage(*argv):
    """``main(argv)`` in-process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = manage.main(list(argv))
        except SystemExit as exc:
            rc = exc.code
    return rc, out.getvalue(), err.getvalue()


def dump_tables(engine, tables):
    """Every row of ``tables`` ({} while the database has no schema)."""
    url = engine.url
    if url.get_backend_name() == 'sqlite' and not os.path.exists(
            url.database):
        return {}
    try:
        with engine.connect() as conn:
            return {t: sorted(tuple(map(str, row)) for row in conn.execute(
                sa.text('SELECT * FROM %s' % t))) for t in tables}
    except sa.exc.DBAPIError:
        return {}


class _ManageScenario:
    """Set up with ``self.api_url``, ``self.cell1_url``, ``self.cell2_url``."""

    def _urls(self):
        raise NotImplementedError

    def setUp(self):
        super().setUp()
        self.api_url, self.cell1_url, self.cell2_url = self._urls()
        self.cell0_url = manage.cell0_url(self.cell1_url)
        tmp = self.useFixture(fixtures.TempDir()).path
        self.conf_file = os.path.join(tmp, 'nova-lite.conf')
        with open(self.conf_file, 'w') as f:
            f.write('[DEFAULT]\ntransport_url = rabbit://u:secret@h:5672/\n'
                    '[api_database]\nconnection = %s\n'
                    '[database]\nconnection = %s\n' % (
                        self.api_url, self.cell1_url))
        self.useFixture(config_fixture.Config(nl_conf.CONF))
        self.addCleanup(session.reset)
        self._engines = {}

    def manage(self, *argv):
        return run_manage('--config-file', self.conf_file, *argv)

    def _engine(self, url):
        if url not in self._engines:
            engine = sa.create_engine(url)
            self.addCleanup(engine.dispose)
            self._engines[url] = engine
        return self._engines[url]

    def snapshot(self):
        snap = {'api': dump_tables(self._engine(self.api_url), API_TABLES)}
        for url in (self.cell0_url, self.cell1_url, self.cell2_url):
            snap[url] = dump_tables(self._engine(url), CELL_TABLES)
        return snap

    def twice(self, argv, rc_first=0, rc_second=0):
        """Run ``argv`` twice; the second run must change nothing."""
        rc, out, err = self.manage(*argv)
        self.assertEqual(rc_first, rc, 'first %s: %s%s' % (argv, out, err))
        before = self.snapshot()
        rc, out2, err = self.manage(*argv)
        self.assertEqual(rc_second, rc, 'second %s: %s%s' % (argv, out2, err))
        self.assertEqual(before, self.snapshot(), 'second %s changed' % argv)
        return out, out2

    def cell_context(self, url):
        ctx = nl_context.get_admin_context()
        ctx.db_connection = session.get_cell_context_manager(url)
        return ctx

    def add_nodes(self, url, *host_nodes):
        ctx = self.cell_context(url)
        for host, node in host_nodes:
            cell_db.compute_node_create(ctx, {'host': host,
                                              'hypervisor_hostname': node})

    def host_map(self):
        rc, out, _ = self.manage('cell_v2', 'list_hosts')
        self.assertEqual(0, rc)
        rows = [line.split('|') for line in out.splitlines()
                if line.startswith('|')][1:]
        return {r[3].strip(): r[2].strip() for r in rows}

    def _setup_cells(self):
        self.twice(['api_db', 'sync'])
        out, out2 = self.twice(['cell_v2', 'map_cell0'])
        self.assertIn('already setup', out2)
        out, _ = self.twice(['cell_v2', 'create_cell', '--name', 'cell1',
                             '--verbose'], rc_second=2)
        cell1_uuid = out.strip()
        out, _ = self.twice(['cell_v2', 'create_cell', '--name', 'cell2',
                             '--transport-url', 'rabbit://u:p@h:5672/cell2',
                             '--database_connection', self.cell2_url,
                             '--verbose'], rc_second=2)
        cell2_uuid = out.strip()
        self.twice(['db', 'sync'])
        return cell1_uuid, cell2_uuid

    def test_cell_setup_and_host_discovery(self):
        cell1, cell2 = self._setup_cells()
        head = migration.head('cell')
        for url in (self.cell0_url, self.cell1_url, self.cell2_url):
            self.assertEqual(head, migration.version(url, 'cell'))
        out, _ = self.twice(['api_db', 'version'])
        self.assertEqual(migration.head('api'), out.strip())
        self.twice(['db', 'sync', '--local_cell'])
        self.twice(['api_db', 'sync', migration.head('api')])

        out, _ = self.twice(['cell_v2', 'list_cells'])
        self.assertIn(CELL0_UUID, out)
        self.assertNotIn('secret', out)
        self.assertEqual(['cell0', 'cell1', 'cell2'], [
            line.split('|')[1].strip() for line in out.splitlines()
            if line.startswith('|')][1:])

        self.add_nodes(self.cell1_url, ('c1', 'c1-n0'), ('c1', 'c1-n1'),
                       ('c2', 'c2-n0'))
        self.add_nodes(self.cell2_url, ('c3', 'c3-n0'))
        out, out2 = self.twice(['cell_v2', 'discover_hosts', '--verbose'])
        self.assertIn("Creating host mapping for compute host 'c1'", out)
        self.assertNotIn('Creating', out2)
        self.assertEqual({'c1': cell1, 'c2': cell1, 'c3': cell2},
                         self.host_map())
        self.assertEqual([], cell_db.compute_node_get_all(
            self.cell_context(self.cell1_url), mapped=0))
        self.twice(['cell_v2', 'discover_hosts', '--strict'], 1, 1)

        cell_db.service_create(self.cell_context(self.cell2_url), {
            'host': 'c4', 'binary': 'nova-lite-compute', 'topic': 'compute'})
        self.twice(['cell_v2', 'discover_hosts', '--by-service',
                    '--cell_uuid', cell2])
        self.assertEqual(cell2, self.host_map()['c4'])

        self.twice(['cell_v2', 'delete_host', '--cell_uuid', cell1,
                    '--host', 'c2'], 0, 3)
        self.assertNotIn('c2', self.host_map())
        self.twice(['cell_v2', 'discover_hosts', '--cell_uuid', cell1])
        self.assertEqual(cell1, self.host_map()['c2'])


class TestManageSQLite(_ManageScenario, testtools.TestCase):

    def test_host_in_two_cells_is_refused(self):
        cell1, _ = self._setup_cells()
        self.add_nodes(self.cell1_url, ('dup', 'dup-n0'))
        self.twice(['cell_v2', 'discover_hosts'])
        self.add_nodes(self.cell2_url, ('dup', 'dup-n1'))
        self.twice(['cell_v2', 'discover_hosts'], 2, 2)
        self.assertEqual({'dup': cell1}, self.host_map())

    def test_delete_cell(self):
        _, cell2 = self._setup_cells()
        self.add_nodes(self.cell2_url, ('c9', 'c9-n0'))
        self.twice(['cell_v2', 'discover_hosts'])
        self.twice(['cell_v2', 'delete_cell', '--cell_uuid', cell2], 2, 2)
        self.twice(['cell_v2', 'delete_cell', '--cell_uuid', cell2,
                    '--force'], 0, 1)
        self.assertEqual({}, self.host_map())

    def test_update_cell(self):
        _, cell2 = self._setup_cells()
        self.twice(['cell_v2', 'update_cell', '--cell_uuid', cell2,
                    '--name', 'renamed', '--disable'])
        out, _ = self.twice(['cell_v2', 'list_cells'])
        row = [line for line in out.splitlines() if cell2 in line][0]
        self.assertIn('renamed', row)
        self.assertIn('True', row)
        self.twice(['cell_v2', 'update_cell', '--cell_uuid', cell2,
                    '--transport-url', 'rabbit://u:secret@h:5672/',
                    '--database_connection', self.cell1_url], 3, 3)
        self.twice(['cell_v2', 'update_cell', '--cell_uuid', CELL0_UUID,
                    '--disable'], 4, 4)

    def _urls(self):
        tmp = self.useFixture(fixtures.TempDir()).path
        return tuple('sqlite:///' + os.path.join(tmp, name + '.sqlite')
                     for name in ('api', 'cell1', 'cell2'))

    def test_cell0_sits_next_to_the_main_sqlite_file(self):
        self.assertEqual(self.cell1_url.replace('cell1.sqlite',
                                                'cell1_cell0.sqlite'),
                         self.cell0_url)


class TestManageMySQL(_ManageScenario, testtools.TestCase):

    def _urls(self):
        db_fixtures.skip_or_fail_without_mysql(self)
        base = db_fixtures.random_mysql_url('nl_manage')
        urls = (base + '_api', base + '_cell1', base + '_cell2')
        for url in urls + (base + '_cell1_cell0',):
            self.addCleanup(db_fixtures.drop_mysql_database, url)
        return urls


class TestManageCommandLine(testtools.TestCase):
    """The real console entry, in a subprocess: one-line errors."""

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.conf_file = os.path.join(self.tmp, 'nova-lite.conf')

    def _write_conf(self, text):
        with open(self.conf_file, 'w') as f:
            f.write(text)

    def _run(self, *argv):
        env = dict(os.environ, PYTHONWARNINGS='ignore')
        proc = subprocess.run(
            [sys.executable, '-m', 'nova_lite.cmd.manage',
             '--config-file', self.conf_file] + list(argv),
            capture_output=True, text=True, env=env, timeout=120, check=False)
        return proc.returncode, proc.stdout, proc.stderr

    def assertOneLineError(self, result, rc=None):
        code, out, err = result
        self.assertNotEqual(0, code, out + err)
        if rc is not None:
            self.assertEqual(rc, code, err)
        self.assertNotIn('Traceback', out + err)
        self.assertEqual(1, len(err.strip().splitlines()), err)

    def test_bad_arguments_give_one_line(self):
        api_url = 'sqlite:///' + os.path.join(self.tmp, 'api.sqlite')
        self._write_conf('[api_database]\nconnection = %s\n' % api_url)
        self.assertEqual((0, '', ''), self._run('api_db', 'sync'))
        self.assertOneLineError(self._run(
            'cell_v2', 'list_hosts', '--cell_uuid', 'no-such-cell'))
        self.assertOneLineError(self._run(
            'db', 'sync', '--database_connection',
            'mysql+pymysql://nobody@127.0.0.1:1/nowhere'))
        self.assertOneLineError(self._run('cell_v2', 'no_such_action'), 2)


class TestManageErrorsInProcess(testtools.TestCase):
    """More bad arguments, through main() to keep the suite fast."""

    def setUp(self):
        super().setUp()
        self.useFixture(config_fixture.Config(nl_conf.CONF))
        self.addCleanup(session.reset)
        tmp = self.useFixture(fixtures.TempDir()).path
        self.conf_file = os.path.join(tmp, 'nova-lite.conf')
        self.api_url = 'sqlite:///' + os.path.join(tmp, 'api.sqlite')

    def _run(self, conf, *argv):
        with open(self.conf_file, 'w') as f:
            f.write(conf)
        return run_manage('--config-file', self.conf_file, *argv)

    def assertOneLineError(self, result, rc=None):
        TestManageCommandLine.assertOneLineError(self, result, rc)

    def test_errors(self):
        conf = '[api_database]\nconnection = %s\n' % self.api_url
        self.assertEqual(0, self._run(conf, 'api_db', 'sync')[0])
        for argv in (['cell_v2', 'delete_cell', '--cell_uuid', 'nope'],
                     ['cell_v2', 'delete_host', '--cell_uuid', 'nope',
                      '--host', 'h'],
                     ['cell_v2', 'discover_hosts', '--cell_uuid', 'nope'],
                     ['db', 'sync', '--database_connection', 'not a url'],
                     ['cell_v2', 'map_cell0'],
                     ['cell_v2', 'create_cell', '--name', 'x',
                      '--transport-url', 'rabbit://h/'],
                     ['db', 'version'],
                     ['api_db', 'sync', 'no_such_revision']):
            self.assertOneLineError(self._run(conf, *argv))
        self.assertOneLineError(self._run(conf, 'cell_v2'), 2)
        self.assertOneLineError(self._run(
            conf, 'cell_v2', 'create_cell', '--transport-url', 'nonsense',
            '--database_connection', 'sqlite://'))

    def test_no_api_database_configured(self):
        for argv in (['api_db', 'sync'], ['api_db', 'version'],
                     ['cell_v2', 'list_cells'], ['cell_v2', 'map_cell0'],
                     ['cell_v2', 'discover_hosts']):
            self.assertOneLineError(self._run('[DEFAULT]\n', *argv))

    def test_placement_db_sync_twice(self):
        url = self.api_url.replace('api.sqlite', 'placement.sqlite')
        conf = '[placement_database]\nconnection = %s\n' % url
        self.assertEqual((0, '', ''), self._run(conf, 'placement', 'db',
                                                'sync'))
        self.assertEqual((0, '', ''), self._run(conf, 'placement', 'db',
                                                'sync'))
        self.assertOneLineError(self._run('[DEFAULT]\n', 'placement', 'db',
                                          'sync'))
