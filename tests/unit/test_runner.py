"""tests/runner.py takes tox's posargs wherever tox puts them."""

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
