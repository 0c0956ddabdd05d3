"""The options devstack/lib/lab.sh gives every lab process."""

import configparser
import os
import subprocess

import fixtures
import testtools

DEVSTACK = os.path.join(os.path.dirname(__file__), '..', '..', 'devstack')


class TestCommonOptions(testtools.TestCase):
    def _common_opts(self):
        env = dict(os.environ, NOVA_LITE_STATE_DIR=self.useFixture(
            fixtures.TempDir()).path)
        out = subprocess.run(
            ['bash', '-c', 'source lib/settings.sh >/dev/null 2>&1; '
             'source lib/keystone.sh; source lib/lab.sh; _nl_common_opts'],
            cwd=DEVSTACK, env=env, capture_output=True, text=True,
            timeout=30, check=True).stdout
        parser = configparser.ConfigParser()
        parser.read_string(out)
        return parser

    def test_resize_to_same_host_as_devstack(self):
        # devstack turns it on; with one compute per cell every resize
        # would be NoValidHost otherwise.
        self.assertEqual('True', self._common_opts().get(
            'DEFAULT', 'allow_resize_to_same_host'))
