"""Growing a running lab by re-running stack.sh with more cells/computes.

One cell with one compute is stacked on MariaDB and RabbitMQ and boots a
server; stack.sh then runs again with NOVA_LITE_CELLS=2 and
NOVA_LITE_COMPUTES_PER_CELL=2. The new cell gets its database, vhost,
mapping and conductor, the new computes start, every process that was
running keeps its pid, and the running scheduler maps the new hosts by
itself ([scheduler] discover_hosts_in_cells_interval, 10 s in the lab):
stack.sh waits for it instead of running nova-lite-manage. Servers then
land on the new hosts, and the first one is still there.
"""

import os
import re

import testtools

from tests.integration import lab as lab_mod
from tests.integration import test_services as base

NEW_SERVICES = {'conductor-cell2', 'compute-cell1-compute2',
                'compute-cell2-compute1', 'compute-cell2-compute2'}


class TestGrowLab(testtools.TestCase):

    def setUp(self):
        super().setUp()
        base.require_rabbit(self)
        base.require_mysql(self)
        self.lab = lab_mod.Lab(cells=1, computes_per_cell=1,
                               nodes_per_compute=2, database='mysql',
                               name_prefix='nl_grow',
                               report_interval=lab_mod.TEST_REPORT_INTERVAL)
        self.addCleanup(self.lab.destroy)
        self.addOnException(
            lambda exc_info: lab_mod.attach_logs(self, self.lab))
        self.lab.stack()

    def _boot(self, name, host=None):
        args = ['server', 'create', '--flavor', 'm1.tiny', '--image',
                lab_mod.IMAGE, '--nic', 'none', '--wait', name]
        if host:
            args[-1:-1] = ['--availability-zone', 'nova:' + host]
        server = self.lab.openstack('nova-lite-admin', *args)
        self.assertEqual('ACTIVE', server['status'], server.get('fault'))
        return server

    def _discovered_by_scheduler(self):
        """Hosts the scheduler's log says it mapped by itself."""
        path = os.path.join(self.lab.state, 'logs', 'scheduler.log')
        with open(path, errors='replace') as f:
            found = re.findall(r'Discovered hosts (.*) in cell (\S+)',
                               f.read())
        return {host for hosts, cell in found for host in hosts.split(', ')}

    def test_rerun_with_more_cells_and_computes_grows_the_running_lab(self):
        lab = self.lab
        first = self._boot('before-growth')
        self.assertEqual('cell1-compute1', first['OS-EXT-SRV-ATTR:host'])
        before = lab.pids()

        lab.resize(cells=2, computes_per_cell=2)
        result = lab.stack()

        after = lab.pids()
        self.assertEqual(before, {name: after.get(name) for name in before})
        self.assertEqual(NEW_SERVICES, set(after) - set(before))
        # The scheduler mapped them, whether before stack.sh looked or
        # while it waited; nova-lite-manage was not needed.
        self.assertNotIn('(nova-lite-manage)', result.stdout)
        self.assertNotIn('WARNING', result.stdout)
        self.assertLessEqual(
            {'cell1-compute2', 'cell2-compute1', 'cell2-compute2'},
            self._discovered_by_scheduler())

        hypervisors = lab.openstack('nova-lite-admin', 'hypervisor', 'list')
        self.assertEqual(8, len(hypervisors))
        self.assertEqual({'up'}, {h['State'] for h in hypervisors})
        for host in ('cell1-compute2', 'cell2-compute2'):
            server = self._boot('on-' + host, host)
            self.assertEqual(host, server['OS-EXT-SRV-ATTR:host'])

        first_now = lab.server(first['id'])
        self.assertEqual(('ACTIVE', 'cell1-compute1'),
                         (first_now['status'],
                          first_now['OS-EXT-SRV-ATTR:host']))
        self.assertEqual(3, len(lab.servers()))
