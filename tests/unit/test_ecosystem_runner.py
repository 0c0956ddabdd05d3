"""The ecosystem runner's selection, known-failure list and report
(tests/ecosystem)."""

import os
import re
import tempfile
from unittest import mock

import testtools

from tests.ecosystem import __main__ as runner
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
