"""A controller and two cell nodes, each in its own network namespace.

The controller (tests/integration/test_multinode.py's, cell1 without
computes) runs the APIs, the scheduler and the super conductor on its own
RabbitMQ and MariaDB. Each cell node runs devstack/stack.sh with the
services ``rabbit,mysql,cell-conductor,compute`` and its cell's name
(doc/multinode.md, "Cell nodes"): its own private RabbitMQ and MariaDB
(data under its state directory, listening on its address), its cell's
conductor and a compute, and it maps its cell on the controller with its
own URLs. Servers are booted over both cells; one cell node is killed
(SIGKILL of everything in its namespace: servers, conductor, compute):
the other cell keeps booting, the lists show the dead cell's servers as
Nova does (minimal ``UNKNOWN`` records from 2.69, left out before), and
once the node has run stack.sh again (its boot), its servers are whole
and it takes new ones, with nothing done on the controller.

Needs root, network namespaces and the rabbitmq-server and mariadb-server
binaries; skips with the reason otherwise (as test_multinode).
"""

import concurrent.futures
import os
import re
import signal
import time

import sqlalchemy
from testtools import content

from tests.integration import test_multinode as multinode

CELLS = {'cella': 'cell2', 'cellb': 'cell3'}
MINIMAL_LIST = {'id', 'status', 'links'}
MINIMAL_DETAIL = MINIMAL_LIST | {'tenant_id', 'created'}


def named(servers, name):
    """The servers of one multi-create named ``name``: Nova names them
    ``name-1``, ``name-2``... (``multi_instance_display_name_template``)."""
    return [s for s in servers
            if (s.get('name') or '').rsplit('-', 1)[0] == name]


class TestControllerAndTwoCellNodes(multinode.NamespaceLab):

    HOSTS = ('ctl', 'cella', 'cellb')
    SUBNET = '10.231.0'
    PREFIX = 'nlcell'

    def setUp(self):
        super().setUp()
        self.envs = {}
        self.times = []
        self.started = time.monotonic()
        self.addDetail('timings', content.Content(
            content.UTF8_TEXT, lambda: [('\n'.join(
                '%6.1f s  %s' % t for t in self.times) + '\n').encode()]))

        self.addOnException(self._attach_logs)

    def _attach_logs(self, exc_info):
        """On a failure, the end of every service log of every host."""
        for host in self.HOSTS:
            logs = os.path.join(self.root, host, 'logs')
            if not os.path.isdir(logs):
                continue
            for name in sorted(os.listdir(logs)):
                with open(os.path.join(logs, name), errors='replace') as f:
                    tail = ''.join(f.readlines()[-60:])
                self.addDetail('%s/%s' % (host, name),
                               content.text_content(tail))

    def mark(self, what):
        self.times.append((time.monotonic() - self.started, what))

    def cell_env(self, host):
        pw = self.passwords()
        return self.env(
            host, NOVA_LITE_ENABLED_SERVICES='rabbit,mysql,cell-conductor,'
            'compute', NOVA_LITE_CELL_NAME=CELLS[host],
            NOVA_LITE_RABBIT_PASSWORD=pw['NOVA_LITE_RABBIT_PASSWORD'],
            NOVA_LITE_DATABASE_PASSWORD=pw['NOVA_LITE_DATABASE_PASSWORD'],
            NOVA_LITE_ADMIN_PASSWORD=pw['NOVA_LITE_ADMIN_PASSWORD'])

    def cell_mappings(self):
        with self.net.entered('ctl'):
            engine = sqlalchemy.create_engine(
                self.mysql.url + '/%s_api' % self.name)
            try:
                with engine.connect() as conn:
                    rows = conn.exec_driver_sql(
                        'SELECT name, transport_url, database_connection '
                        'FROM cell_mappings').all()
            finally:
                engine.dispose()
        return {name: (transport, db) for name, transport, db in rows}

    def boot(self, name, count, at='compute 2.95'):
        status, body = self.compute('POST', '/servers', {'server': {
            'name': name, 'flavorRef': multinode.FLAVOR_REF,
            'imageRef': multinode.IMAGE_REF, 'networks': 'none',
            'min_count': count, 'max_count': count}},
            headers={'OpenStack-API-Version': at})
        self.assertEqual(202, status, body)

    def boot_and_settle(self, name, count, when):
        """Boot ``count`` servers named ``name``; they once ACTIVE or
        ERROR."""
        self.boot(name, count)
        servers = self.wait_servers(
            lambda ss: len(named(ss, name)) == count and all(
                s['status'] in ('ACTIVE', 'ERROR') for s in named(ss, name)),
            '%d servers settled %s' % (count, when))
        return named(servers, name)

    def listed(self, path, version):
        status, body = self.compute(
            'GET', path, headers={'OpenStack-API-Version': version})
        self.assertEqual(200, status, body)
        return {s['id']: s for s in body['servers']}

    def test_cells_on_their_own_nodes_down_and_back(self):
        self.stack('ctl', self.env(
            'ctl', NOVA_LITE_ENABLED_SERVICES='api,placement,scheduler,'
            'conductor,cell-conductor', NOVA_LITE_CELL_TIMEOUT='10'))
        self.admin_password = self.passwords()['NOVA_LITE_ADMIN_PASSWORD']
        self.mark('controller stacked')

        # Both cell nodes at once, as two machines would.
        envs = {host: self.cell_env(host) for host in CELLS}
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            futures = {h: pool.submit(self.stack, h, envs[h]) for h in CELLS}
            outs = {h: f.result() for h, f in futures.items()}
        self.mark('both cell nodes stacked')

        # Each cell is mapped with its node's bus and database; its
        # computes and conductor use that bus only, and its servers are
        # its own (processes of its namespace, data under its state).
        mappings = self.cell_mappings()
        for host, cell in CELLS.items():
            address = self.net.address(host)
            self.assertIn('cell node of %s' % cell, outs[host])
            transport, db = mappings[cell]
            self.assertIn('@%s:5672/%s_%s' % (address, self.name, cell),
                          transport)
            self.assertIn('@%s:3306/%s_%s' % (address, self.name, cell), db)
            etc = os.path.join(self.root, host, 'etc')
            for conf in ('%s.conf' % cell, '%s-compute1.conf' % cell):
                with open(os.path.join(etc, conf)) as f:
                    text = f.read()
                buses = set(re.findall(r'rabbit://[^@]*@([^:/]+):', text))
                self.assertEqual({address}, buses, conf)
            with open(os.path.join(etc, '%s.conf' % cell)) as f:
                self.assertIn('@%s:3306/%s_%s' % (address, self.name, cell),
                              f.read())
            pids = os.path.join(self.root, host, 'pids')
            mine = set(self.net.pids(host))
            for kind in ('rabbit', 'mysql'):
                with open(os.path.join(pids, 'cell-%s.pid' % kind)) as f:
                    self.assertIn(int(f.read()), mine, kind)
            self.assertTrue(os.path.isdir(os.path.join(
                self.root, host, 'servers', 'mysql', 'data',
                '%s_%s' % (self.name, cell))))
        self.assertEqual({'cell1', 'cell2', 'cell3'},
                         set(mappings) - {None, 'cell0'})

        # Servers over both cells.
        status, body = self.compute('PUT', '/os-quota-sets/admin', {
            'quota_set': {'instances': 100, 'cores': 400, 'ram': 100000}})
        self.assertEqual(200, status, body)
        self.boot('before', 10)
        servers = self.wait_servers(
            lambda ss: len(ss) == 10 and all(
                s['status'] in ('ACTIVE', 'ERROR') for s in ss),
            '10 servers settled')
        self.assertEqual({'ACTIVE'}, {s['status'] for s in servers})
        on = {}
        for s in servers:
            on.setdefault(s['OS-EXT-SRV-ATTR:host'], set()).add(s['id'])
        self.assertEqual({'cell2-compute1', 'cell3-compute1'}, set(on), on)
        self.mark('10 servers ACTIVE over both cells')

        # cellb's node dies: its RabbitMQ, MariaDB, conductor, compute.
        self.net.kill_all('cellb', signal.SIGKILL)
        self.mark('cell node cellb killed')
        down = on['cell3-compute1']
        up = on['cell2-compute1']

        # 2.69+: the dead cell's servers as minimal UNKNOWN records.
        listed = self.listed('/servers/detail', 'compute 2.69')
        self.assertEqual(down | up, set(listed))
        for sid in down:
            self.assertEqual('UNKNOWN', listed[sid]['status'])
            self.assertEqual(MINIMAL_DETAIL, set(listed[sid]), listed[sid])
        for sid in up:
            self.assertEqual('ACTIVE', listed[sid]['status'])
        listed = self.listed('/servers', 'compute 2.95')
        self.assertEqual(down | up, set(listed))
        for sid in down:
            self.assertEqual(MINIMAL_LIST, set(listed[sid]), listed[sid])
        sid = sorted(down)[0]
        status, body = self.compute(
            'GET', '/servers/' + sid,
            headers={'OpenStack-API-Version': 'compute 2.69'})
        self.assertEqual(200, status, body)
        shown = body['server']
        self.assertEqual('UNKNOWN', shown['status'])
        self.assertEqual(multinode.IMAGE_REF, shown['image']['id'])
        self.assertEqual('m1.tiny', shown['flavor']['original_name'])
        self.assertNotIn('name', shown)
        # Before 2.69: lists leave them out; a show is an error.
        listed = self.listed('/servers/detail', 'compute 2.68')
        self.assertEqual(up, set(listed))
        status, body = self.compute(
            'GET', '/servers/' + sid,
            headers={'OpenStack-API-Version': 'compute 2.68'})
        self.assertGreaterEqual(status, 500, body)
        self.mark('lists and shows checked with cellb down')

        # The other cell keeps booting.
        during = self.boot_and_settle('during', 4, 'with cellb down')
        self.assertEqual({('ACTIVE', 'cell2-compute1')}, {
            (s['status'], s['OS-EXT-SRV-ATTR:host']) for s in during})
        self.mark('4 servers ACTIVE in cella with cellb down')

        # cellb's node comes back: its stack.sh at boot, as on a machine;
        # nothing is done on the controller.
        out = self.stack('cellb', envs['cellb'])
        self.assertIn('started RabbitMQ on %s' % self.net.address('cellb'),
                      out)
        self.assertIn('is mapped on the controller with this node', out)
        self.mark('cell node cellb stacked again')
        servers = self.wait_servers(
            lambda ss: all(s['status'] == 'ACTIVE' and s.get('name')
                           for s in ss if s['id'] in down),
            "cellb's servers whole again")
        whole = {s['id']: s for s in servers}
        for sid in down:
            self.assertEqual('cell3-compute1',
                             whole[sid]['OS-EXT-SRV-ATTR:host'])
            self.assertEqual([whole[sid]], named([whole[sid]], 'before'))
        self.mark("cellb's servers whole")
        # And it takes new servers again (it is the emptier cell).
        after = self.boot_and_settle('after', 4, 'after cellb came back')
        self.assertEqual({'ACTIVE'}, {s['status'] for s in after})
        self.assertIn('cell3-compute1',
                      {s['OS-EXT-SRV-ATTR:host'] for s in after})
        self.mark('4 more servers ACTIVE, cellb among their hosts')

        # unstack.sh --purge on a cell node stops its own servers too:
        # nothing is left in its namespace.
        for host in ('cellb', 'cella'):
            result = self.script(host, 'unstack.sh', '--purge')
            self.assertEqual(0, result.returncode, result.stdout[-3000:])
            self.stacked.remove(host)
            self.assertEqual([], self.net.pids(host), host)
            self.assertFalse(os.path.exists(
                os.path.join(self.root, host, 'servers', 'mysql')))
        self.mark('cell nodes unstacked')
