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
