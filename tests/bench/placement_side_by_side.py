"""Placement side by side in one run: nova_lite's and OpenStack Placement 16.

For each size N (1,000 and 5,000 compute-node providers by default) a fresh
``nova-lite-placement`` and a fresh real Placement (gunicorn), each one
worker on its own new SQLite file, get the same load from the shared
``perfload.py``, one after the other:

* loading N providers (4 requests each, 8 client threads): providers/s;
* the median of 7 timed repetitions of every ``GET
  /allocation_candidates`` query of perfload (limit=50 among them);
* 200 concurrent claims against a 10-provider aggregate: claims/s, and the
  over-allocation check (no provider over its capacity, usage equal to the
  successful claims, exactly one winner of each consumer-generation race);
* the CPU-seconds each server process used over its whole perfload run.

Environment:

``NOVA_LITE_BENCH_PLACEMENT_REFERENCE``
    the tool directory (``real_placement.sh``, ``perfload.py``); default
    ``../shared/tools/placement_reference``.
``NOVA_LITE_BENCH_PLACEMENT_VENV``
    the real Placement install (``real_placement.sh install``; default
    ``/tmp/placement-venv``). Without it nova_lite runs alone.
``NOVA_LITE_BENCH_PLACEMENT_SIZES``
    comma-separated N (default ``1000,5000``; ``--quick``: ``200``).
``NOVA_LITE_BENCH_PLACEMENT_DB``
    ``sqlite`` (default: a new file per side) or ``mysql``: a new MariaDB
    database per side on ``NOVA_LITE_BENCH_MYSQL`` (default
    ``mysql+pymysql://root@127.0.0.1:3306``), dropped afterwards. A lab
    runs on MariaDB, and a plan that only MariaDB chooses (a capacity
    probe that grew with the square of the limit) is invisible on SQLite.

Ports are free ones and the state directories temporary, so this can run
beside other labs and other users of the same tools.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

from tests.bench import side_by_side as sbs
from tests.integration import lab as lab_mod

PERFLOAD_TIMEOUT = 1800
NOVA_LITE_CONF = """[DEFAULT]
state_path = {state}
[placement_api]
auth_strategy = noauth2
bind_host = 127.0.0.1
bind_port = {port}
workers = 1
[placement_database]
connection = {connection}
[oslo_policy]
enforce_new_defaults = False
"""
REFERENCE_CONF = """[DEFAULT]
debug = False
[api]
auth_strategy = noauth2
[placement_database]
connection = {connection}
[oslo_policy]
enforce_new_defaults = False
"""


def _wait_http(url, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError('%s did not answer in %d s' % (url, timeout))


class MariaDB:
    """New, empty MariaDB databases for one run, dropped at its end."""

    def __init__(self, url):
        self.url = url.rstrip('/')
        self.names = []

    def _execute(self, statement):
        import pymysql
        from sqlalchemy.engine import make_url
        url = make_url(self.url)
        conn = pymysql.connect(host=url.host or '127.0.0.1',
                               port=url.port or 3306,
                               user=url.username or 'root',
                               password=url.password or '')
        try:
            with conn.cursor() as cursor:
                cursor.execute(statement)
        finally:
            conn.close()

    def create(self, name):
        name = 'nl_bench_%s_%d' % (name, os.getpid())
        self._execute('DROP DATABASE IF EXISTS %s' % name)
        self._execute('CREATE DATABASE %s CHARACTER SET utf8mb4' % name)
        self.names.append(name)
        return '%s/%s?charset=utf8mb4' % (self.url, name)

    def drop_all(self):
        while self.names:
            self._execute('DROP DATABASE IF EXISTS %s' % self.names.pop())


class NovaLitePlacement:
    """A fresh nova-lite-placement, one worker, on its own new database
    (an SQLite file unless ``connection`` names another)."""

    name = 'nova_lite'

    def __init__(self, state, connection=None):
        self.state = state
        self.connection = (connection or
                           'sqlite:///%s/placement.db' % state)
        self.port = lab_mod.free_port()
        self.proc = None

    def start(self):
        os.makedirs(self.state)
        conf = os.path.join(self.state, 'placement.conf')
        with open(conf, 'w') as f:
            f.write(NOVA_LITE_CONF.format(state=self.state, port=self.port,
                                          connection=self.connection))
        binary = os.path.join(sys.prefix, 'bin', 'nova-lite-%s')
        subprocess.run([binary % 'manage', '--config-file', conf,
                        'placement', 'db', 'sync'], check=True,
                       capture_output=True, timeout=300)
        with open(os.path.join(self.state, 'placement.log'), 'w') as log:
            self.proc = subprocess.Popen(
                [binary % 'placement', '--config-file', conf], stdout=log,
                stderr=subprocess.STDOUT, start_new_session=True)
        _wait_http('http://127.0.0.1:%d/' % self.port)

    def pid(self):
        return self.proc.pid

    def stop(self):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


class RealPlacement:
    """A fresh OpenStack Placement through the tool's real_placement.sh
    (gunicorn, one worker, its own port and state directory)."""

    name = 'reference'

    def __init__(self, tools, venv, state):
        self.script = os.path.join(tools, 'real_placement.sh')
        self.state = state
        self.port = lab_mod.free_port()
        self.env = dict(os.environ, VENV=venv, STATE=state,
                        PORT=str(self.port), WORKERS='1', THREADS='1')

    def start(self):
        result = subprocess.run(['bash', self.script, 'reset'], env=self.env,
                                capture_output=True, text=True, timeout=300)
        if result.returncode != 0:
            raise RuntimeError('real_placement.sh reset: %s%s'
                               % (result.stdout, result.stderr))

    def pid(self):
        with open(os.path.join(self.state, 'gunicorn.pid')) as f:
            return int(f.read())

    def stop(self):
        subprocess.run(['bash', self.script, 'stop'], env=self.env,
                       capture_output=True, timeout=120)


class RealPlacementOnDatabase(RealPlacement):
    """Real Placement on a database the tool's script cannot name (it
    writes SQLite only): the same gunicorn, one worker, one thread, with a
    configuration of our own."""

    def __init__(self, tools, venv, state, connection):
        super().__init__(tools, venv, state)
        self.venv = venv
        self.connection = connection
        self.conf_dir = os.path.join(state, 'etc')

    def start(self):
        os.makedirs(self.conf_dir)
        with open(os.path.join(self.conf_dir, 'placement.conf'), 'w') as f:
            f.write(REFERENCE_CONF.format(connection=self.connection))
        env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=self.conf_dir)
        bin_dir = os.path.join(self.venv, 'bin')
        subprocess.run([os.path.join(bin_dir, 'placement-manage'),
                        '--config-file',
                        os.path.join(self.conf_dir, 'placement.conf'),
                        'db', 'sync'], check=True, capture_output=True,
                       timeout=300, env=env)
        subprocess.run(
            [os.path.join(bin_dir, 'gunicorn'),
             '--bind', '127.0.0.1:%d' % self.port, '--workers', '1',
             '--threads', '1', '--pid', self._pid_file(), '--daemon',
             '--error-logfile', os.path.join(self.state, 'placement.log'),
             '--timeout', '300', '--no-control-socket',
             'placement.wsgi.api:application'], check=True, env=env,
            timeout=60)
        _wait_http('http://127.0.0.1:%d/' % self.port)

    def _pid_file(self):
        return os.path.join(self.state, 'gunicorn.pid')

    def stop(self):
        try:
            pid = self.pid()
        except (OSError, ValueError):
            return
        os.kill(pid, signal.SIGINT)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and lab_mod.alive(pid):
            time.sleep(0.05)
        if lab_mod.alive(pid):
            os.kill(pid, signal.SIGKILL)


def perfload(python, tools, server, size, out_dir):
    """perfload.py against a started ``server``: its JSON report, plus the
    server's CPU-seconds and the wall time of the run."""
    report = os.path.join(out_dir, '%s-%d.json' % (server.name, size))
    log = os.path.join(out_dir, '%s-%d.log' % (server.name, size))
    cpu_before = sbs.cpu_seconds(server.pid())
    started = time.monotonic()
    with open(log, 'w') as out:
        subprocess.run([python, os.path.join(tools, 'perfload.py'),
                        'http://127.0.0.1:%d' % server.port, '--n', str(size),
                        '--json', report], stdout=out,
                       stderr=subprocess.STDOUT, timeout=PERFLOAD_TIMEOUT)
    wall = time.monotonic() - started
    cpu = sbs.cpu_seconds(server.pid()) - cpu_before
    if not os.path.exists(report):
        with open(log) as f:
            raise RuntimeError('perfload against %s failed:\n%s'
                               % (server.name, f.read()[-3000:]))
    with open(report) as f:
        result = json.load(f)
    result.update(server_cpu_s=round(cpu, 2), wall_s=round(wall, 1))
    return result


def _queries(report):
    return {q['query']: q for q in (report or {}).get('queries', [])}


def _claims(report, key):
    return ((report or {}).get('claims') or {}).get(key)


def table_rows(reference, nova_lite, size):
    """One row per perfload query (median ms), then loading, claims and
    the server's CPU over the run."""
    ref_q, nl_q = _queries(reference), _queries(nova_lite)
    rows = []
    for name, q in nl_q.items():
        rows.append(sbs.row('N=%d %s' % (size, name),
                            ref_q.get(name, {}).get('median_ms'),
                            q.get('median_ms'), 'ms'))
    load = [((r or {}).get('load') or {}).get('providers_per_s')
            for r in (reference, nova_lite)]
    rows.append(sbs.row('N=%d loading, providers/s' % size, *load,
                        higher_is_better=True))
    rows.append(sbs.row('N=%d 200 concurrent claims, claims/s' % size,
                        _claims(reference, 'claims_per_s'),
                        _claims(nova_lite, 'claims_per_s'),
                        higher_is_better=True))
    rows.append(sbs.row('N=%d server CPU-s, whole perfload run' % size,
                        (reference or {}).get('server_cpu_s'),
                        nova_lite.get('server_cpu_s'), 's'))
    return rows


def checks(reference, nova_lite):
    """Same answers on both sides, and the claims' consistency."""
    ref_q = _queries(reference)
    differ = {name: (ref_q[name].get('allocation_requests'),
                     q.get('allocation_requests'))
              for name, q in _queries(nova_lite).items()
              if name in ref_q and ref_q[name].get('allocation_requests')
              != q.get('allocation_requests')}
    result = {'candidate_counts_differ (reference, nova_lite)': differ}
    for side, report in (('reference', reference), ('nova_lite', nova_lite)):
        if report:
            result[side] = {
                'load_errors': report['load']['error_count'],
                'query_errors': [q['query'] for q in report['queries']
                                 if 'error' in q],
                'over_allocated': len(_claims(report, 'over_allocated')
                                      or []),
                'claims_consistent': _claims(report, 'consistent'),
                'claims_clean': _claims(report, 'clean'),
                'claims_ok': (_claims(report, 'stats') or {}).get('ok')}
    return result


def one_size(tools, venv, python, size, out_dir, mariadb=None):
    """Fresh servers, perfload against each (nova_lite first)."""
    nl_state = os.path.join(out_dir, 'nl-%d' % size)
    real_state = os.path.join(out_dir, 'real-%d' % size)
    if mariadb:
        servers = [NovaLitePlacement(
            nl_state, mariadb.create('plc_nl_%d' % size))]
        if venv:
            servers.append(RealPlacementOnDatabase(
                tools, venv, real_state,
                mariadb.create('plc_ref_%d' % size)))
    else:
        servers = [NovaLitePlacement(nl_state)]
        if venv:
            servers.append(RealPlacement(tools, venv, real_state))
    reports = {}
    for server in servers:
        try:
            server.start()
            reports[server.name] = perfload(python, tools, server, size,
                                            out_dir)
        finally:
            server.stop()
    return reports.get('reference'), reports['nova_lite']


def _sizes(quick):
    text = os.environ.get('NOVA_LITE_BENCH_PLACEMENT_SIZES')
    if text:
        return [int(n) for n in text.split(',')]
    return [200] if quick else [1000, 5000]


def run(args):
    tools = sbs.tools_dir('NOVA_LITE_BENCH_PLACEMENT_REFERENCE',
                          'placement_reference')
    if tools is None:
        return {'skipped': 'no reference tools (perfload.py): set '
                'NOVA_LITE_BENCH_PLACEMENT_REFERENCE', 'rows': []}
    venv = os.environ.get('NOVA_LITE_BENCH_PLACEMENT_VENV',
                          '/tmp/placement-venv')
    note = None
    if not os.path.exists(os.path.join(venv, 'bin', 'gunicorn')):
        note = ('no real Placement install in %s (run %s/real_placement.sh '
                'install): nova_lite alone' % (venv, tools))
        print(note)
        venv = None
    # The same client for both sides: the reference venv's, else ours.
    python = os.path.join(venv, 'bin', 'python') if venv else sys.executable
    database = os.environ.get('NOVA_LITE_BENCH_PLACEMENT_DB', 'sqlite')
    mariadb = None
    if database == 'mysql':
        mariadb = MariaDB(os.environ.get(
            'NOVA_LITE_BENCH_MYSQL', 'mysql+pymysql://root@127.0.0.1:3306'))
    out_dir = tempfile.mkdtemp(prefix='nl-placement-sbs-')
    load = {'start': sbs.load_average()}
    rows, sizes, tables = [], {}, []
    started = time.monotonic()
    for size in _sizes(args.quick):
        # A failed or interrupted run keeps out_dir: perfload's reports
        # of the sides that finished are there.
        print('N=%d: perfload reports and logs in %s' % (size, out_dir))
        try:
            reference, nova_lite = one_size(tools, venv, python, size,
                                            out_dir, mariadb)
        finally:
            if mariadb:
                mariadb.drop_all()
        load['after_n_%d' % size] = sbs.load_average()
        size_rows = table_rows(reference, nova_lite, size)
        rows += size_rows
        tables.append(sbs.markdown_table(size_rows, 'Placement 16'))
        print(tables[-1])
        sizes[size] = {'checks': checks(reference, nova_lite),
                       'reference': reference, 'nova_lite': nova_lite}
    shutil.rmtree(out_dir, ignore_errors=True)
    backend = ('fresh MariaDB database' if mariadb else 'fresh SQLite file')
    return {'servers': 'one worker each, %s, noauth2' % backend,
            'note': note, 'load_average': load,
            'interpreters': sbs.interpreters(
                os.path.join(venv, 'bin', 'python') if venv else None),
            'wall_s': round(time.monotonic() - started), 'rows': rows,
            'markdown': '\n\n'.join(tables), 'sizes': sizes}
