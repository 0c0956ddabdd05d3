"""devstack/stack.sh and unstack.sh on this machine, as a user runs them.

The lab runs in a temporary state directory with its own vhost/database
prefix and free ports, from the test's own virtualenv (``NOVA_LITE_VENV``),
so it never touches a lab the user keeps on the same machine.
"""

import json
import os
import socket
import subprocess
import sys
import urllib.request
import uuid

import fixtures
import pymysql
import testtools

from tests.integration import test_services as base

DEVSTACK = os.path.join(base.REPO_ROOT, 'devstack')
STACK_TIMEOUT = 300


def _free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


class TestDevstackLab(testtools.TestCase):

    def setUp(self):
        super().setUp()
        base.require_rabbit(self)
        self.state = self.useFixture(fixtures.TempDir()).path
        self.name = 'nl_ds_%s' % uuid.uuid4().hex[:6]
        self.api_port, self.placement_port = _free_port(), _free_port()
        self.env = dict(
            os.environ, NOVA_LITE_VENV=sys.prefix,
            NOVA_LITE_STATE_DIR=self.state, NOVA_LITE_NAME=self.name,
            NOVA_LITE_API_PORT=str(self.api_port),
            NOVA_LITE_PLACEMENT_PORT=str(self.placement_port),
            NOVA_LITE_CELLS='1', NOVA_LITE_COMPUTES_PER_CELL='1',
            NOVA_LITE_NODES_PER_COMPUTE='2', NOVA_LITE_DATABASE='sqlite',
            INSTALL_SERVICES='False')
        self.addCleanup(self._script, 'unstack.sh', '--purge')

    def _script(self, name, *args):
        return subprocess.run(
            ['bash', os.path.join(DEVSTACK, name), *args], env=self.env,
            capture_output=True, text=True, timeout=STACK_TIMEOUT)

    def _pids(self):
        pids = {}
        piddir = os.path.join(self.state, 'pids')
        for entry in os.listdir(piddir):
            with open(os.path.join(piddir, entry)) as f:
                pids[entry[:-len('.pid')]] = int(f.read())
        return pids

    def _get_json(self, port, path):
        with urllib.request.urlopen('http://127.0.0.1:%d%s' % (port, path),
                                    timeout=10) as resp:
            return json.load(resp)

    def _manage(self, *args):
        return subprocess.run(
            [os.path.join(sys.prefix, 'bin', 'nova-lite-manage'),
             '--config-file', os.path.join(self.state, 'etc',
                                           'api-level.conf'), *args],
            capture_output=True, text=True, timeout=60)

    def test_stack_run_twice_then_unstack_leaves_nothing(self):
        first = self._script('stack.sh')
        self.assertEqual(0, first.returncode, first.stdout + first.stderr)
        self.assertIn('nova_lite lab is up', first.stdout)

        pids = self._pids()
        self.assertEqual({'placement', 'api', 'scheduler', 'conductor',
                          'conductor-cell1', 'compute-cell1-compute1'},
                         set(pids))
        for name, pid in pids.items():
            self.assertTrue(_alive(pid), name)
            self.assertTrue(os.path.exists(
                os.path.join(self.state, 'logs', name + '.log')))

        self.assertIn('versions', self._get_json(self.api_port, '/'))
        self.assertIn('versions', self._get_json(self.placement_port, '/'))
        cells = self._manage('cell_v2', 'list_cells')
        self.assertIn('cell0', cells.stdout)
        self.assertIn('cell1', cells.stdout)
        hosts = self._manage('cell_v2', 'list_hosts')
        self.assertIn('cell1-compute1', hosts.stdout)
        self.assertTrue(os.path.exists(
            os.path.join(self.state, 'clouds.yaml')))

        again = self._script('stack.sh')
        self.assertEqual(0, again.returncode, again.stdout + again.stderr)
        self.assertEqual(pids, self._pids())

        down = self._script('unstack.sh', '--purge')
        self.assertEqual(0, down.returncode, down.stdout + down.stderr)
        for name, pid in pids.items():
            self.assertFalse(_alive(pid), name)
            # Nothing left in the process group either (gunicorn workers,
            # oslo.service children).
            self.assertRaises(ProcessLookupError, os.killpg, pid, 0)
        vhosts = base._rabbitmqctl('list_vhosts').stdout.split()
        self.assertNotIn(self.name, vhosts)
        self.assertNotIn(self.name + '_cell1', vhosts)
        self.assertFalse(os.path.exists(os.path.join(self.state, 'db')))

    def test_failing_step_names_itself_and_shows_the_log(self):
        # A placement port already taken: placement cannot start.
        with socket.socket() as taken:
            taken.bind(('127.0.0.1', self.placement_port))
            taken.listen(1)
            result = self._script('stack.sh')
        self.assertNotEqual(0, result.returncode)
        self.assertIn('FAILED at step: starting services', result.stdout)
        self.assertIn('placement.log', result.stdout)


class TestPurgeRemovesOnlyItsLab(testtools.TestCase):
    """unstack.sh --purge reads the lab's settings from its state directory.

    Two labs share this machine's RabbitMQ and MariaDB under different name
    prefixes. Purging one with nothing but ``NOVA_LITE_STATE_DIR`` set (no
    local.conf values, no name) removes its vhosts and databases and leaves
    the other lab's alone.
    """

    def setUp(self):
        super().setUp()
        base.require_rabbit(self)
        base.require_mysql(self)

    def _lab_env(self):
        state = self.useFixture(fixtures.TempDir()).path
        return dict(
            os.environ, NOVA_LITE_VENV=sys.prefix, NOVA_LITE_STATE_DIR=state,
            NOVA_LITE_NAME='nl_pg_%s' % uuid.uuid4().hex[:6],
            NOVA_LITE_API_PORT=str(_free_port()),
            NOVA_LITE_PLACEMENT_PORT=str(_free_port()),
            NOVA_LITE_CELLS='1', NOVA_LITE_COMPUTES_PER_CELL='1',
            NOVA_LITE_NODES_PER_COMPUTE='1', NOVA_LITE_DATABASE='mysql',
            INSTALL_SERVICES='False')

    @staticmethod
    def _script(env, name, *args):
        return subprocess.run(
            ['bash', os.path.join(DEVSTACK, name), *args], env=env,
            capture_output=True, text=True, timeout=STACK_TIMEOUT)

    @staticmethod
    def _databases(prefix):
        conn = pymysql.connect(host='127.0.0.1', user='root')
        try:
            with conn.cursor() as cur:
                cur.execute('SHOW DATABASES')
                return {row[0] for row in cur.fetchall()
                        if row[0].startswith(prefix + '_')}
        finally:
            conn.close()

    @staticmethod
    def _vhosts(prefix):
        return {v for v in base._rabbitmqctl('list_vhosts').stdout.split()
                if v == prefix or v.startswith(prefix + '_')}

    def test_purge_with_only_the_state_dir_removes_exactly_its_lab(self):
        labs = [self._lab_env(), self._lab_env()]
        for env in labs:
            self.addCleanup(self._script, env, 'unstack.sh', '--purge')
        # Both at once: a stack mostly waits.
        procs = [subprocess.Popen(
            ['bash', os.path.join(DEVSTACK, 'stack.sh')], env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for env in labs]
        for proc in procs:
            out, _ = proc.communicate(timeout=STACK_TIMEOUT)
            self.assertEqual(0, proc.returncode, out)
        one, other = (env['NOVA_LITE_NAME'] for env in labs)
        self.assertEqual(
            {one + s for s in ('_api', '_placement', '_cell0', '_cell1')},
            self._databases(one))
        self.assertEqual({one, one + '_cell1'}, self._vhosts(one))
        before = (self._databases(other), self._vhosts(other))

        bare = {k: v for k, v in os.environ.items()
                if not k.startswith('NOVA_LITE_')}
        bare.update(NOVA_LITE_STATE_DIR=labs[0]['NOVA_LITE_STATE_DIR'],
                    INSTALL_SERVICES='False')
        down = self._script(bare, 'unstack.sh', '--purge')
        self.assertEqual(0, down.returncode, down.stdout + down.stderr)
        self.assertIn('lab %s (settings recorded' % one, down.stdout)

        self.assertEqual(set(), self._databases(one))
        self.assertEqual(set(), self._vhosts(one))
        self.assertEqual(before, (self._databases(other),
                                  self._vhosts(other)))
        # The other lab still answers.
        port = int(labs[1]['NOVA_LITE_API_PORT'])
        with urllib.request.urlopen('http://127.0.0.1:%d/' % port,
                                    timeout=10) as resp:
            self.assertIn('versions', json.load(resp))
