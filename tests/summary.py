"""Add up what every tox env of a run left into one plain line.

``tests/runner.py`` leaves one subunit stream per tox env in
``.ci-results/``; suites run otherwise leave ``<env>.json`` with their
counts (``tox -e compat``, ``tox -e tempest``, and ``tox -e pep8``, whose
each check is a result). ``tests/run_tests.sh`` prints ``N passed, M
failed, K skipped`` from them, the line CI reads, after the name of each
failed test and the end of its traceback: CI shows only a part of a long
output, and its end is the part that tells which test to look at.

Results alone cannot tell an env that never ran its tests (its virtualenv
would not install, its command was not found, tox skipped it) from one
that was not asked for, so tox's own report of the run (``--result-json``)
is read too: an env that failed without a failed test to show for it is
one failed result, and a tox that failed before it could report is one
failed result too. An env that leaves no results by design (``genconfig``)
is one result, passed or failed as tox says. Exits non-zero when anything
failed.
"""

import argparse
import glob
import json
import os
import sys

# Lines of each failure's traceback printed beside its name.
TRACEBACK_TAIL = 6


class Totals:
    """Counts and failures, added up over the results of a run."""

    def __init__(self):
        self.passed, self.failed, self.skipped = 0, 0, 0
        # (env, test id, traceback tail)
        self.failures = []

    def add(self, name, counts, failures):
        self.passed += counts[0]
        self.failed += counts[1]
        self.skipped += counts[2]
        self.failures.extend((name, test_id, tail)
                             for test_id, tail in failures)

    def fail(self, name, test_id, why):
        self.add(name, (0, 1, 0), [(test_id, why)])

    @property
    def line(self):
        return '%d passed, %d failed, %d skipped' % (
            self.passed, self.failed, self.skipped)


def summarize(results_dir, tox_json=None, tox_exit_code=0):
    """The :class:`Totals` of ``results_dir`` and tox's report."""
    totals = Totals()
    by_env = {}
    for path in sorted(glob.glob(os.path.join(results_dir, '*.subunit'))):
        name = os.path.basename(path)[:-len('.subunit')]
        by_env[name] = _read_stream(path)
    for path in sorted(glob.glob(os.path.join(results_dir, '*.json'))):
        name = os.path.basename(path)[:-len('.json')]
        by_env[name] = _read_counts(path)
    for name, (counts, failures) in sorted(by_env.items()):
        totals.add(name, counts, failures)
    _add_tox_report(totals, by_env, tox_json)
    if tox_exit_code and not totals.failed:
        totals.fail('tox', 'tox', 'tox exited %d and no env reported a '
                    'failure: see its output above' % tox_exit_code)
    return totals


def _read_stream(path):
    """((passed, failed, skipped), [(test id, tail)]) of a subunit file."""
    try:
        import subunit
        import testtools
    except ImportError as exc:
        return (0, 1, 0), [(os.path.basename(path),
                            'cannot read it here (%s)' % exc)]
    result = testtools.StreamSummary()
    result.startTestRun()
    with open(path, 'rb') as stream:
        subunit.ByteStreamToStreamResult(
            stream, non_subunit_name='stdout').run(result)
    result.stopTestRun()
    failed = len(result.errors) + len(result.failures)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped
    failures = [(test.id(), _tail(details))
                for test, details in result.errors + result.failures]
    return (passed, failed, skipped), failures


def _read_counts(path):
    """The same from a ``<env>.json`` of counts."""
    with open(path) as f:
        counts = json.load(f)
    failures = []
    for item in counts.get('failures', []):
        if isinstance(item, dict):
            failures.append((item['test'], _tail(item.get('detail', ''))))
        else:
            failures.append((str(item), ''))
    return (counts['passed'], counts['failed'], counts['skipped']), failures


def _add_tox_report(totals, by_env, tox_json):
    """One failed result per env tox ran that failed unaccounted for."""
    if not tox_json or not os.path.exists(tox_json):
        return
    with open(tox_json) as f:
        envs = json.load(f).get('testenvs', {})
    for name, journal in sorted(envs.items()):
        result = journal.get('result')
        if result is None:
            continue  # a packaging env: its failure fails a run env too
        test_id = 'tox.%s' % name
        if result.get('skipped'):
            totals.fail(name, test_id, 'tox skipped it (an interpreter or '
                        'a requirement it needs is missing)')
        elif name not in by_env:
            if result['success']:
                totals.add(name, (1, 0, 0), [])
            else:
                totals.fail(name, test_id, 'exit code %s and no results: '
                            'it could not run its tests (see tox\'s output)'
                            % result['exit_code'])
        elif not result['success'] and not by_env[name][0][1]:
            totals.fail(name, test_id, 'exit code %s with no failed test '
                        'in its results' % result['exit_code'])


def _tail(details):
    lines = [line for line in str(details).splitlines() if line.strip()]
    return '\n'.join(lines[-TRACEBACK_TAIL:])


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('results_dir', nargs='?', default='.ci-results')
    parser.add_argument('--tox-json', help="tox's --result-json file")
    parser.add_argument('--tox-exit-code', type=int, default=0)
    return parser.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    totals = summarize(args.results_dir, args.tox_json, args.tox_exit_code)
    for name, test_id, tail in totals.failures:
        print('FAILED in %s: %s' % (name, test_id))
        for line in tail.splitlines():
            print('    ' + line)
    print(totals.line)
    return 1 if totals.failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
