"""A lab on the private broker and database, and what the suite asks it.

:class:`FaultLab` is :class:`tests.integration.lab.Lab` stacked on the
suite's private RabbitMQ and MariaDB, on ports of the suite's range, with
short intervals set through oslo.config's environment source
(``OS_<GROUP>__<OPTION>`` wins over the lab's files, so every process of
the lab reads them without touching devstack).

The checks (:func:`invariants`), what every fault must leave true:

* stuck: servers neither ACTIVE nor ERROR at the deadline
  (``instance_build_timeout`` + 60 s after the fault ended);
* lost: creates answered 202 whose server is gone (404), or that ended in
  ERROR with no fault to say why;
* claims: every server placed on a node holds its flavor there and
  nothing else, every server without a node holds nothing, and each
  provider's usage is the sum of the flavors of the servers on it;
* orphans: ``nova-lite-manage placement audit`` (exit 0 when none) and
  allocations whose consumer is no server of the lab.
"""

import concurrent.futures
import json
import math
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from nova_lite.virt import fake_state
from tests.integration import lab as lab_mod

FLAVOR_REF = '1'
IMAGE_REF = 'c1a7e0a5-5e1f-4b7b-9f0e-0000000000c1'
COMPUTE_VERSION = 'compute 2.95'
SETTLED = ('ACTIVE', 'ERROR')

# What the lab processes read on top of the lab's files: builds take a
# while (in flight when the fault hits), hung ones end fast, and an RPC
# call lost in an outage times out within it (20 s, not 60: a broker
# restart on a loaded machine takes 15-40 s, so the suite exercises the
# MessagingTimeout paths a real outage takes). ``--set`` overrides any.
DEFAULT_OPTIONS = {
    'compute.instance_build_timeout': '30',
    'compute.update_resources_interval': '10',
    'fake_driver.spawn_delay': '3',
    'DEFAULT.rpc_response_timeout': '20',
}


def option_env(options):
    """``{'group.name': value}`` as oslo.config environment variables."""
    env = {}
    for key, value in options.items():
        group, _, name = key.rpartition('.')
        env['OS_%s__%s' % ((group or 'DEFAULT').upper(), name.upper())] = \
            str(value)
    return env


class FaultLab(lab_mod.Lab):
    """A lab whose bus and databases are the suite's private servers."""

    def __init__(self, rabbit, mysql, shim_dir, api_port, options,
                 cells=1, nodes=5, name_prefix='nl_fault'):
        # The test labs' heartbeat: stack.sh waits for every compute's
        # first one, and computes_up() for the first after a fault.
        super().__init__(cells=cells, computes_per_cell=1,
                         nodes_per_compute=nodes, database='mysql',
                         name_prefix=name_prefix,
                         report_interval=lab_mod.TEST_REPORT_INTERVAL)
        self.options = dict(options)
        self.database_server = mysql
        self.api_port, self.placement_port = api_port, api_port + 1
        self.api = 'http://127.0.0.1:%d' % self.api_port
        self.placement = 'http://127.0.0.1:%d' % self.placement_port
        self.env.update(
            NOVA_LITE_API_PORT=str(self.api_port),
            NOVA_LITE_PLACEMENT_PORT=str(self.placement_port),
            NOVA_LITE_RABBIT_URL=rabbit.url, NL_RABBIT_PORT=str(rabbit.port),
            NOVA_LITE_MYSQL_URL=mysql.url, NL_MYSQL_PORT=str(mysql.port),
            PATH=shim_dir + os.pathsep + self.env.get('PATH', ''))
        self.env.update(option_env(self.options))

    @property
    def build_timeout(self):
        return int(self.options.get('compute.instance_build_timeout', 0))

    def conf_file(self):
        return os.path.join(self.state, 'etc', 'api-level.conf')

    def kill_service(self, name, sig):
        """Signal the process group of lab service ``name`` (pid file
        name: ``conductor``, ``conductor-cell1``, ``compute-<host>``); wait
        until it is gone."""
        pid = self.pids()[name]
        os.killpg(pid, sig)
        lab_mod.base.wait_for(
            lambda: not lab_mod.alive(pid) or lab_mod._is_zombie(pid),
            timeout=120, what='%s gone' % name)

    def service_command(self, name):
        """The command stack.sh (devstack/lib/lab.sh nl_start_services)
        runs for ``name``; /proc's command line is the process title."""
        etc = os.path.join(self.state, 'etc')
        binary = os.path.join(sys.prefix, 'bin', 'nova-lite-')
        if name == 'conductor':
            return [binary + 'conductor', '--config-file',
                    os.path.join(etc, 'api-level.conf')]
        kind, _, where = name.partition('-')
        if kind == 'conductor':
            return [binary + 'conductor', '--config-file',
                    os.path.join(etc, where + '.conf'), '--cell', where]
        if kind == 'compute':
            return [binary + 'compute', '--config-file',
                    os.path.join(etc, where + '.conf'), '--config-dir',
                    os.path.join(etc, where + '.conf.d')]
        raise ValueError('no command known for lab service %r' % name)

    def start_service(self, name):
        """Start ``name`` again as stack.sh does (own session, log and
        pid file), without stack.sh's other steps."""
        cmdline = self.service_command(name)
        with open(os.path.join(self.state, 'logs', name + '.log'),
                  'ab') as log:
            proc = subprocess.Popen(cmdline, env=self.env, stdout=log,
                                    stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL,
                                    start_new_session=True)
        with open(os.path.join(self.state, 'pids', name + '.pid'),
                  'w') as f:
            f.write('%d\n' % proc.pid)
        # Reap it whenever it ends (unstack.sh stops it).
        threading.Thread(target=proc.wait, daemon=True).start()
        return proc.pid

    def audit(self):
        """(exit code, output) of ``nova-lite-manage placement audit``."""
        result = subprocess.run(
            [os.path.join(sys.prefix, 'bin', 'nova-lite-manage'),
             '--config-file', self.conf_file(), 'placement', 'audit',
             '--verbose'], env=self.env, capture_output=True, text=True,
            timeout=300)
        return result.returncode, result.stdout + result.stderr


# -- HTTP with a deadline -----------------------------------------------------

def timed(method, url, body=None, headers=None, timeout=60):
    """(status, seconds, parsed body); status is 'timeout' or 'error:<x>'
    when no HTTP answer came."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    for key, value in (headers or {}).items():
        req.add_header(key, value)
    if data is not None:
        req.add_header('Content-Type', 'application/json')
    started = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            status, payload = resp.status, resp.read()
    except urllib.error.HTTPError as e:
        status, payload = e.code, e.read()
    except (socket.timeout, TimeoutError):
        return 'timeout', time.monotonic() - started, None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, 'reason', e)
        if isinstance(reason, (socket.timeout, TimeoutError)):
            return 'timeout', time.monotonic() - started, None
        return 'error:%s' % type(reason).__name__, \
            time.monotonic() - started, None
    elapsed = time.monotonic() - started
    try:
        parsed = json.loads(payload) if payload else None
    except ValueError:
        parsed = payload[:200].decode('utf-8', 'replace')
    return status, elapsed, parsed


def compute_call(lab, method, path, body=None, admin=True, timeout=60):
    headers = {'X-Auth-Token': 'admin' if admin else lab_mod.MEMBER_PROJECT,
               'OpenStack-API-Version': COMPUTE_VERSION}
    return timed(method, lab.api + '/v2.1' + path, body, headers, timeout)


def create_body(name):
    return {'server': {'name': name, 'flavorRef': FLAVOR_REF,
                       'imageRef': IMAGE_REF, 'networks': 'none'}}


class Burst:
    """Creates sent by ``concurrency`` clients; runs in a thread so that a
    fault can hit while it goes on. ``answered`` counts the POSTs that got
    any answer (or none in time)."""

    def __init__(self, lab, prefix, count, concurrency=5, timeout=60):
        self.lab, self.prefix, self.count = lab, prefix, count
        self.concurrency, self.timeout = concurrency, timeout
        self.results = []
        self.answered = 0
        self._lock = threading.Lock()
        self._thread = None

    def _one(self, index):
        status, elapsed, body = compute_call(
            self.lab, 'POST', '/servers',
            create_body('%s-%02d' % (self.prefix, index)), admin=False,
            timeout=self.timeout)
        server_id = None
        if status == 202 and isinstance(body, dict):
            server_id = body['server']['id']
        with self._lock:
            self.results.append({'status': status,
                                 'seconds': round(elapsed, 2),
                                 'id': server_id})
            self.answered += 1

    def run(self):
        with concurrent.futures.ThreadPoolExecutor(self.concurrency) as pool:
            list(pool.map(self._one, range(self.count)))
        return self

    def start(self):
        self._thread = threading.Thread(target=self.run, daemon=True)
        self._thread.start()
        return self

    def join(self):
        self._thread.join()
        return self

    def wait_answered(self, count, timeout=120):
        deadline = time.monotonic() + timeout
        while self.answered < count and time.monotonic() < deadline:
            if self._thread is not None and not self._thread.is_alive():
                break
            time.sleep(0.05)

    @property
    def accepted(self):
        return [r['id'] for r in self.results if r['id']]

    def summary(self):
        statuses = {}
        for r in self.results:
            statuses[str(r['status'])] = statuses.get(str(r['status']), 0) + 1
        slowest = max((r['seconds'] for r in self.results), default=0)
        return {'sent': len(self.results), 'statuses': statuses,
                'slowest_s': slowest}


# -- reading the lab ----------------------------------------------------------

def list_servers(lab, timeout=30):
    """Every server of the lab ({id: server}); None when the API did not
    answer 200."""
    status, _, body = compute_call(
        lab, 'GET', '/servers/detail?all_tenants=1&limit=1000',
        timeout=timeout)
    if status != 200:
        return None
    return {s['id']: s for s in body['servers']}


def wait_settled(lab, server_ids, deadline, only=False):
    """Poll until every server of the lab (``only``: of ``server_ids``)
    left BUILD; (servers by id, settled at monotonic time or None). A
    create whose client gave up may still have made a server: it counts
    too."""
    servers = {}
    while True:
        listed = list_servers(lab)
        if listed is not None:
            servers = listed
            watched = server_ids if only else set(server_ids) | set(servers)
            pending = [sid for sid in watched
                       if sid in servers and
                       servers[sid]['status'] not in SETTLED]
            if not pending:
                return servers, time.monotonic()
        if time.monotonic() >= deadline:
            return servers, None
        time.sleep(2)


def flavor_resources(flavor):
    """Placement resources of a server's embedded flavor (2.47+)."""
    return {'VCPU': flavor['vcpus'], 'MEMORY_MB': flavor['ram'],
            'DISK_GB': flavor['disk'] + flavor.get('ephemeral', 0) +
            int(math.ceil(flavor.get('swap', 0) / 1024.0))}


def _node(server):
    return server.get('OS-EXT-SRV-ATTR:hypervisor_hostname')


def claims(lab, servers):
    """Compare placement with the servers: (usage mismatches by provider,
    wrong claims by server, orphan consumers by provider)."""
    providers = lab.providers()
    by_name = {rp['name']: rp['uuid'] for rp in providers}
    expected_usage = {rp['uuid']: {} for rp in providers}
    wrong = {}
    for sid, server in servers.items():
        node = _node(server)
        want = {}
        if node:
            rp = by_name.get(node)
            want = {rp: flavor_resources(server['flavor'])}
            for rc, n in want[rp].items():
                usage = expected_usage.setdefault(rp, {})
                usage[rc] = usage.get(rc, 0) + n
        held = lab.placement_get('/allocations/' + sid)['allocations']
        got = {rp: {rc: n for rc, n in a['resources'].items()}
               for rp, a in held.items()}
        if got != want:
            wrong[sid] = {'status': server['status'], 'node': node,
                          'holds': got, 'expected': want}
    usage_wrong, orphans = {}, {}
    for rp in providers:
        uuid = rp['uuid']
        used = {rc: n for rc, n in lab.placement_get(
            '/resource_providers/%s/usages' % uuid)['usages'].items() if n}
        if used != expected_usage.get(uuid, {}):
            usage_wrong[rp['name']] = {'placement': used,
                                       'servers': expected_usage.get(uuid)}
        consumers = lab.placement_get(
            '/resource_providers/%s/allocations' % uuid)['allocations']
        strays = sorted(set(consumers) - set(servers))
        if strays:
            orphans[rp['name']] = strays
    return usage_wrong, wrong, orphans


def guests(lab):
    """{instance uuid: node} of the fake driver's guests, every host
    (``<state>/fake_driver/<host>.json`` and its journal, which outlive
    the compute)."""
    found = {}
    folder = os.path.join(lab.state, 'fake_driver')
    if not os.path.isdir(folder):
        return found
    hosts = {os.path.splitext(name)[0] for name in os.listdir(folder)
             if name.endswith(('.json', '.journal'))}
    for host in hosts:
        try:
            held = fake_state.read_guests(os.path.join(folder,
                                                       host + '.json'))
        except (OSError, ValueError, KeyError, TypeError):
            continue
        for uuid, guest in held.items():
            found[uuid] = guest.get('node')
    return found


def guest_check(lab, servers):
    """Guests against servers: (ACTIVE servers without their guest,
    guests of no server or on another node, ERROR servers whose guest
    runs anyway)."""
    held = guests(lab)
    missing = sorted(sid for sid, s in servers.items()
                     if s['status'] == 'ACTIVE' and
                     held.get(sid) != _node(s))
    stray = sorted(uuid for uuid, node in held.items()
                   if uuid not in servers or _node(servers[uuid]) != node)
    built_anyway = sorted(sid for sid, s in servers.items()
                          if s['status'] == 'ERROR' and sid in held)
    return missing, stray, built_anyway


def audit_orphans(output):
    """Consumers the audit called orphaned."""
    return sorted({line.split()[3] for line in output.splitlines()
                   if line.startswith('Allocations for consumer') and
                   'orphaned' in line})
