"""The options devstack/lib/lab.sh gives every lab process."""

import configparser
import os
import shutil
import subprocess

import fixtures
import testtools

DEVSTACK = os.path.join(os.path.dirname(__file__), '..', '..', 'devstack')


def lab_function(test, name, **env):
    """What the function ``name`` of devstack/lib/lab.sh prints, after
    settings.sh (a state directory of the test's own; ``env`` on top)."""
    env = dict(os.environ, NOVA_LITE_STATE_DIR=test.useFixture(
        fixtures.TempDir()).path, **env)
    return subprocess.run(
        ['bash', '-c', 'source lib/settings.sh >/dev/null 2>&1; '
         'source lib/keystone.sh; source lib/lab.sh; %s' % name],
        cwd=DEVSTACK, env=env, capture_output=True, text=True,
        timeout=30, check=True).stdout


class TestVirtualenvPython(testtools.TestCase):
    CAN_MAKE_A_VENV = ('import sys, ensurepip, venv\n'
                       'sys.exit(sys.version_info < (3, 11))')

    def test_the_setting_wins(self):
        self.assertEqual('/opt/py/bin/python3', lab_function(
            self, 'nl_python', NOVA_LITE_PYTHON='/opt/py/bin/python3').strip())

    def test_the_distributions_python_first(self):
        """Built with PGO and LTO, it runs the lab faster than a default
        pyenv build that may come first on PATH."""
        chosen = lab_function(self, 'nl_python', NOVA_LITE_PYTHON='').strip()
        self.assertEqual(0, subprocess.run(
            [chosen, '-c', self.CAN_MAKE_A_VENV]).returncode)
        distro = subprocess.run(['/usr/bin/python3', '-c',
                                 self.CAN_MAKE_A_VENV]).returncode == 0 \
            if os.path.exists('/usr/bin/python3') else False
        if distro:
            self.assertEqual('/usr/bin/python3', chosen)
        else:
            self.assertEqual('python3', chosen)


class TestCommonOptions(testtools.TestCase):
    def _common_opts(self):
        out = lab_function(self, '_nl_common_opts')
        parser = configparser.ConfigParser()
        parser.read_string(out)
        return parser

    def test_resize_to_same_host_as_devstack(self):
        # devstack turns it on; with one compute per cell every resize
        # would be NoValidHost otherwise.
        self.assertEqual('True', self._common_opts().get(
            'DEFAULT', 'allow_resize_to_same_host'))

    def test_notifications_on_the_api_bus(self):
        parser = self._common_opts()
        self.assertEqual('versioned', parser.get(
            'notifications', 'notification_format'))
        self.assertEqual('messagingv2', parser.get(
            'oslo_messaging_notifications', 'driver'))
        url = parser.get('oslo_messaging_notifications', 'transport_url')
        # The API bus is the lab's first vhost, named after the lab.
        self.assertTrue(url.startswith('rabbit://'), url)
        self.assertEqual('nova_lite', url.rsplit('/', 1)[1])

    def test_notifications_none_means_the_noop_driver(self):
        out = lab_function(self, '_nl_common_opts',
                           NOVA_LITE_NOTIFICATIONS='none')
        parser = configparser.ConfigParser()
        parser.read_string(out)
        self.assertEqual('noop', parser.get('oslo_messaging_notifications',
                                            'driver'))


class TestVirtualenvInstaller(testtools.TestCase):
    """uv fills the lab's virtualenv when it can be had, else pip."""

    FIND = ('source lib/services.sh; nl_find_uv; '
            'echo "rc=$? uv=$NL_UV"')

    def test_false_means_pip(self):
        out = lab_function(self, self.FIND, NOVA_LITE_USE_UV='False')
        self.assertIn('NOVA_LITE_USE_UV=False: pip', out)
        self.assertIn('rc=1 uv=\n', out)

    def test_the_uv_on_path_first(self):
        bindir = self.useFixture(fixtures.TempDir()).path
        fake = os.path.join(bindir, 'uv')
        with open(fake, 'w') as f:
            f.write('#!/bin/sh\necho uv 0.0.1\n')
        os.chmod(fake, 0o755)
        out = lab_function(self, self.FIND,
                           PATH=bindir + os.pathsep + os.environ['PATH'])
        self.assertIn('using uv 0.0.1 from PATH', out)
        self.assertIn('rc=0 uv=%s\n' % fake, out)

    def test_pip_when_uv_cannot_be_installed(self):
        path = '/usr/bin:/bin'
        if shutil.which('uv', path=path):
            self.skipTest('uv is installed in %s' % path)
        out = lab_function(self, self.FIND, PATH=path,
                           NOVA_LITE_UV_HOME='/proc/no/such/uv')
        self.assertIn('uv cannot be had', out)
        self.assertIn('rc=1 uv=\n', out)
