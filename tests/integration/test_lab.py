"""A two-cell lab stacked by devstack/stack.sh on MariaDB and RabbitMQ.

What a user does with the lab, through the real ``openstack`` CLI and the
HTTP APIs: boot servers that spread over both cells, list them across
cells, delete them and find placement usage back at zero; a node whose
spawns fail makes the build reschedule to an alternate in the same cell; a
compute SIGKILLed mid-build leaves its build in ERROR with a fault once it
restarts, and deleting it leaves no allocation. Each class stacks one lab
(about 20 s) and unstacks it at the end, checking no process remains.
"""

import signal

from tests.integration import lab as lab_mod

FLAVOR = 'm1.tiny'


def _hosts(servers):
    return {s['OS-EXT-SRV-ATTR:host'] for s in servers}


class TestTwoCellLab(lab_mod.LabTestCase):
    """2 cells x 2 computes x 3 nodes, nothing injected."""

    LAB_KWARGS = dict(cells=2, computes_per_cell=2, nodes_per_compute=3,
                      database='mysql', name_prefix='nl_lab')

    def test_boot_20_spread_over_both_cells_list_and_delete(self):
        lab = self.lab
        lab.set_member_quota()
        created = lab.openstack(
            'nova-lite', 'server', 'create', '--flavor', FLAVOR,
            '--image', lab_mod.IMAGE, '--nic', 'none', '--min', '20',
            '--max', '20', 'spread')
        self.assertIn('id', created)
        listed = lab.openstack('nova-lite', 'server', 'list',
                               '--name', '^spread')
        ids = [s['ID'] for s in listed]
        self.assertEqual(20, len(ids))

        servers = lab.wait_status(ids)
        self.assertEqual({'ACTIVE'}, {s['status'] for s in servers.values()},
                         {s['id']: s.get('fault') for s in servers.values()})
        cells = {lab.cell_of_host(h) for h in _hosts(servers.values())}
        self.assertEqual(set(lab.cells), cells,
                         'servers did not spread over both cells: hosts %s'
                         % sorted(_hosts(servers.values())))
        # The admin CLI sees the same placement as the API.
        shown = lab.openstack('nova-lite-admin', 'server', 'show', ids[0])
        self.assertEqual(servers[ids[0]]['OS-EXT-SRV-ATTR:host'],
                         shown['OS-EXT-SRV-ATTR:host'])

        # Listing merges both cells' servers (CLI and API agree).
        active = lab.openstack('nova-lite', 'server', 'list',
                               '--status', 'ACTIVE')
        self.assertEqual(set(ids), {s['ID'] for s in active})
        self.assertEqual(20, len(lab.servers(name='spread')))
        self.assertEqual(20 * 512, sum(u.get('MEMORY_MB', 0)
                                       for u in lab.usages_in_use().values()))

        lab.openstack('nova-lite', 'server', 'delete', '--wait', *ids,
                      parse=False)
        lab.wait_gone(ids)
        self.assertEqual({}, lab.usages_in_use())
        self.assertEqual([], lab.openstack('nova-lite', 'server', 'list'))


class TestTwoCellLabSQLite(TestTwoCellLab):
    """The same lab on SQLite files (the quick local try); no MariaDB."""

    LAB_KWARGS = dict(TestTwoCellLab.LAB_KWARGS, database='sqlite',
                      name_prefix='nl_labs')


class TestLabFaults(lab_mod.LabTestCase):
    """Faults injected through the computes' conf.d overrides.

    cell1-compute1 has one node, the largest of the lab (the RAM weigher
    ranks it first), whose spawns fail: the first try of a build lands
    there and the reschedule must go to cell1-compute2. cell2-compute2
    spawns slowly, so a build forced there can be caught mid-spawn.
    """

    LAB_KWARGS = dict(cells=2, computes_per_cell=2, nodes_per_compute=2,
                      database='mysql', name_prefix='nl_labf')
    FAILING_HOST = 'cell1-compute1'
    FAILING_NODE = 'cell1-compute1-node-0'
    SLOW_HOST = 'cell2-compute2'

    @classmethod
    def prepare_lab(cls, lab):
        lab.set_compute_conf(cls.FAILING_HOST, (
            '[fake_driver]\nnodes = 1\nmemory_mb = 262144\n'
            'fail_spawn_nodes = %s\n' % cls.FAILING_NODE))
        lab.set_compute_conf(cls.SLOW_HOST,
                             '[fake_driver]\nspawn_delay = 60\n')

    def _boot(self, name, zone=None, admin=False):
        body = {'server': {'name': name, 'flavorRef': '1',
                           'imageRef': 'c1a7e0a5-5e1f-4b7b-9f0e-0000000000c1',
                           'networks': 'none'}}
        if zone:
            body['server']['availability_zone'] = zone
        status, reply = self.lab.compute('POST', '/servers', body,
                                         admin=admin)
        self.assertEqual(202, status, reply)
        return reply['server']['id']

    def test_spawn_failure_reschedules_within_the_cell(self):
        lab = self.lab
        server_id = self._boot('resched')
        server = lab.wait_status([server_id])[server_id]
        self.assertEqual('ACTIVE', server['status'], server.get('fault'))
        events = [e for a in lab.actions(server_id) if a['action'] == 'create'
                  for e in a['events']]
        tried = [(e['host'], e['result']) for e in events
                 if e['event'] == 'compute_build_and_run_instance']
        self.assertIn((self.FAILING_HOST, 'Error'), tried,
                      'the first try did not land on the failing node: %s'
                      % tried)
        self.assertEqual('Success', tried[-1][1], tried)
        final_host = server['OS-EXT-SRV-ATTR:host']
        self.assertNotEqual(self.FAILING_HOST, final_host)
        self.assertEqual('cell1', lab.cell_of_host(final_host),
                         'rescheduled to another cell: %s' % tried)
        self.assertEqual(final_host, tried[-1][0])

        status, _ = lab.compute('DELETE', '/servers/' + server_id)
        self.assertEqual(204, status)
        lab.wait_gone([server_id])
        self.assertEqual({}, lab.usages_in_use())

    def test_compute_killed_mid_build_leaves_error_with_fault(self):
        lab = self.lab
        server_id = self._boot('killed', zone='nova:' + self.SLOW_HOST,
                               admin=True)

        def spawning():
            server = lab.server(server_id)
            return (server['OS-EXT-SRV-ATTR:host'] == self.SLOW_HOST and
                    server['OS-EXT-STS:task_state'] == 'spawning')
        lab_mod.base.wait_for(spawning, timeout=60, what='spawning')
        self.assertNotEqual({}, lab.usages_in_use())
        lab.kill_compute(self.SLOW_HOST, signal.SIGKILL)

        # The lab's own way back: stack.sh starts what is missing.
        lab.stack()
        server = lab.wait_status([server_id], statuses=('ERROR',))[server_id]
        self.assertIn('fault', server)
        self.assertTrue(server['fault'].get('message'), server['fault'])

        status, _ = lab.compute('DELETE', '/servers/' + server_id)
        self.assertEqual(204, status)
        lab.wait_gone([server_id])
        self.assertEqual({}, lab.usages_in_use())
