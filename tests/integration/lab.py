"""A lab stacked by devstack/stack.sh, for tests and benchmarks.

Stacking costs tens of seconds, so a test class shares one :class:`Lab`
(see :class:`LabTestCase`). The lab lives in a temporary state directory
with its own vhost/database prefix and free ports and runs from the test's
own virtualenv (``NOVA_LITE_VENV``), so it never touches a lab the user
keeps on this machine. Per-compute overrides (fault injection) go into
``etc/<host>.conf.d/`` before stacking (:meth:`Lab.set_compute_conf`).

:meth:`Lab.destroy` runs ``unstack.sh --purge`` and then checks that no
process of the lab remains (by pid file, process group and command line).
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import testtools

from tests.integration import test_services as base

DEVSTACK = os.path.join(base.REPO_ROOT, 'devstack')
STACK_TIMEOUT = 300
# The compute API's largest quota value (a 32-bit integer, as Nova's).
QUOTA_MAX = 2 ** 31 - 1
ADMIN_HEADERS = {'X-Auth-Token': 'admin',
                 'OpenStack-API-Version': 'compute 2.95'}
# The member cloud of clouds.yaml (``nova-lite``) sends this token, which
# noauth2 takes for the user and project ``demo``.
MEMBER_PROJECT = 'demo'
IMAGE = 'cirros-0.6.3-x86_64-disk'
# The [DEFAULT] report_interval of the test labs' services (the lab's own
# is 10 s). stack.sh returns once every compute has sent its first
# heartbeat, which comes one interval after its first resource update:
# with 10 s every stack (and restack) of a test waited most of that.
TEST_REPORT_INTERVAL = 2
# What a default lab leaves to stack.sh (``Lab`` with no size).
DEFAULT_SIZE_VARS = ('NOVA_LITE_CELLS', 'NOVA_LITE_COMPUTES_PER_CELL',
                     'NOVA_LITE_NODES_PER_COMPUTE', 'NOVA_LITE_DATABASE')


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def processes_mentioning(text):
    """Pids whose command line contains ``text`` (from /proc)."""
    found = []
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/cmdline' % entry, 'rb') as f:
                cmdline = f.read().replace(b'\0', b' ').decode(
                    'utf-8', 'replace')
        except OSError:
            continue
        if text in cmdline:
            found.append(int(entry))
    return found


class LabError(Exception):
    pass


class Lab:
    """One stacked lab: scripts, clients and its processes."""

    def __init__(self, cells=2, computes_per_cell=2, nodes_per_compute=3,
                 database='mysql', name_prefix='nl_lab', keystone=False,
                 report_interval=None):
        """A lab of ``cells`` x ``computes_per_cell`` x ``nodes_per_compute``
        on ``database``; with all four None, stack.sh's default lab (and
        no local.conf)."""
        self.state = tempfile.mkdtemp(prefix='nova-lite-lab-')
        self.name = '%s_%s' % (name_prefix, uuid.uuid4().hex[:6])
        self.api_port, self.placement_port = free_port(), free_port()
        self.env = dict(
            os.environ, NOVA_LITE_VENV=sys.prefix,
            NOVA_LITE_STATE_DIR=self.state, NOVA_LITE_NAME=self.name,
            NOVA_LITE_API_PORT=str(self.api_port),
            NOVA_LITE_PLACEMENT_PORT=str(self.placement_port),
            NOVA_LITE_NODES_PER_COMPUTE=str(nodes_per_compute),
            NOVA_LITE_DATABASE=str(database), INSTALL_SERVICES='False',
            OS_CLIENT_CONFIG_FILE=os.path.join(self.state, 'clouds.yaml'))
        if report_interval is not None:
            # oslo.config reads OS_<GROUP>__<OPTION> over the lab's files.
            self.env['OS_DEFAULT__REPORT_INTERVAL'] = str(report_interval)
        self.default_size = (cells, computes_per_cell, nodes_per_compute,
                             database) == (None,) * 4
        if self.default_size:
            for var in DEFAULT_SIZE_VARS:
                self.env.pop(var, None)
            self.env['NOVA_LITE_LOCAL_CONF'] = os.path.join(
                self.state, 'no-local.conf')
            self.cells, self.computes = [], {}
        else:
            self.resize(cells, computes_per_cell)
        self.keystone = None
        if keystone:
            # Keystone's virtualenv sits next to sys.prefix (stack.sh's
            # default) and is installed by the first such stack only.
            port = free_port()
            self.keystone = 'http://127.0.0.1:%d/v3' % port
            self.env.update(NOVA_LITE_KEYSTONE='True',
                            NOVA_LITE_KEYSTONE_PORT=str(port))
            self.keystone_password = self.env.setdefault(
                'NOVA_LITE_KEYSTONE_PASSWORD', 'nova-lite')
        # stack.sh's public, private and router1: off unless a test asks
        # (prepare_lab), so that the servers tests make without networks
        # stay on none.
        self.env['NOVA_LITE_DEFAULT_NETWORKS'] = 'False'
        self.api = 'http://127.0.0.1:%d' % self.api_port
        self.placement = 'http://127.0.0.1:%d' % self.placement_port
        self.stack_seconds = None
        self.destroyed = False

    def resize(self, cells, computes_per_cell):
        """Cells and computes of the next :meth:`stack` (a re-run with more
        grows the running lab)."""
        self.cells = ['cell%d' % i for i in range(1, cells + 1)]
        self.computes = {cell: ['%s-compute%d' % (cell, i)
                                for i in range(1, computes_per_cell + 1)]
                         for cell in self.cells}
        self.env.update(NOVA_LITE_CELLS=str(cells),
                        NOVA_LITE_COMPUTES_PER_CELL=str(computes_per_cell))

    # -- scripts -----------------------------------------------------------

    def script(self, name, *args):
        return subprocess.run(
            ['bash', os.path.join(DEVSTACK, name), *args], env=self.env,
            capture_output=True, text=True, timeout=STACK_TIMEOUT)

    def stack(self):
        started = time.monotonic()
        result = self.script('stack.sh')
        if result.returncode != 0:
            raise LabError('stack.sh failed:\n%s\n%s'
                           % (result.stdout[-4000:], result.stderr[-2000:]))
        self.stack_seconds = time.monotonic() - started
        if self.default_size:
            self._read_recorded_size()
        return result

    def _read_recorded_size(self):
        """Cells and computes of a default lab, as stack.sh recorded them
        (lab-settings.sh)."""
        recorded = {}
        with open(os.path.join(self.state, 'lab-settings.sh')) as f:
            for line in f:
                key, _, value = line.strip().partition('=')
                recorded[key] = value
        cells = int(recorded['NOVA_LITE_CELLS'])
        per_cell = int(recorded['NOVA_LITE_COMPUTES_PER_CELL'])
        self.cells = ['cell%d' % i for i in range(1, cells + 1)]
        self.computes = {cell: ['%s-compute%d' % (cell, i)
                                for i in range(1, per_cell + 1)]
                         for cell in self.cells}

    def set_compute_conf(self, host, text, name='test.conf'):
        """Write an override file read by ``host``'s compute (at its next
        start)."""
        confd = os.path.join(self.state, 'etc', host + '.conf.d')
        os.makedirs(confd, exist_ok=True)
        with open(os.path.join(confd, name), 'w') as f:
            f.write(text)

    def restart_missing(self):
        """Run stack.sh again: it starts the processes that are gone (a
        killed compute) and keeps everything else, data included."""
        return self.stack()

    def pids(self):
        pids = {}
        piddir = os.path.join(self.state, 'pids')
        if not os.path.isdir(piddir):
            return pids
        for entry in os.listdir(piddir):
            with open(os.path.join(piddir, entry)) as f:
                pids[entry[:-len('.pid')]] = int(f.read())
        return pids

    def kill_compute(self, host, sig=signal.SIGKILL):
        """Signal ``host``'s compute (its whole process group); wait for it
        to be gone."""
        pid = self.pids()['compute-' + host]
        os.killpg(pid, sig)
        base.wait_for(lambda: not alive(pid) or _is_zombie(pid),
                      what='compute %s gone' % host)
        return pid

    def leftover_processes(self, pids):
        """Processes of the lab still running after unstack."""
        left = {name: pid for name, pid in pids.items()
                if alive(pid) or group_alive(pid)}
        for pid in processes_mentioning(self.state):
            if pid != os.getpid() and not _is_zombie(pid):
                left['cmdline-%d' % pid] = pid
        return left

    def destroy(self):
        """unstack.sh --purge; LabError when a process of the lab is left."""
        if self.destroyed:
            return
        self.destroyed = True
        pids = self.pids()
        result = self.script('unstack.sh', '--purge')
        left = self.leftover_processes(pids)
        for pid in left.values():
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        shutil.rmtree(self.state, ignore_errors=True)
        if result.returncode != 0:
            raise LabError('unstack.sh failed: %s%s'
                           % (result.stdout, result.stderr))
        if left:
            raise LabError('processes left after unstack.sh: %s' % left)

    # -- clients -----------------------------------------------------------

    def openstack(self, cloud, *args, parse=True):
        """Run the real ``openstack`` CLI against the lab; JSON output."""
        cmd = [os.path.join(sys.prefix, 'bin', 'openstack'),
               '--os-cloud', cloud, *args]
        if parse:
            cmd += ['-f', 'json']
        result = subprocess.run(cmd, env=self.env, capture_output=True,
                                text=True, timeout=120)
        if result.returncode != 0:
            raise LabError('%s failed: %s' % (' '.join(args),
                                              result.stderr[-2000:]))
        return json.loads(result.stdout) if parse else result.stdout

    def request(self, method, url, body=None, headers=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method=method)
        for key, value in (headers or {}).items():
            req.add_header(key, value)
        if data is not None:
            req.add_header('Content-Type', 'application/json')
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                payload = resp.read()
                status = resp.status
        except urllib.error.HTTPError as e:
            payload, status = e.read(), e.code
        return status, (json.loads(payload) if payload else None)

    def compute(self, method, path, body=None, admin=True, headers=None):
        all_headers = dict(ADMIN_HEADERS) if admin else {
            'X-Auth-Token': MEMBER_PROJECT,
            'OpenStack-API-Version': 'compute 2.95'}
        all_headers.update(headers or {})
        return self.request(method, self.api + '/v2.1' + path, body,
                            all_headers)

    def placement_get(self, path):
        status, body = self.request(
            'GET', self.placement + path,
            headers={'X-Auth-Token': 'admin',
                     'OpenStack-API-Version': 'placement 1.39'})
        if status != 200:
            raise LabError('placement GET %s: %s %s' % (path, status, body))
        return body

    def set_member_quota(self, instances=1000):
        status, body = self.compute(
            'PUT', '/os-quota-sets/' + MEMBER_PROJECT,
            {'quota_set': {'instances': instances,
                           'cores': min(instances * 16, QUOTA_MAX),
                           'ram': min(instances * 65536, QUOTA_MAX)}})
        if status != 200:
            raise LabError('quota set: %s %s' % (status, body))

    def server(self, server_id):
        status, body = self.compute('GET', '/servers/' + server_id)
        return body['server'] if status == 200 else None

    def servers(self, **query):
        query.setdefault('all_tenants', '1')
        status, body = self.compute(
            'GET', '/servers/detail?' + urllib.parse.urlencode(query))
        if status != 200:
            raise LabError('server list: %s %s' % (status, body))
        return body['servers']

    def wait_status(self, server_ids, statuses=('ACTIVE', 'ERROR'),
                    timeout=120):
        """Wait until every server has left BUILD; {id: server}."""
        found = {}

        def settled():
            for sid in server_ids:
                if sid in found:
                    continue
                server = self.server(sid)
                if server and server['status'] in statuses:
                    found[sid] = server
            return len(found) == len(server_ids)
        base.wait_for(settled, timeout=timeout, interval=0.5,
                      what='servers in %s' % (statuses,))
        return found

    def wait_gone(self, server_ids, timeout=120):
        def gone():
            return all(self.server(sid) is None for sid in server_ids)
        base.wait_for(gone, timeout=timeout, interval=0.5,
                      what='servers deleted')

    def actions(self, server_id):
        """Instance actions with their events (admin view, hosts shown)."""
        status, body = self.compute(
            'GET', '/servers/%s/os-instance-actions' % server_id)
        result = []
        for action in body['instanceActions']:
            status, detail = self.compute(
                'GET', '/servers/%s/os-instance-actions/%s'
                % (server_id, action['request_id']))
            result.append(detail['instanceAction'])
        return result

    def providers(self):
        return self.placement_get('/resource_providers')[
            'resource_providers']

    def usages_in_use(self):
        """{provider name: {class: used}} for providers with usage."""
        used = {}
        for rp in self.providers():
            usages = self.placement_get(
                '/resource_providers/%s/usages' % rp['uuid'])['usages']
            nonzero = {rc: n for rc, n in usages.items() if n}
            if nonzero:
                used[rp['name']] = nonzero
        return used

    def cell_of_host(self, host):
        for cell, hosts in self.computes.items():
            if host in hosts:
                return cell
        return None


def _is_zombie(pid):
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().rsplit(')', 1)[1].split()[0] == 'Z'
    except OSError:
        return False


class LabTestCase(testtools.TestCase):
    """Tests sharing one lab per class, stacked at the first test.

    Subclasses set ``LAB_KWARGS`` and may override :meth:`prepare_lab`
    (called before stack.sh: per-compute config overrides). RabbitMQ (and
    MariaDB for ``database='mysql'``) must answer: skip, or fail with
    ``NOVA_LITE_REQUIRE_SERVICES=1``. The lab is unstacked after the last
    test of the class; a process left behind makes that an error.
    """

    LAB_KWARGS = {}
    lab = None
    lab_error = None

    def setUp(self):
        super().setUp()
        base.require_rabbit(self)
        if self.LAB_KWARGS.get('database', 'mysql') == 'mysql':
            base.require_mysql(self)
        cls = type(self)
        # Own attributes only: a subclass (another backend) has its own lab.
        if vars(cls).get('lab') is None and \
                vars(cls).get('lab_error') is None:
            lab = Lab(**{'report_interval': TEST_REPORT_INTERVAL,
                         **self.LAB_KWARGS})
            cls.lab = lab
            try:
                self.prepare_lab(lab)
                lab.stack()
            except Exception as e:
                cls.lab_error = str(e)
        if vars(cls).get('lab_error'):
            self.fail('lab did not stack: %s' % cls.lab_error)
        self.addOnException(self._attach_logs)
        self.addCleanup(self._check_no_500, served_500(self.lab))

    @classmethod
    def prepare_lab(cls, lab):
        pass

    @classmethod
    def tearDownClass(cls):
        lab = vars(cls).get('lab')
        cls.lab, cls.lab_error = None, None
        if lab is not None:
            lab.destroy()
        super().tearDownClass()

    def _attach_logs(self, exc_info):
        attach_logs(self, self.lab)

    def _check_no_500(self, before):
        """Fail a test during which the lab's API or placement answered
        a request 500, whatever the test asserted."""
        lab = vars(type(self)).get('lab')
        if lab is None:
            return
        found = new_lines(served_500(lab), before)
        if found:
            self.fail('%d requests answered 500 during the test:\n%s'
                      % (len(found), '\n'.join(found[:10])))


# What nova_lite.wsgi.faults logs (with the traceback) for each request a
# REST service answered 500: never a right answer, whatever the test or
# the fault (a fault is answered 503 or retried).
SERVED_500 = 'Unexpected error serving'


def log_files(logs):
    """(name, path) of each file in the log directory ``logs``, by name:
    none before a lab has written its first log."""
    if not os.path.isdir(logs):
        return []
    paths = ((name, os.path.join(logs, name))
             for name in sorted(os.listdir(logs)))
    return [(name, path) for name, path in paths if os.path.isfile(path)]


def served_500(lab, width=300):
    """{log name: [its lines naming a request answered 500]} of ``lab``
    (its earlier tests' lines too: see :func:`new_lines`)."""
    found = {}
    for name, path in log_files(os.path.join(lab.state, 'logs')):
        with open(path, errors='replace') as log:
            found[name] = ['%s: %s' % (name, line.rstrip()[:width])
                           for line in log if SERVED_500 in line]
    return found


def new_lines(now, before):
    """The lines of ``now`` (:func:`served_500`) after each log's lines
    in ``before``."""
    return [line for name, lines in sorted(now.items())
            for line in lines[len(before.get(name, ())):]]


def attach_logs(test, lab):
    """Add the tail of every lab log to ``test``'s details."""
    for name, path in log_files(os.path.join(lab.state, 'logs')):
        with open(path, errors='replace') as f:
            tail = f.readlines()[-40:]
        test.addDetail('log-' + name,
                       testtools.content.text_content(''.join(tail)))
