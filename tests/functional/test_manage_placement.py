"""``nova-lite-manage placement heal_allocations`` and ``audit``, for real.

A cloud runs in-process (:mod:`nova_lite.testing.integrated`: SQLite
files for the API and cell databases, placement on a SQLite file); a real
``nova-lite-placement`` process serves that same placement database over
HTTP, and the commands run as ``python -m nova_lite.cmd.manage`` in a
subprocess with a configuration file naming the API database and that
endpoint, as an operator would run them.
"""

import os
import subprocess
import sys

import fixtures
from oslo_utils import uuidutils
import testtools.content

from nova_lite import cells
from nova_lite import context as nl_context
from nova_lite import objects
from tests.functional.placement import server as placement_server
from tests.functional import test_servers

FLAVOR_1 = test_servers.TINY
ZERO = test_servers.ZERO


class ManagePlacementTestBase(test_servers.ServersTestBase):

    def setUp(self):
        super().setUp()
        self.placement = self.cloud.placement.client
        self.server = self.useFixture(placement_server.PlacementServer(
            self.cloud.placement.url, workers=1))
        tmp = self.useFixture(fixtures.TempDir()).path
        self.conf_file = os.path.join(tmp, 'nova-lite.conf')
        with open(self.conf_file, 'w') as f:
            f.write('[api_database]\nconnection = %s\n'
                    '[placement]\nendpoint = %s\nauth_type = token\n'
                    'token = admin\n' % (self.cloud.dbs.api_connection,
                                         self.server.endpoint))

    def manage(self, *argv):
        """Run the command: (exit code, stdout); stderr goes to the test
        details."""
        result = subprocess.run(
            [sys.executable, '-m', 'nova_lite.cmd.manage', '--config-file',
             self.conf_file, 'placement'] + list(argv),
            capture_output=True, text=True, timeout=120)
        self._runs = getattr(self, '_runs', 0) + 1
        self.addDetail('manage-%d %s' % (self._runs, ' '.join(argv)),
                       testtools.content.text_content(
                           result.stdout + result.stderr))
        self.assertNotIn('Traceback', result.stderr)
        return result.returncode, result.stdout

    def node_uuid(self, server):
        return self.cloud.provider_uuid(
            server['OS-EXT-SRV-ATTR:hypervisor_hostname'])

    def boot_two(self):
        """Two servers, one on each host."""
        first = self.boot('ACTIVE', api=self.admin_api, host='host1')
        second = self.boot('ACTIVE', api=self.admin_api, host='host2')
        return first, second


class HealAllocationsTestCase(ManagePlacementTestBase):

    def test_heal_a_removed_allocation(self):
        first, second = self.boot_two()
        node = first['OS-EXT-SRV-ATTR:hypervisor_hostname']
        self.placement.delete_allocations(first['id'])
        self.assertEqual(ZERO, self.usage(node))

        rc, out = self.manage('heal_allocations', '--dry-run')
        self.assertEqual(4, rc, out)
        self.assertIn('[dry-run] Would create allocations for instance %s'
                      % first['id'], out)
        self.assertNotIn(second['id'], out)
        self.assertEqual(ZERO, self.usage(node))

        rc, out = self.manage('heal_allocations', '--verbose')
        self.assertEqual(0, rc, out)
        self.assertIn('Successfully created allocations for instance %s '
                      'against resource provider %s.'
                      % (first['id'], self.node_uuid(first)), out)
        self.assertIn('Instance %s already has allocations.' % second['id'],
                      out)
        self.assertEqual(FLAVOR_1, self.usage(node))
        held = self.placement.get_allocations(first['id'])
        self.assertEqual({self.node_uuid(first): FLAVOR_1},
                         {rp: e['resources']
                          for rp, e in held['allocations'].items()})
        self.assertEqual((first['tenant_id'], first['user_id']),
                         (held['project_id'], held['user_id']))

        rc, out = self.manage('heal_allocations')
        self.assertEqual(4, rc, out)
        self.assertIn('nothing to heal', out)

    def test_max_count_and_instance(self):
        first, second = self.boot_two()
        for server in (first, second):
            self.placement.delete_allocations(server['id'])

        rc, out = self.manage('heal_allocations', '--max-count', '1')
        self.assertEqual(1, rc, out)
        self.assertIn('Max count reached. Processed 1 instances.', out)
        rc, out = self.manage('heal_allocations', '--max-count', '1')
        self.assertEqual(0, rc, out)
        rc, out = self.manage('heal_allocations', '--max-count', '1')
        self.assertEqual(4, rc, out)
        for server in (first, second):
            self.assertEqual(FLAVOR_1, self.usage(
                server['OS-EXT-SRV-ATTR:hypervisor_hostname']))

        self.placement.delete_allocations(second['id'])
        rc, out = self.manage('heal_allocations', '--instance', first['id'])
        self.assertEqual(4, rc, out)
        rc, out = self.manage('heal_allocations', '--instance',
                              second['id'])
        self.assertEqual(0, rc, out)
        self.assertIn(second['id'], out)
        rc, out = self.manage('heal_allocations', '--instance',
                              uuidutils.generate_uuid())
        self.assertEqual(127, rc, out)
        rc, out = self.manage('heal_allocations', '--max-count', '0')
        self.assertEqual(127, rc, out)


class AuditTestCase(ManagePlacementTestBase):

    def _migration(self, server, status, source, dest):
        """A migration record of ``server`` in cell1 (its uuid)."""
        context = nl_context.get_admin_context()
        with cells.target_cell(context,
                               self.cloud.dbs.cells['cell1']) as cctxt:
            migration = objects.Migration(
                cctxt, uuid=uuidutils.generate_uuid(),
                instance_uuid=server['id'], status=status,
                migration_type='migration',
                source_compute=source['OS-EXT-SRV-ATTR:host'],
                source_node=source['OS-EXT-SRV-ATTR:hypervisor_hostname'],
                dest_compute=dest['OS-EXT-SRV-ATTR:host'],
                dest_node=dest['OS-EXT-SRV-ATTR:hypervisor_hostname'])
            migration.create()
        return migration.uuid

    def _allocate(self, consumer, rp_uuid, project='p', user='u'):
        self.placement.put_allocations(
            consumer, {rp_uuid: {'resources': {'VCPU': 1}}}, project, user)

    def test_orphans_found_and_deleted(self):
        first, second = self.boot_two()
        rp1, rp2 = self.node_uuid(first), self.node_uuid(second)
        stray = uuidutils.generate_uuid()
        self._allocate(stray, rp1)
        # A finished migration's leftover is an orphan; an unfinished
        # one holding its source is not.
        finished = self._migration(first, 'confirmed', first, second)
        self._allocate(finished, rp1, first['tenant_id'], first['user_id'])
        running = self._migration(second, 'finished', second, first)
        self._allocate(running, rp2, second['tenant_id'], second['user_id'])
        # The first server also holds a stray part on the other node.
        self.placement.put_allocations(
            first['id'], {rp1: {'resources': FLAVOR_1},
                          rp2: {'resources': {'VCPU': 1}}},
            first['tenant_id'], first['user_id'],
            consumer_generation=self.placement.get_allocations(
                first['id'])['consumer_generation'])

        rc, out = self.manage('audit', '--verbose')
        self.assertEqual(3, rc, out)
        orphaned = sorted(line.split()[3] + '@' + line.split()[7].rstrip(':')
                          for line in out.splitlines()
                          if line.endswith('}') and 'orphaned' in line)
        self.assertEqual(sorted(['%s@%s' % (stray, rp1),
                                 '%s@%s' % (finished, rp1),
                                 '%s@%s' % (first['id'], rp2)]), orphaned)

        rc, out = self.manage('audit', '--resource_provider', rp2)
        self.assertEqual(3, rc, out)
        self.assertNotIn(stray, out)
        rc, out = self.manage('audit', '--resource_provider',
                              uuidutils.generate_uuid())
        self.assertEqual(127, rc, out)

        rc, out = self.manage('audit', '--delete')
        self.assertEqual(4, rc, out)
        self.assertEqual({}, self.cloud.allocations(stray))
        self.assertEqual({}, self.cloud.allocations(finished))
        self.assertEqual({rp2: {'VCPU': 1}},
                         {rp: e['resources'] for rp, e in
                          self.cloud.allocations(running).items()})
        for server, rp in ((first, rp1), (second, rp2)):
            self.assertEqual({rp: FLAVOR_1},
                             {r: e['resources'] for r, e in
                              self.cloud.allocations(server['id']).items()})
        self.assertEqual(FLAVOR_1, self.usage(
            first['OS-EXT-SRV-ATTR:hypervisor_hostname']))

        rc, out = self.manage('audit')
        self.assertEqual(0, rc, out)
        self.assertIn('No orphaned allocations were found.', out)
