"""Each check of tox -e pep8 is one result (tests/hacking/checks.py)."""

import importlib.util
import io
import os
import sys
import textwrap

import fixtures
import testtools

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _load_checks():
    # A script of the pep8 env (no package import: nothing is installed).
    spec = importlib.util.spec_from_file_location(
        'nova_lite_pep8_checks',
        os.path.join(ROOT, 'tests', 'hacking', 'checks.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


checks = _load_checks()


class TestChecks(testtools.TestCase):

    def setUp(self):
        super().setUp()
        # What the checks print (their output, unittest's progress).
        for name in ('stdout', 'stderr'):
            self.useFixture(fixtures.MonkeyPatch('sys.' + name,
                                                 io.StringIO()))
        self.results = checks.Results()

    def test_a_failing_command_is_a_failed_result_with_its_output(self):
        checks.run_command(self.results, 'ruff', [
            sys.executable, '-c', 'print("x.py:1:1: F401"); exit(1)'])
        checks.run_command(self.results, 'import_rules',
                           [sys.executable, '-c', 'pass'])
        counts = self.results.as_json()
        self.assertEqual((1, 1, 0), (counts['passed'], counts['failed'],
                                     counts['skipped']))
        [failure] = counts['failures']
        self.assertEqual('pep8.ruff', failure['test'])
        self.assertIn('F401', failure['detail'])

    def test_a_missing_tool_is_a_failure_not_a_skip(self):
        checks.run_command(self.results, 'ruff', ['no-such-ruff-here'])
        self.assertEqual(1, self.results.as_json()['failed'])

    def test_each_unit_test_of_the_checkers_is_a_result(self):
        tests_dir = self.useFixture(fixtures.TempDir()).path
        with open(os.path.join(tests_dir, 'test_rules.py'), 'w') as f:
            f.write(textwrap.dedent("""\
                import unittest

                class TestRules(unittest.TestCase):
                    def test_holds(self):
                        pass

                    def test_broken(self):
                        self.fail('rule X broken')

                    @unittest.skip('needs nothing, yet skipped')
                    def test_hidden(self):
                        pass
                """))
        checks.run_unit_tests(self.results, tests_dir)
        self.assertEqual(
            [('pep8.test_rules.TestRules.test_broken', False),
             ('pep8.test_rules.TestRules.test_hidden', False),
             ('pep8.test_rules.TestRules.test_holds', True)],
            sorted((i, ok) for i, ok, _ in self.results.items))
        detail = dict((i, d) for i, _, d in self.results.items)
        self.assertIn('rule X broken',
                      detail['pep8.test_rules.TestRules.test_broken'])

    def test_no_unit_test_found_is_a_failure(self):
        checks.run_unit_tests(self.results,
                              self.useFixture(fixtures.TempDir()).path)
        self.assertEqual(1, self.results.as_json()['failed'])
