"""Run one slice of the test suite with stestr and keep its results.

Every tox environment calls this instead of ``stestr run`` directly so that
the subunit stream of each slice lands in ``.ci-results/<env>.subunit``;
``tests/run_tests.sh`` adds them up into the plain ``N passed, M failed, K
skipped`` line (tests/summary.py). The exit code is stestr's: non-zero when
any test failed or none ran.
"""

import argparse
import os
import subprocess
import sys

from tests import stestr_times

RESULTS_DIR = '.ci-results'
# stestr's repository (.stestr.conf), shared by every env: the number of
# the run it will store next tells whether this slice stored one.
NEXT_RUN = os.path.join('.stestr', 'next-stream')


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('name', help='name of the slice (the tox env)')
    parser.add_argument('--filter', required=True,
                        help='regex of the test ids to run')
    parser.add_argument('--concurrency', type=int, default=0)
    parser.add_argument('extra', nargs='*',
                        help='further filters (tox posargs)')
    # tox appends its posargs after --filter: positionals may come last.
    return parser.parse_intermixed_args(argv)


def main():
    args = parse_args()

    cmd = [sys.executable, '-m', 'stestr', 'run']
    if args.concurrency:
        cmd += ['--concurrency', str(args.concurrency)]
    cmd += args.extra or [args.filter]
    # A fresh clone's repository has no durations: stestr would deal the
    # long tests to its workers round-robin (tests/stestr_times.py).
    try:
        stestr_times.seed(os.path.dirname(NEXT_RUN))
    except (OSError, subprocess.CalledProcessError) as e:
        # Only the split between workers suffers: run the tests anyway.
        print('%s: no expected durations for stestr (%s)' % (args.name, e))
    before = _next_run()
    rc = subprocess.call(cmd)

    os.makedirs(RESULTS_DIR, exist_ok=True)
    path = os.path.join(RESULTS_DIR, '%s.subunit' % args.name)
    if _next_run() == before:
        # stestr stored no run (it could not list the tests): its last run
        # is another slice's, whose results must not count as this one's.
        print('%s: stestr stored no results (exit code %d)'
              % (args.name, rc))
        return rc or 1
    with open(path, 'wb') as out:
        subprocess.call([sys.executable, '-m', 'stestr', 'last',
                         '--subunit'], stdout=out)
    return rc


def _next_run():
    try:
        with open(NEXT_RUN) as f:
            return f.read().strip()
    except OSError:
        return None


if __name__ == '__main__':
    sys.exit(main())
