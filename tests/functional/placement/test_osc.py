"""osc-placement against a running nova-lite-placement (noauth2, admin).

The ``openstack`` command authenticates with keystoneauth's
``admin_token`` plugin, which sends a chosen token to a fixed endpoint:
``--os-auth-type admin_token --os-endpoint URL --os-token admin`` (or
``OS_AUTH_TYPE=admin_token OS_ENDPOINT=URL OS_TOKEN=admin``). The
``none`` auth type sends the token ``notused``, which noauth2 treats as a
plain user, so placement answers 403 to it. Skipped when the ``openstack``
command or osc-placement is not installed.

Two commands run as real ``openstack`` processes (the console script end
to end); the others run through the same shell class in this process,
which is the same code path without paying the client's start-up time
(about 1.5 s) per command.
"""

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import uuid

import fixtures
import testtools

from tests import db_fixtures
from tests.functional.placement import server

CONSUMER = str(uuid.uuid4())
AGGREGATE = str(uuid.uuid4())


def _openstack_command():
    local = os.path.join(os.path.dirname(sys.executable), 'openstack')
    found = local if os.access(local, os.X_OK) else shutil.which('openstack')
    if found is None:
        return None, 'the openstack command is not installed'
    try:
        import osc_placement  # noqa: F401
    except ImportError:
        return None, 'osc-placement is not installed'
    return found, None


class TestOpenStackClient(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.command, reason = _openstack_command()
        if self.command is None:
            self.skipTest(reason)
        url = self.useFixture(db_fixtures.SQLiteDatabase()).url
        self.placement = self.useFixture(server.PlacementServer(url, 2))
        self.os_env = dict(OS_AUTH_TYPE='admin_token', OS_TOKEN='admin',
                           OS_ENDPOINT=self.placement.endpoint,
                           OS_PLACEMENT_API_VERSION='1.39')
        for name in [k for k in os.environ if k.startswith('OS_')]:
            self.useFixture(fixtures.EnvironmentVariable(name))
        for name, value in self.os_env.items():
            self.useFixture(fixtures.EnvironmentVariable(name, value))

    def osc_process(self, *args):
        """Run ``openstack args -f json`` as a separate process."""
        env = dict(os.environ)
        env.update(self.os_env)
        result = subprocess.run([self.command] + list(args) + ['-f', 'json'],
                                env=env, capture_output=True, text=True,
                                timeout=120)
        self.assertEqual(0, result.returncode,
                         '%s failed: %s' % (' '.join(args), result.stderr))
        return json.loads(result.stdout)

    def osc(self, *args, expect_json=True, expect_rc=0):
        """Run one openstack command through its shell, in this process."""
        from openstackclient import shell

        argv = list(args) + (['-f', 'json'] if expect_json else [])
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = shell.OpenStackShell().run(argv)
        self.assertEqual(expect_rc, rc, '%s failed: %s'
                         % (' '.join(args), err.getvalue()))
        if expect_json and rc == 0:
            return json.loads(out.getvalue())
        return out.getvalue() + err.getvalue()

    def _providers(self):
        rp = self.osc('resource', 'provider', 'create', 'osc-rp')
        self.assertEqual('osc-rp', rp['name'])
        listed = self.osc('resource', 'provider', 'list')
        self.assertEqual([rp['uuid']], [p['uuid'] for p in listed])
        shown = self.osc('resource', 'provider', 'show', rp['uuid'])
        self.assertEqual(rp['uuid'], shown['root_provider_uuid'])
        renamed = self.osc('resource', 'provider', 'set', rp['uuid'],
                           '--name', 'osc-renamed')
        self.assertEqual('osc-renamed', renamed['name'])
        return rp['uuid']

    def _inventories(self, rp):
        self.osc('resource', 'provider', 'inventory', 'set', rp,
                 '--resource', 'VCPU=8', '--resource', 'MEMORY_MB=1024')
        listed = self.osc('resource', 'provider', 'inventory', 'list', rp)
        self.assertEqual({'VCPU': 8, 'MEMORY_MB': 1024},
                         {i['resource_class']: i['total'] for i in listed})

    def _allocations(self, rp):
        self.osc('resource', 'provider', 'allocation', 'set', CONSUMER,
                 '--allocation', 'rp=%s,VCPU=2' % rp, '--project-id', 'p',
                 '--user-id', 'u', '--consumer-type', 'INSTANCE')
        shown = self.osc('resource', 'provider', 'allocation', 'show',
                         CONSUMER)
        self.assertEqual({'VCPU': 2}, shown[0]['resources'])
        usage = self.osc('resource', 'provider', 'usage', 'show', rp)
        self.assertIn({'resource_class': 'VCPU', 'usage': 2}, usage)

    def _traits(self, rp):
        self.osc('trait', 'create', 'CUSTOM_OSC', expect_json=False)
        names = [t['name'] for t in self.osc('trait', 'list')]
        self.assertIn('CUSTOM_OSC', names)
        self.assertIn('HW_CPU_X86_AVX2', names)
        self.osc('resource', 'provider', 'trait', 'set', rp,
                 '--trait', 'CUSTOM_OSC', '--trait', 'HW_CPU_X86_AVX2')
        listed = self.osc('resource', 'provider', 'trait', 'list', rp)
        self.assertEqual({'CUSTOM_OSC', 'HW_CPU_X86_AVX2'},
                         {t['name'] for t in listed})

    def _classes_and_aggregates(self, rp):
        self.osc('resource', 'class', 'create', 'CUSTOM_OSC_RC',
                 expect_json=False)
        names = [c['name'] for c in self.osc('resource', 'class', 'list')]
        self.assertIn('CUSTOM_OSC_RC', names)
        generation = self.osc('resource', 'provider', 'show',
                              rp)['generation']
        self.osc('resource', 'provider', 'aggregate', 'set', rp,
                 '--aggregate', AGGREGATE, '--generation', str(generation))
        listed = self.osc('resource', 'provider', 'aggregate', 'list', rp)
        self.assertEqual([AGGREGATE], [a['uuid'] for a in listed])

    def _cleanup(self, rp):
        self.osc('resource', 'provider', 'allocation', 'delete', CONSUMER,
                 expect_json=False)
        self.osc('resource', 'provider', 'inventory', 'delete', rp,
                 '--resource-class', 'VCPU', expect_json=False)
        self.osc('resource', 'provider', 'trait', 'delete', rp,
                 expect_json=False)
        self.osc('trait', 'delete', 'CUSTOM_OSC', expect_json=False)
        self.osc('resource', 'provider', 'delete', rp, expect_json=False)
        self.assertEqual([], self.osc_process('resource', 'provider', 'list'))

    def _auth_type_none_is_not_admin(self):
        env = dict(os.environ, OS_AUTH_TYPE='none',
                   OS_ENDPOINT=self.placement.endpoint)
        env.pop('OS_TOKEN', None)
        result = subprocess.run(
            [self.command, 'resource', 'provider', 'list'], env=env,
            capture_output=True, text=True, timeout=120)
        self.assertEqual(1, result.returncode, result.stdout)
        self.assertIn('HTTP 403', result.stderr)

    def test_osc_placement_commands(self):
        rp = self._providers()
        self._inventories(rp)
        self._allocations(rp)
        self._traits(rp)
        self._classes_and_aggregates(rp)
        self._cleanup(rp)
        # NOTE(nova_lite): one test on purpose: the client caches its
        # configuration per process, so one process talks to one server.
        self._auth_type_none_is_not_admin()
