"""A lab stacked with NOVA_LITE_KEYSTONE=True, driven by password logins.

stack.sh installs Keystone into its own virtualenv next to the test's
(once; later runs reuse it), bootstraps it on the lab's database (SQLite,
served one request at a time; or the lab's MariaDB), registers compute,
image and placement in its catalog and switches both APIs to keystone
auth. The real ``openstack`` CLI logs in with the clouds.yaml passwords
and finds every endpoint in the catalog; the computes, scheduler and
conductors reach placement with the ``nova_lite`` service user's tokens.
One cell, one compute, SQLite: about 40 s, plus the first Keystone
install.
"""

import concurrent.futures
import json
import urllib.error
import urllib.request
import uuid

import pymysql
import testtools

from tests.integration import lab as lab_mod
from tests.integration import test_services as base


def _status_without_token(url, token=None):
    req = urllib.request.Request(url)
    if token:
        req.add_header('X-Auth-Token', token)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status
    except urllib.error.HTTPError as e:
        return e.code


def _post(url, body, token=None):
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={'Content-Type': 'application/json'})
    if token:
        req.add_header('X-Auth-Token', token)
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, resp.headers
    except urllib.error.HTTPError as e:
        return e.code, e.headers


def _admin_token(lab):
    status, headers = _post(lab.keystone + '/auth/tokens', {'auth': {
        'identity': {'methods': ['password'], 'password': {'user': {
            'name': 'admin', 'domain': {'id': 'default'},
            'password': lab.keystone_password}}},
        'scope': {'project': {'name': 'admin',
                              'domain': {'id': 'default'}}}}})
    assert status == 201, status
    return headers['X-Subject-Token']


def _parallel_writes(lab, writers=2, each=8):
    """Statuses of projects and users created by ``writers`` clients at
    once (what Tempest's parallel workers do with their credentials)."""
    token = _admin_token(lab)

    def write(worker):
        statuses = []
        for i in range(each):
            name = 'w%d-%d-%s' % (worker, i, uuid.uuid4().hex[:6])
            statuses.append(_post(lab.keystone + '/projects', {'project': {
                'name': name, 'domain_id': 'default'}}, token)[0])
            statuses.append(_post(lab.keystone + '/users', {'user': {
                'name': name, 'domain_id': 'default',
                'password': 'x'}}, token)[0])
        return statuses

    with concurrent.futures.ThreadPoolExecutor(writers) as pool:
        return [s for result in pool.map(write, range(writers))
                for s in result]


class TestKeystoneLab(testtools.TestCase):

    def setUp(self):
        super().setUp()
        base.require_rabbit(self)
        self.lab = lab_mod.Lab(cells=1, computes_per_cell=1,
                               nodes_per_compute=2, database='sqlite',
                               name_prefix='nl_ks', keystone=True,
                               report_interval=lab_mod.TEST_REPORT_INTERVAL)
        self.addCleanup(self.lab.destroy)
        self.addOnException(
            lambda exc_info: lab_mod.attach_logs(self, self.lab))
        self.lab.stack()

    def _usage_total(self):
        """Sum of every provider's usages, read with the admin's login."""
        total = 0
        for rp in self.lab.openstack('nova-lite-placement', 'resource',
                                     'provider', 'list'):
            for row in self.lab.openstack(
                    'nova-lite-placement', 'resource', 'provider', 'usage',
                    'show', rp['uuid']):
                total += row['usage']
        return total

    def test_password_logins_boot_and_delete_a_server(self):
        lab = self.lab
        member = lab.openstack('nova-lite', 'token', 'issue')
        server = lab.openstack(
            'nova-lite', 'server', 'create', '--flavor', 'm1.tiny',
            '--image', lab_mod.IMAGE, '--nic', 'none', '--wait', 'ks-vm')
        self.assertEqual('ACTIVE', server['status'], server.get('fault'))
        # The server belongs to the Keystone project of the demo login.
        self.assertEqual(member['project_id'], server['project_id'])
        self.assertNotEqual(0, self._usage_total())

        lab.openstack('nova-lite', 'server', 'delete', '--wait', 'ks-vm',
                      parse=False)
        self.assertEqual([], lab.openstack('nova-lite', 'server', 'list'))
        base.wait_for(lambda: self._usage_total() == 0, timeout=60,
                      what='placement usage back to 0')

        # Without a Keystone token both APIs answer 401; noauth2's
        # "admin" token is no token at all here.
        for url in (lab.api + '/v2.1/servers',
                    lab.placement + '/resource_providers'):
            self.assertEqual(401, _status_without_token(url), url)
            self.assertEqual(401, _status_without_token(url, 'admin'), url)

        # Two clients writing at once: SQLite has one writer, and the
        # lab's Keystone takes one request at a time there (no 500
        # "database is locked").
        statuses = _parallel_writes(lab)
        self.assertEqual({201}, set(statuses), statuses)

        self.assertIn('keystone', lab.pids())
        # unstack.sh --purge: LabError names any process of the lab left
        # (Keystone's gunicorn and its worker included).
        lab.destroy()

    def test_network_service_through_the_openstack_cli(self):
        # The catalog's network endpoint (/network on nova-lite-api) is
        # what the CLI's network commands use; the compute API makes the
        # server's port on the network it is asked for.
        lab = self.lab
        net = lab.openstack('nova-lite', 'network', 'create', 'cli-net')
        self.assertEqual('ACTIVE', net['status'])
        subnet = lab.openstack('nova-lite', 'subnet', 'create', '--network',
                               'cli-net', '--subnet-range', '10.5.0.0/24',
                               'cli-subnet')
        self.assertEqual('10.5.0.1', subnet['gateway_ip'])
        self.assertEqual(['cli-net'], [n['Name'] for n in lab.openstack(
            'nova-lite', 'network', 'list')])
        groups = lab.openstack('nova-lite', 'security', 'group', 'list')
        self.assertEqual(['default'], [g['Name'] for g in groups])
        server = lab.openstack(
            'nova-lite', 'server', 'create', '--flavor', 'm1.tiny',
            '--image', lab_mod.IMAGE, '--network', 'cli-net', '--wait',
            'net-vm')
        self.assertEqual('ACTIVE', server['status'], server.get('fault'))
        self.assertEqual({'cli-net': ['10.5.0.2']}, server['addresses'])
        ports = lab.openstack('nova-lite', 'port', 'list', '--server',
                              'net-vm')
        self.assertEqual(1, len(ports))
        lab.openstack('nova-lite', 'server', 'delete', '--wait', 'net-vm',
                      parse=False)
        self.assertEqual([], lab.openstack('nova-lite', 'port', 'list'))
        lab.openstack('nova-lite', 'network', 'delete', 'cli-net',
                      parse=False)
        self.assertEqual([], lab.openstack('nova-lite', 'network', 'list'))

class TestKeystoneLabOnMySQL(testtools.TestCase):
    """A MariaDB lab keeps Keystone's data in MariaDB too, in its own
    database, which ``unstack.sh --purge`` drops with the lab's."""

    def setUp(self):
        super().setUp()
        base.require_rabbit(self)
        base.require_mysql(self)
        self.lab = lab_mod.Lab(cells=1, computes_per_cell=1,
                               nodes_per_compute=1, database='mysql',
                               name_prefix='nl_ksm', keystone=True,
                               report_interval=lab_mod.TEST_REPORT_INTERVAL)
        self.addCleanup(self.lab.destroy)
        self.addOnException(
            lambda exc_info: lab_mod.attach_logs(self, self.lab))
        self.lab.stack()

    def _keystone_tables(self):
        conn = pymysql.connect(host='127.0.0.1', user='root')
        try:
            with conn.cursor() as cur:
                cur.execute(
                    'SELECT COUNT(*) FROM information_schema.tables '
                    'WHERE table_schema = %s', (self.lab.name + '_keystone',))
                return cur.fetchone()[0]
        finally:
            conn.close()

    def test_keystone_data_in_the_labs_mariadb(self):
        self.assertGreater(self._keystone_tables(), 10)
        statuses = _parallel_writes(self.lab, writers=3)
        self.assertEqual({201}, set(statuses), statuses)
        self.assertEqual(200, _status_without_token(
            self.lab.api + '/v2.1/servers', _admin_token(self.lab)))
        self.lab.destroy()
        self.assertEqual(0, self._keystone_tables())
