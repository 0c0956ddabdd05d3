"""The real ``openstack`` client against a real nova-lite-api process.

nova-lite-api runs under gunicorn on a free port (noauth2, SQLite, one
cell with a compute host), with a real nova-lite-placement behind it for
the aggregate mirroring. The clouds.yaml is the keystone-less one of
DEPS_AND_CLIENTS §4: ``nova-lite`` (``auth_type: none``, a project
member) and ``nova-lite-admin`` (``admin_token``), both with
``image_endpoint_override`` pointing at the API's ``/image``.

Admin commands run through the client's shell class in this process
(the same code path without the client's start-up time per command);
member commands run as separate ``openstack`` processes. Skipped when
the openstack client is not installed.
"""

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys

import fixtures
import testtools

from nova_lite.conf import image_catalog
from nova_lite import testing
from tests import db_fixtures
from tests.functional.api import server as api_server


def _openstack_command():
    local = os.path.join(os.path.dirname(sys.executable), 'openstack')
    found = local if os.access(local, os.X_OK) else shutil.which('openstack')
    if found is None:
        return None, 'the openstack command is not installed'
    return found, None


class TestOpenStackClient(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.command, reason = _openstack_command()
        if self.command is None:
            self.skipTest(reason)
        self.useFixture(testing.ConfFixture())
        from tests.functional.placement import server as placement_server
        placement_url = self.useFixture(db_fixtures.SQLiteDatabase()).url
        self.placement = self.useFixture(
            placement_server.PlacementServer(placement_url, 1))
        self.server = self.useFixture(api_server.APIServer(
            placement_endpoint=self.placement.endpoint))
        self._create_providers()
        tmp = self.useFixture(fixtures.TempDir()).path
        clouds = self.server.clouds_yaml(os.path.join(tmp, 'clouds.yaml'))
        for name in [k for k in os.environ if k.startswith('OS_')]:
            self.useFixture(fixtures.EnvironmentVariable(name))
        self.useFixture(fixtures.EnvironmentVariable(
            'OS_CLIENT_CONFIG_FILE', clouds))

    def _create_providers(self):
        import requests
        for index, node_uuid in enumerate(self.server.node_uuids):
            resp = requests.post(
                self.placement.endpoint + '/resource_providers',
                json={'name': 'node-%d' % index, 'uuid': node_uuid},
                headers={'X-Auth-Token': 'admin',
                         'OpenStack-API-Version': 'placement 1.20'},
                timeout=30)
            self.assertIn(resp.status_code, (200, 201), resp.text)

    def _provider_aggregates(self, provider_uuid):
        import requests
        resp = requests.get(
            '%s/resource_providers/%s/aggregates' % (
                self.placement.endpoint, provider_uuid),
            headers={'X-Auth-Token': 'admin',
                     'OpenStack-API-Version': 'placement 1.19'}, timeout=30)
        return resp.json()['aggregates']

    def osc(self, cloud, *args, expect_json=True, expect_rc=0):
        """Run ``openstack --os-cloud cloud args`` through its shell."""
        from openstackclient import shell

        argv = ['--os-cloud', cloud] + list(args) + (
            ['-f', 'json'] if expect_json else [])
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = shell.OpenStackShell().run(argv)
            except SystemExit as exc:
                rc = exc.code
        self.assertEqual(expect_rc, rc, '%s failed: %s%s' % (
            ' '.join(args), out.getvalue(), err.getvalue()))
        if expect_json and rc == 0:
            return json.loads(out.getvalue())
        return out.getvalue() + err.getvalue()

    def admin(self, *args, **kw):
        return self.osc('nova-lite-admin', *args, **kw)

    def member(self, *args, expect_json=True, expect_rc=0):
        """A member command, as a separate ``openstack`` process.

        NOTE(nova_lite): the client keeps authentication state between
        shell runs in one process, so a member command run in-process
        after an admin one would carry the admin token.
        """
        argv = [self.command, '--os-cloud', 'nova-lite'] + list(args) + (
            ['-f', 'json'] if expect_json else [])
        result = subprocess.run(argv, capture_output=True, text=True,
                                timeout=120, env=dict(os.environ))
        self.assertEqual(expect_rc, result.returncode, '%s failed: %s%s' % (
            ' '.join(args), result.stdout, result.stderr))
        if expect_json and result.returncode == 0:
            return json.loads(result.stdout)
        return result.stdout + result.stderr

    def test_member_and_admin_commands(self):
        self._flavors()
        self._images()
        self._hypervisors_and_services()
        self._aggregates_and_zones()
        self._server_groups_and_keypairs()

    def _flavors(self):
        flavor = self.admin('flavor', 'create', '--ram', '512', '--vcpus',
                            '1', '--disk', '1', '--id', '42', 'osc.tiny')
        self.assertEqual('42', flavor['id'])
        names = [f['Name'] for f in self.member('flavor', 'list')]
        # The default flavors come from the API's first start.
        self.assertEqual(['m1.tiny', 'osc.tiny', 'm1.small', 'm1.medium',
                          'm1.large', 'm1.xlarge'], names)
        shown = self.member('flavor', 'show', 'osc.tiny')
        self.assertEqual(512, shown['ram'])
        self.admin('flavor', 'set', '--property', 'hw:cpu_policy=dedicated',
                   'osc.tiny', expect_json=False)
        out = self.admin('flavor', 'set', '--property',
                         'resources:VCPUS=1', 'osc.tiny', expect_json=False,
                         expect_rc=1)
        self.assertIn('resources:VCPUS', out)
        self.member('flavor', 'create', '--ram', '1', '--vcpus', '1',
                    'nope', expect_json=False, expect_rc=1)

    def _images(self):
        images = self.member('image', 'list')
        self.assertEqual([image_catalog.DEFAULT_IMAGE_UUID],
                         [i['ID'] for i in images])
        shown = self.member('image', 'show', 'cirros-0.6.3-x86_64-disk')
        self.assertEqual(image_catalog.DEFAULT_IMAGE_UUID, shown['id'])

    def _hypervisors_and_services(self):
        hypervisors = self.admin('hypervisor', 'list')
        self.assertEqual(['host1-node-0'],
                         [h['Hypervisor Hostname'] for h in hypervisors])
        shown = self.admin('hypervisor', 'show', 'host1-node-0')
        self.assertEqual('host1', shown['service_host'])
        self.member('hypervisor', 'list', expect_json=False, expect_rc=1)
        services = self.admin('compute', 'service', 'list')
        self.assertEqual([('host1', 'enabled', 'up')],
                         [(s['Host'], s['Status'], s['State'])
                          for s in services])
        self.admin('compute', 'service', 'set', '--disable',
                   '--disable-reason', 'maintenance', 'host1',
                   'nova-compute', expect_json=False)
        services = self.admin('compute', 'service', 'list', '--long')
        self.assertEqual(('disabled', 'maintenance'),
                         (services[0]['Status'],
                          services[0]['Disabled Reason']))
        self.admin('compute', 'service', 'set', '--enable', 'host1',
                   'nova-compute', expect_json=False)

    def _aggregates_and_zones(self):
        aggregate = self.admin('aggregate', 'create', '--zone', 'az1',
                               'agg1')
        self.assertEqual('az1', aggregate['availability_zone'])
        added = self.admin('aggregate', 'add', 'host', 'agg1', 'host1')
        self.assertEqual(['host1'], added['hosts'])
        self.admin('aggregate', 'set', '--property', 'ssd=true', 'agg1',
                   expect_json=False)
        shown = self.admin('aggregate', 'show', 'agg1')
        self.assertEqual('true', shown['properties']['ssd'])
        self.assertEqual([shown['uuid']], self._provider_aggregates(
            self.server.node_uuids[0]))
        # NOTE(nova_lite): without --compute the client also asks the
        # volume and network services, which need Keystone's discovery.
        zones = self.member('availability', 'zone', 'list', '--compute')
        self.assertEqual(['az1'], [z['Zone Name'] for z in zones])
        zones = self.admin('availability', 'zone', 'list', '--compute',
                           '--long')
        self.assertIn(('az1', 'host1'), [(z['Zone Name'], z['Host Name'])
                                         for z in zones])

    def _server_groups_and_keypairs(self):
        group = self.member('server', 'group', 'create', '--policy',
                            'anti-affinity', 'grp')
        self.assertEqual('grp', group['name'])
        keypair = self.member('keypair', 'create', '--private-key',
                              os.devnull, 'k1')
        self.assertEqual('k1', keypair['name'])
        self.assertEqual(['k1'], [k['Name'] for k in self.member(
            'keypair', 'list')])

    def test_a_real_openstack_process(self):
        result = subprocess.run(
            [self.command, '--os-cloud', 'nova-lite-admin', 'flavor',
             'list', '-f', 'json'], capture_output=True, text=True,
            timeout=120, env=dict(os.environ))
        self.assertEqual(0, result.returncode, result.stderr)
        self.assertIn('m1.tiny',
                      [f['Name'] for f in json.loads(result.stdout)])
