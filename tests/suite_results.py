"""Results of suites that are not stestr's, as a subunit stream.

``tox -e faults`` and ``tox -e fuzz`` check invariants of a lab rather
than run test cases; each invariant they check (a fault, a count of the
fuzz run) becomes one test id here, in ``.ci-results/<suite>.subunit``,
so that ``tests/summary.py`` counts it in CI's ``N passed, M failed, K
skipped`` line and a broken invariant fails CI with its reason attached.
"""

import datetime
import os

import subunit

RESULTS_DIR = '.ci-results'


class Results:
    """Collects ``(test id, status, reason)``; :meth:`write` saves them."""

    STATUSES = ('success', 'fail', 'skip')

    def __init__(self, suite):
        self.suite = suite
        self.items = []

    def add(self, name, status, reason=''):
        if status not in self.STATUSES:
            raise ValueError('status %r' % status)
        self.items.append(('tests.%s.%s' % (self.suite, name), status,
                           reason))

    def check(self, name, ok, reason=''):
        """A passed or failed test ``name``; ``reason`` says why."""
        self.add(name, 'success' if ok else 'fail', reason)

    @property
    def counts(self):
        return {status: sum(1 for _, s, _ in self.items if s == status)
                for status in self.STATUSES}

    def write(self, results_dir=RESULTS_DIR):
        """Write ``<results_dir>/<suite>.subunit``; return its path."""
        os.makedirs(results_dir, exist_ok=True)
        path = os.path.join(results_dir, '%s.subunit' % self.suite)
        now = datetime.datetime.now(datetime.timezone.utc)
        with open(path, 'wb') as f:
            stream = subunit.StreamResultToBytes(f)
            for test_id, status, reason in self.items:
                stream.status(test_id=test_id, test_status='inprogress',
                              timestamp=now)
                stream.status(test_id=test_id, test_status=status,
                              file_name='reason',
                              file_bytes=(reason or '').encode('utf-8'),
                              mime_type='text/plain; charset=utf8',
                              eof=True, timestamp=now)
        return path
