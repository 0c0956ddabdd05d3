"""Move operations through the real ``openstack`` CLI on a stacked lab.

What an operator types, unchanged (python-openstackclient negotiates the
microversion, 2.100 here; see doc/moves.md): resize with confirm and
revert, cold migrate, live migrate with and without a target host,
rebuild, shelve / shelve-offload / unshelve, and evacuate from a killed
compute that an admin forced down. After every step the test reads
placement: the usage on each node must be exactly the flavors of what runs
there or is in transit there (the migration record holds the source side
of a resize, a migration and a live migration; an evacuated server is
counted on both nodes until its old compute comes back).

One small lab: one cell, three computes of one fake node each, SQLite.
The computes never offload a shelved server by themselves
(``shelved_offload_time = -1``) so that shelve and shelve-offload are two
steps a test can see.
"""

import json

from tests.integration import lab as lab_mod
from tests.integration import test_services as base

ADMIN = 'nova-lite-admin'
# The API speaks Nova's binary names (the process is nova-lite-compute).
COMPUTE_BINARY = 'nova-compute'
FLAVORS = {'m1.tiny': {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1},
           'm1.small': {'VCPU': 1, 'MEMORY_MB': 2048, 'DISK_GB': 20},
           'm1.medium': {'VCPU': 2, 'MEMORY_MB': 4096, 'DISK_GB': 40}}
HOST = 'OS-EXT-SRV-ATTR:host'


def node_of(host):
    return '%s-node-0' % host


def usage_of(*placed):
    """The usage placement must show for ``(host, flavor)`` pairs."""
    total = {}
    for host, flavor in placed:
        node = total.setdefault(node_of(host), {})
        for rc, amount in FLAVORS[flavor].items():
            node[rc] = node.get(rc, 0) + amount
    return total


class TestMovesThroughTheCli(lab_mod.LabTestCase):

    LAB_KWARGS = dict(cells=1, computes_per_cell=3, nodes_per_compute=1,
                      database='sqlite', name_prefix='nl_mv')

    @classmethod
    def prepare_lab(cls, lab):
        for host in lab.computes['cell1']:
            lab.set_compute_conf(
                host, '[DEFAULT]\nshelved_offload_time = -1\n')

    # -- helpers ---------------------------------------------------------

    def os(self, *args, parse=True):
        return self.lab.openstack(ADMIN, *args, parse=parse)

    @property
    def hosts(self):
        return list(self.lab.computes['cell1'])

    def boot(self, name, flavor):
        server = self.os('server', 'create', '--flavor', flavor, '--image',
                         lab_mod.IMAGE, '--nic', 'none', '--wait', name)
        self.assertEqual('ACTIVE', server['status'])
        self.addCleanup(self._delete_quietly, server['id'])
        return server['id']

    def _delete_quietly(self, server_id):
        if self.lab is not None and self.lab.server(server_id):
            self.lab.compute('DELETE', '/servers/' + server_id)

    def server(self, server_id):
        return self.lab.server(server_id)

    def settled(self, server_id, status, moved_from=None, timeout=60):
        """Wait for ``status`` (and a host other than ``moved_from``); the
        server as the API shows it. ERROR fails at once, with the fault."""
        seen = {}

        def done():
            server = seen['server'] = self.server(server_id)
            if server['status'] == 'ERROR' and status != 'ERROR':
                raise AssertionError('server %s is in ERROR: %s' % (
                    server_id, server.get('fault')))
            return server['status'] == status and (
                moved_from is None or server[HOST] != moved_from)
        try:
            base.wait_for(done, timeout=timeout, interval=0.5,
                          what='server %s %s' % (server_id, status))
        except AssertionError:
            last = seen.get('server') or {}
            self.fail('server %s not %s%s within %ss: status %s, task %s, '
                      'host %s' % (server_id, status,
                                   ' off %s' % moved_from if moved_from
                                   else '', timeout, last.get('status'),
                                   last.get('OS-EXT-STS:task_state'),
                                   last.get(HOST)))
        return seen['server']

    def assertUsage(self, expected, timeout=30):
        """Placement shows exactly ``expected`` (waits for a compute's
        last allocation write, then compares)."""
        try:
            base.wait_for(lambda: self.lab.usages_in_use() == expected,
                          timeout=timeout, interval=0.5,
                          what='placement usage %s' % expected)
        except AssertionError:
            self.assertEqual(expected, self.lab.usages_in_use())

    def flavor_name(self, server):
        return server['flavor']['original_name']

    def migrations(self, server_id, *args):
        rows = self.os('server', 'migration', 'list', '--server', server_id,
                       *args)
        return sorted(rows, key=lambda row: row['Id'])

    # -- tests -----------------------------------------------------------

    def test_resize_migrate_live_migrate_rebuild(self):
        sid = self.boot('mv-resize', 'm1.tiny')
        first = self.server(sid)[HOST]
        self.assertUsage(usage_of((first, 'm1.tiny')))

        # Resize to another host; the migration holds the old flavor on
        # the source until the user confirms.
        self.os('server', 'resize', '--flavor', 'm1.small', '--wait', sid,
                parse=False)
        server = self.server(sid)
        self.assertEqual('VERIFY_RESIZE', server['status'])
        second = server[HOST]
        self.assertNotEqual(first, second)
        self.assertEqual('m1.small', self.flavor_name(server))
        self.assertUsage(usage_of((first, 'm1.tiny'), (second, 'm1.small')))
        self.os('server', 'resize', 'confirm', sid, parse=False)
        self.settled(sid, 'ACTIVE')
        self.assertUsage(usage_of((second, 'm1.small')))

        # Resize again (a root disk never shrinks: up) and revert: back on
        # the same host and flavor.
        self.os('server', 'resize', '--flavor', 'm1.medium', '--wait', sid,
                parse=False)
        server = self.server(sid)
        self.assertEqual('VERIFY_RESIZE', server['status'])
        third = server[HOST]
        self.assertNotEqual(second, third)
        self.assertUsage(usage_of((second, 'm1.small'),
                                  (third, 'm1.medium')))
        self.os('server', 'resize', 'revert', sid, parse=False)
        server = self.settled(sid, 'ACTIVE')
        self.assertEqual(second, server[HOST])
        self.assertEqual('m1.small', self.flavor_name(server))
        self.assertUsage(usage_of((second, 'm1.small')))

        # Cold migrate (same flavor), confirmed with the newer command.
        self.os('server', 'migrate', '--wait', sid, parse=False)
        server = self.server(sid)
        self.assertEqual('VERIFY_RESIZE', server['status'])
        cold = server[HOST]
        self.assertNotEqual(second, cold)
        self.assertUsage(usage_of((second, 'm1.small'), (cold, 'm1.small')))
        self.os('server', 'migration', 'confirm', sid, parse=False)
        self.settled(sid, 'ACTIVE')
        self.assertUsage(usage_of((cold, 'm1.small')))

        # Live migrate: the scheduler picks, then an admin names the host.
        self.os('server', 'migrate', '--live-migration', '--wait', sid,
                parse=False)
        server = self.settled(sid, 'ACTIVE', moved_from=cold)
        live = server[HOST]
        self.assertUsage(usage_of((live, 'm1.small')))
        target = next(h for h in self.hosts if h != live)
        self.os('server', 'migrate', '--live-migration', '--host', target,
                sid, parse=False)
        server = self.settled(sid, 'ACTIVE', moved_from=live)
        self.assertEqual(target, server[HOST])
        self.assertUsage(usage_of((target, 'm1.small')))

        # Rebuild stays where it is.
        # (--wait prints "Complete" before the server it shows.)
        out = self.os('server', 'rebuild', '--image', lab_mod.IMAGE,
                      '--wait', '-f', 'json', sid, parse=False)
        rebuilt = json.loads(out[out.index('{'):])
        self.assertEqual((sid, lab_mod.IMAGE),
                         (rebuilt['id'], rebuilt['image'].split(' (')[0]))
        # Shown from the action's answer: the new admin password is in it.
        self.assertTrue(rebuilt['adminPass'])
        server = self.settled(sid, 'ACTIVE')
        self.assertEqual(target, server[HOST])
        self.assertUsage(usage_of((target, 'm1.small')))

        steps = [(m['Type'], m['Status'], m['Source Compute'],
                  m['Dest Compute']) for m in self.migrations(sid)]
        self.assertEqual([
            ('resize', 'confirmed', first, second),
            ('resize', 'reverted', second, third),
            ('migration', 'confirmed', second, cold),
            ('live-migration', 'completed', cold, live),
            ('live-migration', 'completed', live, target)], steps)
        actions = [e['Action'] for e in self.os('server', 'event', 'list',
                                                 sid)]
        for name in ('create', 'resize', 'confirmResize', 'revertResize',
                     'migrate', 'live-migration', 'rebuild'):
            self.assertIn(name, actions)

        self.os('server', 'delete', '--wait', sid, parse=False)
        self.assertUsage({})

    def test_shelve_unshelve_and_evacuate(self):
        sid = self.boot('mv-shelve', 'm1.tiny')
        home = self.server(sid)[HOST]
        self.assertUsage(usage_of((home, 'm1.tiny')))

        # Shelved (not offloaded): the guest keeps its place.
        self.os('server', 'shelve', '--wait', sid, parse=False)
        self.assertEqual('SHELVED', self.server(sid)['status'])
        self.assertUsage(usage_of((home, 'm1.tiny')))
        self.os('server', 'unshelve', '--wait', sid, parse=False)
        server = self.settled(sid, 'ACTIVE')
        self.assertEqual(home, server[HOST])
        self.assertUsage(usage_of((home, 'm1.tiny')))

        # Offloaded: nothing is used anywhere; unshelved onto a named host.
        self.os('server', 'shelve', '--offload', '--wait', sid, parse=False)
        server = self.server(sid)
        self.assertEqual('SHELVED_OFFLOADED', server['status'])
        self.assertIsNone(server[HOST])
        self.assertUsage({})
        away = next(h for h in self.hosts if h != home)
        self.os('server', 'unshelve', '--host', away, '--wait', sid,
                parse=False)
        server = self.settled(sid, 'ACTIVE')
        self.assertEqual(away, server[HOST])
        self.assertUsage(usage_of((away, 'm1.tiny')))

        # Evacuate from a dead compute an admin forced down.
        self.lab.kill_compute(away)
        self.os('compute', 'service', 'set', '--down', away, COMPUTE_BINARY,
                parse=False)
        states = {s['Host']: s['State'] for s in self.os(
            'compute', 'service', 'list', '--service', COMPUTE_BINARY)}
        self.assertEqual('down', states[away])
        shown = self.os('server', 'evacuate', sid)
        self.assertEqual(sid, shown['id'])
        server = self.settled(sid, 'ACTIVE', moved_from=away)
        rescue = server[HOST]
        self.assertUsage(usage_of((away, 'm1.tiny'), (rescue, 'm1.tiny')))
        [evacuation] = self.migrations(sid, '--type', 'evacuation')
        self.assertEqual((away, rescue), (evacuation['Source Compute'],
                                          evacuation['Dest Compute']))

        # The old compute comes back: it frees its side.
        self.lab.restart_missing()
        self.os('compute', 'service', 'set', '--up', away, COMPUTE_BINARY,
                parse=False)
        self.assertUsage(usage_of((rescue, 'm1.tiny')), timeout=60)
        [evacuation] = self.migrations(sid, '--type', 'evacuation')
        self.assertEqual('completed', evacuation['Status'])
        self.assertEqual(rescue, self.server(sid)[HOST])

        self.os('server', 'delete', '--wait', sid, parse=False)
        self.assertUsage({})
