"""The plain line of tests/run_tests.sh counts every env that ran.

Whatever ran: pep8's checks (JSON counts), an env that could not run its
tests, a tox that failed before it could report; a failure is never a
silent pass.
"""

import io
import json
import os

import fixtures
import testtools

from tests import suite_results
from tests import summary


class TestSummary(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = self.useFixture(fixtures.TempDir()).path
        self.tox_json = os.path.join(self.dir, 'tox', 'run.json')

    def _counts(self, name, passed, failed, failures=()):
        with open(os.path.join(self.dir, name + '.json'), 'w') as f:
            json.dump({'passed': passed, 'failed': failed, 'skipped': 0,
                       'failures': list(failures)}, f)

    def _tox(self, **envs):
        """tox's --result-json, ``env=(success, exit code[, skipped])``."""
        os.makedirs(os.path.dirname(self.tox_json), exist_ok=True)
        report = {'reportversion': '1', 'testenvs': {
            '.pkg': {'setup': []}}}
        for name, outcome in envs.items():
            success, code, skipped = (outcome + (False,))[:3]
            report['testenvs'][name] = {'result': {
                'success': success, 'exit_code': code, 'duration': 1.0,
                'skipped': skipped}}
        with open(self.tox_json, 'w') as f:
            json.dump(report, f)

    def _line(self, tox_exit_code=0):
        out = io.StringIO()
        self.useFixture(fixtures.MonkeyPatch('sys.stdout', out))
        rc = summary.main([self.dir, '--tox-json', self.tox_json,
                           '--tox-exit-code', str(tox_exit_code)])
        return rc, out.getvalue().splitlines()

    def test_pep8_checks_are_counted_with_their_detail(self):
        self._counts('pep8', 19, 1, [
            {'test': 'pep8.ruff', 'detail': 'x.py:1:1: F401 unused\n'
                                            'Found 1 error.'}])
        self._tox(pep8=(False, 1))
        rc, lines = self._line(tox_exit_code=1)
        self.assertEqual(1, rc)
        self.assertEqual('FAILED in pep8: pep8.ruff', lines[0])
        self.assertIn('F401 unused', lines[1])
        self.assertEqual('19 passed, 1 failed, 0 skipped', lines[-1])

    def test_an_env_that_could_not_run_its_tests_is_a_failure(self):
        self._counts('pep8', 20, 0)
        # py3's virtualenv would not install: tox ran no test, left no
        # results.
        self._tox(pep8=(True, 0), py3=(False, 1))
        rc, lines = self._line(tox_exit_code=1)
        self.assertEqual(1, rc)
        self.assertEqual('FAILED in py3: tox.py3', lines[0])
        self.assertEqual('20 passed, 1 failed, 0 skipped', lines[-1])

    def test_an_env_skipped_by_tox_is_a_failure(self):
        self._tox(py3=(True, 0, True))
        rc, lines = self._line()
        self.assertEqual(1, rc)
        self.assertEqual('0 passed, 1 failed, 0 skipped', lines[-1])

    def test_a_failed_env_whose_results_show_no_failure_fails(self):
        report = suite_results.Results('fuzz')
        report.check('no_500', True)
        report.write(self.dir)
        self._tox(fuzz=(False, 2))
        rc, lines = self._line(tox_exit_code=1)
        self.assertEqual(1, rc)
        self.assertEqual('1 passed, 1 failed, 0 skipped', lines[-1])

    def test_an_env_with_no_results_by_design_is_one_result(self):
        self._tox(genconfig=(True, 0))
        rc, lines = self._line()
        self.assertEqual(0, rc)
        self.assertEqual(['1 passed, 0 failed, 0 skipped'], lines)

    def test_tox_failing_before_it_reports_is_a_failure(self):
        # No report at all (a tox.ini that does not parse, a tox crash).
        rc, lines = self._line(tox_exit_code=254)
        self.assertEqual(1, rc)
        self.assertEqual('FAILED in tox: tox', lines[0])
        self.assertIn('exited 254', lines[1])
        self.assertEqual('0 passed, 1 failed, 0 skipped', lines[-1])

    def test_all_passed(self):
        self._counts('pep8', 20, 0)
        self._tox(pep8=(True, 0))
        self.assertEqual((0, ['20 passed, 0 failed, 0 skipped']),
                         self._line())
