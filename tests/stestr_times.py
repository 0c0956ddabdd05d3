"""Expected test durations for stestr's scheduler on a fresh clone.

stestr splits the tests of a run between its workers by the durations
its repository recorded in earlier runs; a test it has never timed is
dealt round-robin, so on a fresh clone (CI's) one worker can draw most
of the long tests and finish minutes after the other. ``seed`` gives the
repository the durations of ``tests/stestr_times.json`` for the tests it
has not timed yet (times it recorded itself win); the tests that run do
not change, only which worker runs them.

    python -m tests.stestr_times write [--min-seconds S]

rewrites ``tests/stestr_times.json`` from this clone's repository (after
a run of the envs whose long tests matter: py3, integration-long...),
keeping the tests of at least S seconds (default 2). Only the ratios
matter: a loaded machine's durations serve.
"""

import argparse
from dbm import dumb
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TIMES_FILE = os.path.join(HERE, 'stestr_times.json')
# stestr's repository (.stestr.conf's default), in the working directory.
REPOSITORY = '.stestr'


def _times_db(repository):
    return os.path.join(repository, 'times.dbm')


def load(path=TIMES_FILE):
    """{test id: seconds} of the expected-times file ({} without one)."""
    try:
        with open(path) as f:
            return json.load(f)['seconds']
    except FileNotFoundError:
        return {}


def seed(repository=REPOSITORY, expected=None):
    """Give the repository (made first when missing) the expected
    durations of the tests it has no time for; how many it was given."""
    expected = load() if expected is None else expected
    if not os.path.exists(os.path.join(repository, 'format')):
        subprocess.check_call(
            [sys.executable, '-m', 'stestr', 'init'],
            cwd=os.path.dirname(os.path.abspath(repository)),
            stdout=subprocess.DEVNULL)
    db = dumb.open(_times_db(repository), 'c')
    try:
        missing = {test_id: seconds for test_id, seconds in expected.items()
                   if test_id.encode() not in db}
        for test_id, seconds in missing.items():
            db[test_id] = str(seconds)
    finally:
        db.close()
    return len(missing)


def recorded(repository=REPOSITORY):
    """{test id: seconds} the repository recorded."""
    db = dumb.open(_times_db(repository), 'r')
    try:
        return {key.decode(): float(db[key]) for key in db.keys()}
    finally:
        db.close()


def write(times, min_seconds, path=TIMES_FILE):
    """Merge ``times`` (those of at least ``min_seconds``) into the
    file; the tests ``times`` has under that leave it."""
    kept = {t: s for t, s in load(path).items() if t not in times}
    kept.update({t: round(s, 1) for t, s in times.items()
                 if s >= min_seconds})
    with open(path, 'w') as f:
        json.dump({'seconds': dict(sorted(kept.items()))}, f, indent=0)
        f.write('\n')
    return len(kept)


def main(argv=None):
    parser = argparse.ArgumentParser(prog='python -m tests.stestr_times')
    parser.add_argument('command', choices=['write'])
    parser.add_argument('--min-seconds', type=float, default=2.0)
    parser.add_argument('--repository', default=REPOSITORY)
    args = parser.parse_args(argv)
    count = write(recorded(args.repository), args.min_seconds)
    print('%s: %d tests' % (TIMES_FILE, count))
    return 0


if __name__ == '__main__':
    sys.exit(main())
