"""Every check of ``tox -e pep8``, each counted as one result.

The pep8 environment leaves no subunit stream, yet the plain ``N passed, M
failed, K skipped`` line of ``tests/run_tests.sh`` must count it like any
other env: a lint error is a failed test, not a silent pass. So this runs
ruff, the import rules, the check for work references (issues, sessions,
branches) and each unit test of the checkers, prints what failed, and
writes the counts to ``.ci-results/pep8.json`` (the form
``tests/summary.py`` reads). It needs only the standard library and ruff
(the pep8 environment installs nothing else)::

    python tests/hacking/checks.py
"""

import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# The style of the tree (README, "Style").
RUFF = ['ruff', 'check', '--select', 'E,F,W,B', '--ignore', 'B904',
        '--line-length', '79', 'nova_lite', 'tests']
# The layering rules of doc/design.md.
IMPORT_RULES = [sys.executable, os.path.join(HERE, 'import_rules.py'),
                'nova_lite']
# No issue, session or branch named in docs, code or tests.
WORK_REFS = [sys.executable, os.path.join(HERE, 'work_refs.py')]
RESULTS_DIR = os.path.join(REPO, '.ci-results')
# Lines of a failed check's output kept in the results file.
DETAIL_LINES = 20


class Results:
    """``(test id, passed, detail)`` of each check, in order."""

    def __init__(self):
        self.items = []

    def add(self, test_id, ok, detail=''):
        self.items.append(('pep8.' + test_id, ok, detail))

    @property
    def failed(self):
        return [item for item in self.items if not item[1]]

    def as_json(self):
        return {
            'passed': len(self.items) - len(self.failed),
            'failed': len(self.failed),
            'skipped': 0,
            'failures': [
                {'test': test_id,
                 'detail': '\n'.join(detail.splitlines()[-DETAIL_LINES:])}
                for test_id, _, detail in self.failed],
        }


def run_command(results, test_id, cmd):
    """One result for ``cmd``: passed when it exits 0."""
    try:
        proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    except OSError as exc:
        results.add(test_id, False, 'could not run %s: %s' % (cmd[0], exc))
        return
    output = (proc.stdout + proc.stderr).strip()
    if output:
        print(output)
    results.add(test_id, proc.returncode == 0,
                output or 'exit code %d' % proc.returncode)


class _Recorder(unittest.TextTestResult):
    """Adds each unit test's outcome to ``results`` as it ends."""

    def __init__(self, results, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.results = results

    def addSuccess(self, test):
        super().addSuccess(test)
        self.results.add(test.id(), True)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.results.add(test.id(), False, self.failures[-1][1])

    def addError(self, test, err):
        super().addError(test, err)
        self.results.add(test.id(), False, self.errors[-1][1])

    def addSkip(self, test, reason):
        # The checkers' tests need nothing to be installed: a skip there
        # would hide a check, so it counts as a failure.
        super().addSkip(test, reason)
        self.results.add(test.id(), False, 'skipped: %s' % reason)


def run_unit_tests(results, start_dir=HERE):
    """One result per unit test of the checkers (tests/hacking)."""
    suite = unittest.defaultTestLoader.discover(start_dir,
                                                top_level_dir=start_dir)
    runner = unittest.TextTestRunner(
        resultclass=lambda *a, **kw: _Recorder(results, *a, **kw))
    before = len(results.items)
    runner.run(suite)
    if len(results.items) == before:
        results.add('unit_tests', False,
                    'no unit test found in %s' % start_dir)


def main(results_dir=RESULTS_DIR):
    results = Results()
    run_command(results, 'ruff', RUFF)
    run_command(results, 'import_rules', IMPORT_RULES)
    run_command(results, 'work_refs', WORK_REFS)
    run_unit_tests(results)
    os.makedirs(results_dir, exist_ok=True)
    with open(os.path.join(results_dir, 'pep8.json'), 'w') as f:
        json.dump(results.as_json(), f, indent=1)
    for test_id, _, _ in results.failed:
        print('FAILED: %s' % test_id)
    print('pep8: %d checks, %d failed'
          % (len(results.items), len(results.failed)))
    return 1 if results.failed else 0


if __name__ == '__main__':
    sys.exit(main())
