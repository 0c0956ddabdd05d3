"""tests/runner.py takes tox's posargs wherever tox puts them."""

import os

import fixtures
import testtools

from tests import runner


class TestRunnerArguments(testtools.TestCase):
    def test_posargs_after_the_filter_replace_it(self):
        args = runner.parse_args(['py3', '--filter', '^tests\\.unit\\.',
                                  'tests.unit.test_conf'])
        self.assertEqual('py3', args.name)
        self.assertEqual(['tests.unit.test_conf'], args.extra)

    def test_no_posargs_keeps_the_filter(self):
        args = runner.parse_args(['integration', '--filter', 'x',
                                  '--concurrency', '2'])
        self.assertEqual([], args.extra)
        self.assertEqual(2, args.concurrency)


class TestRunnerResults(testtools.TestCase):
    """A slice's results are its own run's, or none."""

    def setUp(self):
        super().setUp()
        tmp = self.useFixture(fixtures.TempDir()).path
        self.useFixture(fixtures.MonkeyPatch(
            'tests.runner.RESULTS_DIR', os.path.join(tmp, 'results')))
        self.next_run = os.path.join(tmp, 'next-stream')
        self.useFixture(fixtures.MonkeyPatch(
            'tests.runner.NEXT_RUN', self.next_run))
        self.useFixture(fixtures.MonkeyPatch(
            'sys.argv', ['runner', 'py3', '--filter', 'x']))
        self.results = os.path.join(tmp, 'results', 'py3.subunit')
        self._store(3)
        self.seeded = []
        self.useFixture(fixtures.MonkeyPatch(
            'tests.stestr_times.seed', self.seeded.append))

    def _store(self, number):
        with open(self.next_run, 'w') as f:
            f.write('%d\n' % number)

    def test_a_stored_run_is_written_out(self):
        def call(cmd, stdout=None):
            if 'run' in cmd:
                self._store(4)
                return 1
            stdout.write(b'stream')
            return 0
        self.useFixture(fixtures.MonkeyPatch('subprocess.call', call))
        self.assertEqual(1, runner.main())
        with open(self.results, 'rb') as f:
            self.assertEqual(b'stream', f.read())

    def test_tests_run_when_the_durations_cannot_be_given(self):
        def broken(repository):
            raise OSError('read-only file system')
        self.useFixture(fixtures.MonkeyPatch('tests.stestr_times.seed',
                                             broken))
        ran = []

        def call(cmd, stdout=None):
            if 'run' in cmd:
                ran.append(cmd)
                self._store(4)
            return 0
        self.useFixture(fixtures.MonkeyPatch('subprocess.call', call))
        self.assertEqual(0, runner.main())
        self.assertEqual(1, len(ran))

    def test_the_repository_gets_the_expected_durations_first(self):
        # stestr's scheduler reads them when it splits the run.
        def call(cmd, stdout=None):
            self.assertEqual([os.path.dirname(self.next_run)], self.seeded)
            if 'run' in cmd:
                self._store(4)
            return 0
        self.useFixture(fixtures.MonkeyPatch('subprocess.call', call))
        self.assertEqual(0, runner.main())

    def test_no_stored_run_leaves_no_results_and_fails(self):
        # stestr could not list the tests: its last run is another
        # slice's, which must not be counted as this one's.
        calls = []

        def call(cmd, stdout=None):
            calls.append(cmd)
            return 0
        self.useFixture(fixtures.MonkeyPatch('subprocess.call', call))
        self.assertEqual(1, runner.main())
        self.assertEqual(1, len(calls))
        self.assertFalse(os.path.exists(self.results))
