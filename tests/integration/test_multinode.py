"""A controller and two compute hosts, each in its own network namespace.

Each "host" has its own address on a bridge (tests/integration/netns.py)
and runs devstack/stack.sh with the role variables, inside ``ip netns
exec``, as a user runs it on three machines (doc/multinode.md): the
controller runs the APIs, the scheduler, the conductors, its own RabbitMQ
and MariaDB; each compute host runs one compute of cell1 and reaches the
controller only by its address. The lab binds beyond loopback, so it
refuses noauth2 (http_basic with generated passwords).

Needs root, network namespaces and the rabbitmq-server and mariadb-server
binaries (not the running services: the controller starts its own); it
skips with the reason otherwise (missing binaries fail instead with
NOVA_LITE_REQUIRE_SERVICES=1, as in CI; refused namespaces always skip,
and the skip line says why).
"""

import base64
import json
import os
import signal
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
import uuid

import testtools

from tests.faults import services
from tests.integration import lab as lab_mod
from tests.integration import netns
from tests.integration import test_services as base

FLAVOR_REF = '1'
IMAGE_REF = 'c1a7e0a5-5e1f-4b7b-9f0e-0000000000c1'
API_PORT, PLACEMENT_PORT = 8774, 8778
VERSION = 'compute 2.95'
HOSTS = ('ctl', 'cmp1', 'cmp2')


class NamespaceLab(testtools.TestCase):
    """Hosts in network namespaces, the controller's RabbitMQ and MariaDB
    (private servers in its namespace), stack.sh and clients per host."""

    HOSTS = HOSTS
    SUBNET = netns.SUBNET
    PREFIX = 'nl'

    def setUp(self):
        super().setUp()
        reason = netns.skip_reason()
        if reason:
            self.skipTest('multi-node lab: %s' % reason)
        # Missing servers skip, or fail with NOVA_LITE_REQUIRE_SERVICES=1
        # (CI); refused namespaces always skip, with the reason.
        missing = services.missing_binaries()
        base.require_service(self, not missing,
                             'multi-node lab: missing %s' % missing)
        self.root = tempfile.mkdtemp(prefix='nova-lite-multinode-')
        self.net = netns.Network(self.HOSTS, self.SUBNET, self.PREFIX)
        self.addCleanup(self._clean_up)
        self.net.create()
        self.name = 'nl_mn_%s' % uuid.uuid4().hex[:6]
        self.rabbit = netns.NsRabbit(os.path.join(self.root, 'servers'))
        self.mysql = netns.NsMariaDB(os.path.join(self.root, 'servers'),
                                     3306)
        with self.net.entered('ctl'):
            self.rabbit.start()
            self.mysql.start()
        self.bindir = self.rabbit.write_ctl_shim(
            os.path.join(self.root, 'bin'))
        self.stacked = []
        self.api = 'http://%s:%d' % (self.net.address('ctl'), API_PORT)

    def _clean_up(self):
        for host in reversed(self.stacked):
            self.script(host, 'unstack.sh', '--purge')
        try:
            with self.net.entered('ctl'):
                self.mysql.destroy()
                self.rabbit.destroy()
        except Exception:  # noqa: BLE001 - the namespace goes anyway
            pass
        self.net.destroy()
        subprocess.run(['rm', '-rf', self.root])

    # -- hosts --------------------------------------------------------------

    def env(self, host, **extra):
        state = os.path.join(self.root, host)
        env = dict(os.environ, NOVA_LITE_VENV=sys.prefix,
                   NOVA_LITE_STATE_DIR=state, NOVA_LITE_NAME=self.name,
                   NOVA_LITE_HOST_IP=self.net.address(host),
                   NOVA_LITE_SERVICE_HOST=self.net.address('ctl'),
                   NOVA_LITE_API_PORT=str(API_PORT),
                   NOVA_LITE_PLACEMENT_PORT=str(PLACEMENT_PORT),
                   NOVA_LITE_DATABASE='mysql', NOVA_LITE_CELLS='1',
                   NOVA_LITE_COMPUTES_PER_CELL='1',
                   NOVA_LITE_NODES_PER_COMPUTE='5', INSTALL_SERVICES='False',
                   PATH=self.bindir + ':' + os.environ['PATH'],
                   OS_CLIENT_CONFIG_FILE=os.path.join(state, 'clouds.yaml'),
                   OS_DEFAULT__REPORT_INTERVAL=str(
                       lab_mod.TEST_REPORT_INTERVAL))
        for key in list(env):
            if key.startswith(('NOVA_LITE_AUTH', 'NOVA_LITE_RABBIT_URL',
                               'NOVA_LITE_MYSQL', 'NOVA_LITE_KEYSTONE',
                               'NOVA_LITE_ENABLED', 'NOVA_LITE_LOCAL_CONF')):
                del env[key]
        env.update(extra)
        return env

    def script(self, host, name, *args, **extra):
        env = getattr(self, 'envs', {}).get(host) or self.env(host)
        env = dict(env, **extra)
        return self.net.run(
            host, ['bash', os.path.join(lab_mod.DEVSTACK, name), *args],
            env=env, timeout=lab_mod.STACK_TIMEOUT)

    def stack(self, host, env):
        self.envs = getattr(self, 'envs', {})
        self.envs[host] = env
        self.stacked.append(host)
        result = self.script(host, 'stack.sh')
        self.assertEqual(0, result.returncode,
                         '%s: stack.sh failed:\n%s\n%s' % (
                             host, result.stdout[-5000:],
                             result.stderr[-2000:]))
        return result.stdout

    def passwords(self):
        found = {}
        with open(os.path.join(self.root, 'ctl', 'passwords')) as f:
            for line in f:
                key, _, value = line.strip().partition('=')
                found[key] = value
        return found

    # -- clients (from inside the controller's namespace) -------------------

    def request(self, method, url, body=None, headers=None, user='admin'):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method=method)
        if user:
            token = base64.b64encode(('%s:%s' % (
                user, self.admin_password)).encode()).decode()
            req.add_header('Authorization', 'Basic ' + token)
        req.add_header('OpenStack-API-Version', VERSION)
        for key, value in (headers or {}).items():
            req.add_header(key, value)
        if data is not None:
            req.add_header('Content-Type', 'application/json')
        with self.net.entered('ctl'):
            try:
                with urllib.request.urlopen(req, timeout=60) as resp:
                    payload, status = resp.read(), resp.status
            except urllib.error.HTTPError as e:
                payload, status = e.read(), e.code
        return status, (json.loads(payload) if payload else None)

    def compute(self, method, path, body=None, **kw):
        return self.request(method, self.api + '/v2.1' + path, body, **kw)

    def openstack(self, *args):
        env = self.envs['ctl']
        result = self.net.run('ctl', [os.path.join(sys.prefix, 'bin',
                                                   'openstack'),
                                      '--os-cloud', 'nova-lite-admin', *args,
                                      '-f', 'json'], env=env, timeout=120)
        self.assertEqual(0, result.returncode, result.stderr[-2000:])
        return json.loads(result.stdout)

    def servers(self):
        status, body = self.compute('GET', '/servers/detail?all_tenants=1')
        self.assertEqual(200, status, body)
        return body['servers']

    def wait_servers(self, predicate, what, timeout=240):
        found = []

        def check():
            found[:] = [self.servers()]
            return predicate(found[0])
        try:
            base.wait_for(check, timeout=timeout, interval=1, what=what)
        except Exception:
            self.fail('%s: %s' % (what, [
                (s.get('name'), s['status'], s.get('OS-EXT-SRV-ATTR:host'),
                 s.get('fault')) for s in (found or [[]])[0]]))
        return found[0]



class TestControllerAndTwoComputeHosts(NamespaceLab):

    def memory_used(self, host_of):
        """{compute host: MEMORY_MB used on its nodes} from placement."""
        placement = 'http://%s:%d' % (self.net.address('ctl'),
                                      PLACEMENT_PORT)
        headers = {'OpenStack-API-Version': 'placement 1.39'}
        status, body = self.request('GET', placement + '/resource_providers',
                                    headers=headers)
        self.assertEqual(200, status, body)
        used = {}
        for rp in body['resource_providers']:
            status, usages = self.request(
                'GET', placement + '/resource_providers/%s/usages'
                % rp['uuid'], headers=headers)
            host = host_of[rp['name']]
            used[host] = used.get(host, 0) + usages['usages'].get(
                'MEMORY_MB', 0)
        return used

    # -- the test -----------------------------------------------------------

    def test_boot_spread_kill_a_host_evacuate_and_unstack(self):
        ctl, cmp1, cmp2 = (self.net.address(h) for h in HOSTS)
        out = self.stack('ctl', self.env(
            'ctl', NOVA_LITE_ENABLED_SERVICES='api,placement,scheduler,'
            'conductor,cell-conductor'))
        self.assertIn('http_basic (not noauth2)', out)
        pw = self.passwords()
        self.admin_password = pw['NOVA_LITE_ADMIN_PASSWORD']
        # The lab's own broker and database users, not guest and root.
        with open(os.path.join(self.root, 'ctl', 'lab-settings.sh')) as f:
            record = f.read()
        self.assertIn('rabbit://%s:%s@%s:5672/' % (
            self.name, pw['NOVA_LITE_RABBIT_PASSWORD'], ctl), record)
        self.assertIn('mysql+pymysql://%s:%s@%s:3306' % (
            self.name, pw['NOVA_LITE_DATABASE_PASSWORD'], ctl), record)
        self.assertNotIn('guest', record)

        # Beyond loopback: noauth2's admin token is refused, by both APIs.
        self.assertEqual(401, self.compute(
            'GET', '/servers', user=None,
            headers={'X-Auth-Token': 'admin'})[0])
        self.assertEqual(401, self.request(
            'GET', 'http://%s:%d/resource_providers' % (ctl, PLACEMENT_PORT),
            user=None, headers={'X-Auth-Token': 'admin'})[0])
        self.assertEqual(200, self.compute('GET', '/servers')[0])

        hosts = {}
        for host, prefix in (('cmp1', 'host1-'), ('cmp2', 'host2-')):
            self.stack(host, self.env(
                host, NOVA_LITE_ENABLED_SERVICES='compute',
                NOVA_LITE_COMPUTE_PREFIX=prefix,
                NOVA_LITE_RABBIT_PASSWORD=pw['NOVA_LITE_RABBIT_PASSWORD'],
                NOVA_LITE_DATABASE_PASSWORD=pw['NOVA_LITE_DATABASE_PASSWORD'],
                NOVA_LITE_ADMIN_PASSWORD=self.admin_password))
            hosts[host] = prefix + 'cell1-compute1'
        address = {hosts['cmp1']: cmp1, hosts['cmp2']: cmp2}

        # openstack hypervisor list: each host's nodes with its address.
        status, body = self.compute('GET', '/os-hypervisors/detail')
        self.assertEqual(200, status, body)
        host_of = {h['hypervisor_hostname']: h['service']['host']
                   for h in body['hypervisors']}
        self.assertEqual(set(address), set(host_of.values()))
        listed = self.openstack('hypervisor', 'list')
        self.assertEqual(10, len(listed))
        for row in listed:
            self.assertEqual(address[host_of[row['Hypervisor Hostname']]],
                             row['Host IP'], row)

        # 20 servers land on both compute hosts.
        status, body = self.compute('PUT', '/os-quota-sets/admin', {
            'quota_set': {'instances': 100, 'cores': 400, 'ram': 100000}})
        self.assertEqual(200, status, body)
        status, body = self.compute('POST', '/servers', {'server': {
            'name': 'mn', 'flavorRef': FLAVOR_REF, 'imageRef': IMAGE_REF,
            'networks': 'none', 'min_count': 20, 'max_count': 20}})
        self.assertEqual(202, status, body)
        servers = self.wait_servers(
            lambda ss: len(ss) == 20 and all(
                s['status'] in ('ACTIVE', 'ERROR') for s in ss),
            '20 servers settled')
        self.assertEqual({'ACTIVE'}, {s['status'] for s in servers})
        on = {}
        for s in servers:
            on.setdefault(s['OS-EXT-SRV-ATTR:host'], []).append(s['id'])
        self.assertEqual(set(address), set(on), on)

        # The first compute host dies (SIGKILL of its namespace).
        dead = hosts['cmp1']
        self.net.kill_all('cmp1', signal.SIGKILL)
        status, body = self.compute(
            'GET', '/os-services?binary=nova-compute&host=' + dead)
        [service] = body['services']
        status, body = self.compute('PUT', '/os-services/' + service['id'],
                                    {'forced_down': True})
        self.assertEqual(200, status, body)
        for sid in on[dead]:
            status, body = self.compute('POST', '/servers/%s/action' % sid,
                                        {'evacuate': {}})
            self.assertEqual(200, status, body)
        moved = set(on[dead])
        servers = self.wait_servers(
            lambda ss: all(s['status'] == 'ACTIVE' and
                           s['OS-EXT-SRV-ATTR:host'] == hosts['cmp2']
                           for s in ss if s['id'] in moved),
            'evacuated servers ACTIVE on %s' % hosts['cmp2'])
        self.assertEqual(20, len(servers))
        # Placement: the rescuing host holds all 20 (m1.tiny: 512 MB each);
        # the dead host keeps its 10 source claims until its compute comes
        # back and frees them, as in Nova.
        self.assertEqual({hosts['cmp2']: 20 * 512, dead: 10 * 512},
                         self.memory_used(host_of))

        # unstack.sh on each host leaves nothing of its own.
        pids = {}
        for host in ('cmp2', 'cmp1', 'ctl'):
            state = os.path.join(self.root, host)
            lab = lab_mod.Lab.__new__(lab_mod.Lab)
            lab.state = state
            pids[host] = (lab, lab.pids())
        for host in ('cmp2', 'cmp1', 'ctl'):
            result = self.script(host, 'unstack.sh', '--purge')
            self.assertEqual(0, result.returncode, result.stdout[-3000:])
            self.stacked.remove(host)
            lab, before = pids[host]
            self.assertEqual({}, lab.leftover_processes(before), host)
            if host != 'ctl':
                self.assertEqual([], self.net.pids(host), host)
                self.assertIn('not the controller', result.stdout)
        # Only the test's own RabbitMQ and MariaDB are left on the
        # controller; the lab's databases, vhosts and users are gone.
        with self.net.entered('ctl'):
            vhosts = self.rabbit.ctl('-q', 'list_vhosts').stdout.split()
            users = self.rabbit.ctl('-q', 'list_users').stdout
        self.assertEqual([], [v for v in vhosts if self.name in v])
        self.assertNotIn(self.name, users)
