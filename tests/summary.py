"""Add up the subunit streams of the slices that ran into one plain line.

``tests/runner.py`` leaves one stream per tox env in ``.ci-results/``
(suites run otherwise, such as ``tox -e compat``, leave ``<env>.json``
with their counts);
``tests/run_tests.sh`` prints ``N passed, M failed, K skipped`` from them,
the line CI reads, after the name of each failed test and the end of its
traceback: CI shows only a part of a long output, and its end is the part
that tells which test to look at.
"""

import glob
import json
import os
import sys

import subunit
import testtools


# Lines of each failure's traceback printed beside its name.
TRACEBACK_TAIL = 6


def summarize(results_dir):
    """(passed, failed, skipped, [(slice, test id, traceback tail)])."""
    failures = []
    passed, failed, skipped = 0, 0, 0
    for path in sorted(glob.glob(os.path.join(results_dir, '*.subunit'))):
        counts, failed_here = _read_stream(path)
        passed, failed, skipped = (
            passed + counts[0], failed + counts[1], skipped + counts[2])
        name = os.path.basename(path)[:-len('.subunit')]
        failures.extend((name, test_id, tail) for test_id, tail in failed_here)
    # Suites that are not stestr's (tox -e compat) leave their counts.
    for path in sorted(glob.glob(os.path.join(results_dir, '*.json'))):
        with open(path) as f:
            counts = json.load(f)
        passed += counts['passed']
        failed += counts['failed']
        skipped += counts['skipped']
        name = os.path.basename(path)[:-len('.json')]
        failures.extend((name, str(item), '')
                        for item in counts.get('failures', []))
    return passed, failed, skipped, failures


def _read_stream(path):
    result = testtools.StreamSummary()
    result.startTestRun()
    with open(path, 'rb') as stream:
        subunit.ByteStreamToStreamResult(
            stream, non_subunit_name='stdout').run(result)
    result.stopTestRun()
    failed = len(result.errors) + len(result.failures)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped
    failed_here = [(test.id(), _tail(details))
                   for test, details in result.errors + result.failures]
    return (passed, failed, skipped), failed_here


def _tail(details):
    lines = [line for line in str(details).splitlines() if line.strip()]
    return '\n'.join(lines[-TRACEBACK_TAIL:])


def main(argv):
    passed, failed, skipped, failures = summarize(
        argv[0] if argv else '.ci-results')
    for name, test_id, tail in failures:
        print('FAILED in %s: %s' % (name, test_id))
        for line in tail.splitlines():
            print('    ' + line)
    print('%d passed, %d failed, %d skipped' % (passed, failed, skipped))


if __name__ == '__main__':
    main(sys.argv[1:])
