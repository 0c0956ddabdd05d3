"""tests/run_tests.sh, the README's test command, as a newcomer runs it.

It runs in a copy of this clone so that its own tox run (and the results
directory it clears) never touches the run this test is part of.
"""

import os
import shutil
import subprocess
import sys

import fixtures
import testtools

from tests.integration import test_services as base


def _path_without_tox():
    """PATH without any directory holding a tox, nor this test's venv."""
    keep = []
    for entry in os.environ.get('PATH', '').split(os.pathsep):
        if not entry or os.path.exists(os.path.join(entry, 'tox')):
            continue
        if os.path.realpath(entry).startswith(os.path.realpath(sys.prefix)):
            continue
        keep.append(entry)
    return os.pathsep.join(keep)


class TestRunTests(testtools.TestCase):

    def setUp(self):
        super().setUp()
        tmp = self.useFixture(fixtures.TempDir()).path
        self.clone = os.path.join(tmp, 'clone')
        files = subprocess.run(
            ['git', 'ls-files', '--cached', '--others', '--exclude-standard'],
            cwd=base.REPO_ROOT, capture_output=True, text=True, check=True)
        for rel in files.stdout.splitlines():
            src = os.path.join(base.REPO_ROOT, rel)
            if not os.path.isfile(src):
                continue
            dst = os.path.join(self.clone, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(src, dst)
        self.bin = os.path.join(tmp, 'bin')
        os.makedirs(self.bin)
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(('TOX_', 'VIRTUAL_ENV', 'NOVA_LITE_'))}
        self.env.update(PATH=_path_without_tox(), INSTALL_SERVICES='False')

    def _run(self, *args, timeout=900):
        return subprocess.run(
            ['bash', os.path.join(self.clone, 'tests', 'run_tests.sh'),
             *args], cwd=self.clone, env=self.env, capture_output=True,
            text=True, timeout=timeout)

    def test_installs_tox_when_missing_and_runs_the_suite(self):
        proc = self._run('-e', 'pep8')
        out = proc.stdout + proc.stderr
        self.assertEqual(0, proc.returncode, out)
        self.assertIn('tox is not on the PATH: creating', out)
        self.assertTrue(os.access(
            os.path.join(self.clone, '.venv-tox', 'bin', 'tox'), os.X_OK))
        self.assertIn('pep8: OK', out)
        # pep8 needs no broker nor database: none was looked for.
        self.assertNotIn('RabbitMQ', out)

    def _fake_tox(self, rc):
        path = os.path.join(self.bin, 'tox')
        with open(path, 'w') as f:
            f.write('#!/bin/sh\n'
                    '[ "$1" = --version ] && { echo "4.0 fake"; exit 0; }\n'
                    'echo "fake tox got: $*"\nexit %d\n' % rc)
        os.chmod(path, 0o755)
        self.env['PATH'] = self.bin + os.pathsep + self.env['PATH']
        return path

    def test_uses_the_tox_on_the_path_and_passes_arguments(self):
        fake = self._fake_tox(rc=3)
        proc = self._run('-e', 'py3', '--', 'tests.unit.test_conf')
        self.assertIn('using %s' % fake, proc.stdout + proc.stderr)
        self.assertIn('fake tox got: -e py3 -- tests.unit.test_conf',
                      proc.stdout)
        self.assertEqual(3, proc.returncode)
        self.assertFalse(os.path.exists(
            os.path.join(self.clone, '.venv-tox')))

    def test_integration_envs_look_for_the_services(self):
        self._fake_tox(rc=0)
        proc = self._run('-e', 'integration')
        self.assertIn('RabbitMQ', proc.stdout)
        self.assertIn('MariaDB', proc.stdout)
        self.assertEqual(0, proc.returncode, proc.stdout + proc.stderr)
