"""The ecosystem runner's selection, known-failure list and report
(tests/ecosystem)."""

import os
import re
import subprocess
import sys
import tempfile
from unittest import mock

import testtools

from tests.ecosystem import __main__ as runner
from tests.ecosystem import cli_server
from tests.ecosystem import known_failures
from tests.ecosystem import selection

SDK_NET = 'openstack.tests.functional.network.v2.'


class TestSelection(testtools.TestCase):

    def test_regex_finds_tests_and_class_fixtures_of_its_modules(self):
        regex = selection.regex_of(['openstack.tests.functional.image'])
        self.assertTrue(re.search(
            regex, 'openstack.tests.functional.image.v2.test_x.T.test_a'))
        self.assertTrue(re.search(
            regex, 'setUpClass (openstack.tests.functional.image.v2.X.T)'))
        self.assertFalse(re.search(
            regex, 'openstack.tests.functional.imagex.T.test_a'))

    def test_workspace_names_only_the_chosen_modules(self):
        workspace = tempfile.mkdtemp()
        self.addCleanup(__import__('shutil').rmtree, workspace)
        selection.write_workspace(workspace, ['openstackclient common'])
        with open(os.path.join(workspace, selection.SHIM,
                               '__init__.py')) as f:
            text = f.read()
        self.assertIn("'openstackclient.tests.functional.common'", text)
        self.assertNotIn('openstack.tests.functional.image', text)
        self.assertTrue(os.path.exists(
            os.path.join(workspace, 'CONTRIBUTING.rst')))


class TestKnownFailures(testtools.TestCase):

    def test_every_entry_compiles_and_names_a_selected_module(self):
        regex = selection.regex_of(selection.names())
        for feature, reason, patterns in known_failures.KNOWN:
            self.assertTrue(reason, feature)
            for pattern in patterns:
                re.compile(pattern)
                self.assertTrue(re.search(regex, pattern.replace('\\', '')),
                                pattern)

    def test_report_counts_known_failures_as_skipped(self):
        feature, _reason, patterns = known_failures.KNOWN[0]
        known = patterns[0].replace('\\', '').replace('.*', 'test_x')
        found = {known: 'failed', SDK_NET + 'T.test_ok': 'passed',
                 SDK_NET + 'T.test_new_failure': 'failed',
                 SDK_NET + 'T.test_skip': 'skipped'}
        lines, totals = runner.report(found, None, 1.0)
        self.assertEqual((1, 1, 2), totals)
        text = '\n'.join(lines)
        self.assertIn('FAILED ' + SDK_NET + 'T.test_new_failure', text)
        self.assertIn(feature, text)

    def test_class_fixture_matches_as_its_class(self):
        port_tests = ('openstackclient.tests.functional.network.v2.'
                      'test_port.PortTests')
        rules = [('trunks', re.compile(re.escape(port_tests)), 'why')]
        with mock.patch.object(known_failures, '_RULES', rules):
            self.assertEqual(('trunks', 'why'), known_failures.match(
                'tearDownClass (%s)' % port_tests))
            self.assertIsNone(known_failures.match(
                port_tests + '.test_port_list'))
            self.assertIsNone(known_failures.match(SDK_NET + 'T.test_new'))

    def test_known_failure_that_passed_is_reported(self):
        _feature, _reason, patterns = known_failures.KNOWN[0]
        known = patterns[0].replace('\\', '').replace('.*', 'test_x')
        lines, totals = runner.report({known: 'passed'}, None, 1.0)
        self.assertEqual((1, 0, 0), totals)
        self.assertIn('take it off', '\n'.join(lines))


class TestForkedCli(testtools.TestCase):
    """The ``openstack`` of the CLI server answers as the installed
    console script does: output, errors, exit codes, working directory
    and environment are the command's own."""

    def setUp(self):
        super().setUp()
        self.workspace = tempfile.mkdtemp()
        self.addCleanup(__import__('shutil').rmtree, self.workspace)
        cli = cli_server.forked_cli(self.workspace)
        self.bindir = cli.__enter__()
        self.addCleanup(cli.__exit__, None, None, None)

    def run_both(self, *args, cwd=None, env=None):
        """(forked, installed) results of ``openstack *args``."""
        results = []
        for first in (self.bindir, os.path.dirname(sys.executable)):
            run_env = dict(env or os.environ)
            run_env['PATH'] = first + os.pathsep + os.environ['PATH']
            results.append(subprocess.run(
                ['openstack', *args], capture_output=True, text=True,
                cwd=cwd or self.workspace, env=run_env))
        return results

    def test_output_and_exit_codes_are_the_scripts(self):
        for args in (['--version'], ['no-such-command']):
            forked, installed = self.run_both(*args)
            self.assertEqual(installed.returncode, forked.returncode)
            self.assertEqual(installed.stdout, forked.stdout)
            self.assertEqual(installed.stderr, forked.stderr)
        self.assertEqual(2, forked.returncode)
        self.assertIn("'no-such-command' is not an openstack command",
                      forked.stdout + forked.stderr)

    def test_reads_the_commands_clouds_and_environment(self):
        with open(os.path.join(self.workspace, 'clouds.yaml'), 'w') as f:
            f.write('clouds:\n  here:\n    auth_type: none\n'
                    '    endpoint: http://127.0.0.1:9\n')
        env = dict(os.environ, OS_CLOUD='elsewhere')
        forked, _ = self.run_both('server', 'list', env=env)
        self.assertEqual(1, forked.returncode)
        self.assertIn('Cloud elsewhere was not found', forked.stderr)
