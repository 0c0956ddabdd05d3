"""tests/run_tests.sh, the README's test command, as a newcomer runs it.

It runs in a copy of this clone so that its own tox run (and the results
directory it clears) never touches the run this test is part of. Whatever
ran, its output ends with the plain ``N passed, M failed, K skipped`` line.
"""

import os
import re
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
        venv = os.path.join(self.clone, '.venv-tox')
        self.assertTrue(os.access(os.path.join(venv, 'bin', 'tox'), os.X_OK))
        # With uv's plugin, or saying it went without.
        has_uv = subprocess.run([os.path.join(venv, 'bin', 'python'), '-c',
                                 'import tox_uv']).returncode == 0
        self.assertTrue(has_uv or 'could not install tox-uv' in out, out)
        self.assertIn('pep8: OK', out)
        # pep8 needs no broker nor database: none was looked for.
        self.assertNotIn('RabbitMQ', out)
        # Each of its checks is a result: ruff, the import rules, the
        # checker's tests.
        passed = self._last_line(proc, failed=0)
        self.assertGreater(passed, 2)

        # A lint error is a failed result, named before the line.
        with open(os.path.join(self.clone, 'nova_lite', 'lint_me.py'),
                  'w') as f:
            f.write('import os\n')
        proc = self._run('-e', 'pep8')
        self.assertNotEqual(0, proc.returncode)
        self.assertIn('FAILED in pep8: pep8.ruff', proc.stdout)
        self.assertEqual(passed - 1, self._last_line(proc, failed=1))

    def _last_line(self, proc, failed):
        """The passed count of the output's last line, which must be the
        plain line with ``failed`` failures and no skip."""
        last = proc.stdout.strip().splitlines()[-1]
        match = re.fullmatch(r'(\d+) passed, (\d+) failed, 0 skipped', last)
        self.assertIsNotNone(match, proc.stdout + proc.stderr)
        self.assertEqual(failed, int(match.group(2)), last)
        return int(match.group(1))

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
        # Its own report of the run first (tests/summary.py reads it).
        self.assertIn('fake tox got: --result-json .ci-results/tox/run.json '
                      '-e py3 -- tests.unit.test_conf', proc.stdout)
        self.assertEqual(3, proc.returncode)
        self.assertFalse(os.path.exists(
            os.path.join(self.clone, '.venv-tox')))
        # tox failed and reported nothing: still the line, one failure.
        self._last_line(proc, failed=1)

    def test_integration_envs_look_for_the_services(self):
        self._fake_tox(rc=0)
        proc = self._run('-e', 'integration')
        self.assertIn('RabbitMQ', proc.stdout)
        self.assertIn('MariaDB', proc.stdout)
        self.assertEqual(0, proc.returncode, proc.stdout + proc.stderr)
        # A tox that ran nothing and passed: nothing passed, nothing failed.
        self._last_line(proc, failed=0)

    def test_a_label_looks_for_the_services(self):
        self._fake_tox(rc=0)
        proc = self._run('-m', 'ci')
        self.assertIn('fake tox got: --result-json', proc.stdout)
        self.assertIn('-m ci', proc.stdout)
        self.assertIn('RabbitMQ', proc.stdout)
