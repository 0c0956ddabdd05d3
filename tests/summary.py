"""Add up the subunit streams of the slices that ran into one plain line.

``tests/runner.py`` leaves one stream per tox env in ``.ci-results/``
(suites run otherwise, such as ``tox -e compat``, leave ``<env>.json``
with their counts);
``tests/run_tests.sh`` prints ``N passed, M failed, K skipped`` from them,
the line CI reads.
"""

import glob
import json
import os
import sys

import subunit
import testtools


def summarize(results_dir):
    result = testtools.StreamSummary()
    result.startTestRun()
    for path in sorted(glob.glob(os.path.join(results_dir, '*.subunit'))):
        with open(path, 'rb') as stream:
            subunit.ByteStreamToStreamResult(
                stream, non_subunit_name='stdout').run(result)
    result.stopTestRun()
    failed = len(result.errors) + len(result.failures)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped
    # Suites that are not stestr's (tox -e compat) leave their counts.
    for path in sorted(glob.glob(os.path.join(results_dir, '*.json'))):
        with open(path) as f:
            counts = json.load(f)
        passed += counts['passed']
        failed += counts['failed']
        skipped += counts['skipped']
    return passed, failed, skipped


def main(argv):
    passed, failed, skipped = summarize(argv[0] if argv else '.ci-results')
    print('%d passed, %d failed, %d skipped' % (passed, failed, skipped))


if __name__ == '__main__':
    main(sys.argv[1:])
