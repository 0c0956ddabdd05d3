"""GET /allocation_candidates latency and a claim burst against a real
nova-lite-placement (gunicorn, one worker), on SQLite and MariaDB.

Modelled on Placement's perfload jobs. Each scenario gets a fresh
database and server; the providers are bulk-inserted with SQL (the same
uuids, inventories, traits and aggregates the shared tool
``placement_perfload.py`` creates over HTTP, in seconds instead of
minutes), its query list is timed here (median of 7 requests after a
warm-up, 3 with ``--quick``) and, for the first flat size, the tool runs
with ``--skip-load`` for its burst of concurrent claims and
over-allocation check. Scenarios:

* ``flat``: N compute nodes with VCPU/MEMORY_MB/DISK_GB, 1-3 traits and
  1-3 aggregates (N = 1,000, 5,000, 10,000; ``--quick``: 200, 1,000);
* ``nested``: 1,000 computes, half of them trees of a root (DISK_GB), two
  NUMA children (VCPU, MEMORY_MB) and one SR-IOV PF under each (3,000
  providers; ``--quick``: 200 computes);
* ``sharing``: 5,000 flat computes (``--quick``: 200) plus a DISK_GB
  provider with ``MISC_SHARES_VIA_AGGREGATE`` in the first aggregate (every
  compute is in it, so each gets a local and a shared disk candidate);
* ``nested+vgpu``: the nested variant with a VGPU grandchild under each
  NUMA child (4,000 providers), timed with ``same_subtree`` and two
  isolated VGPU groups.

Besides the median latency each query row has ``server_cpu_ms``: the CPU
the server processes used per request (from ``/proc``), which stays
meaningful when other work shares the machine. With
``NOVA_LITE_BENCH_REFERENCE_VENV`` set to a virtualenv holding
``openstack-placement``, every scenario also runs against the reference
service (gunicorn, one worker, noauth2) on the same data;
``NOVA_LITE_BENCH_BACKENDS=sqlite`` skips MariaDB.

``NOVA_LITE_PERFLOAD`` points at the tool (default
``/work/shared/tools/placement_perfload.py``); ``NOVA_LITE_BENCH_MYSQL``
at the MariaDB server. Results: JSON rows plus a printed table.
"""

import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

import requests
import sqlalchemy as sa

from nova_lite.placement.db import models
from tests import db_fixtures
from tests.functional.placement import server

PERFLOAD = os.environ.get('NOVA_LITE_PERFLOAD',
                          '/work/shared/tools/placement_perfload.py')
# A virtualenv with ``openstack-placement`` installed: when set, every
# scenario also runs against the reference service.
REFERENCE_VENV = os.environ.get('NOVA_LITE_BENCH_REFERENCE_VENV')
MYSQL_SERVER = os.environ.get('NOVA_LITE_BENCH_MYSQL',
                              'mysql+pymysql://root@127.0.0.1:3306')
SEED = '1'
AGGREGATES = ['14a5c8a3-5a99-4e8f-88be-00d85fcb1c17',
              '66d98e7c-3c25-485d-a0dc-1cea651884de',
              'a59dbb28-fd98-4c6e-9ec5-ae5f3d04b0aa']
TRAITS = ['HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE2', 'STORAGE_DISK_SSD']
PHYSNETS = ['CUSTOM_PHYSNET_NET0', 'CUSTOM_PHYSNET_NET1']
FLAT = {'VCPU': (32, 1, 16), 'MEMORY_MB': (8192, 128, 8192),
        'DISK_GB': (8192, 5, 8192)}
NESTED_ROOT = {'DISK_GB': (8192, 5, 8192)}
NUMA = {'VCPU': (16, 1, 16), 'MEMORY_MB': (4096, 128, 4096)}
PF = {'SRIOV_NET_VF': (8, 1, 8)}
VGPU = {'VGPU': (4, 1, 4)}
SHARED_DISK = {'DISK_GB': (100000, 5, 8192)}
HEADERS = {'X-Auth-Token': 'admin', 'Accept': 'application/json',
           'OpenStack-API-Version': 'placement 1.36'}
SHARING_QUERIES = [
    ('sharing_plain', '1.36', 'resources=VCPU:1,MEMORY_MB:256,DISK_GB:10'),
    ('sharing_limit50', '1.36',
     'resources=VCPU:1,MEMORY_MB:256,DISK_GB:10&limit=50'),
    ('sharing_member_of', '1.36',
     'resources=VCPU:1,MEMORY_MB:256,DISK_GB:10&member_of=%s'
     % AGGREGATES[0]),
]
# Used when the shared tool is not there (its list is the real one).
FALLBACK_QUERIES = [
    ('plain', '1.36', 'resources=VCPU:1,MEMORY_MB:256,DISK_GB:10'),
    ('plain_limit50', '1.36',
     'resources=VCPU:1,MEMORY_MB:256,DISK_GB:10&limit=50'),
    ('member_of', '1.36', 'resources=VCPU:1,MEMORY_MB:256,DISK_GB:10'
     '&member_of=%s' % AGGREGATES[1]),
]
VGPU_QUERIES = [
    ('vgpu_same_subtree', '1.36', 'resources=DISK_GB:10'
     '&resources_GPU=VGPU:1&resources_CPU=VCPU:1,MEMORY_MB:256'
     '&same_subtree=_CPU,_GPU&group_policy=isolate'),
    ('vgpu_two_isolated', '1.36', 'resources_G1=VGPU:1&resources_G2=VGPU:1'
     '&group_policy=isolate'),
]


def uuid_for(kind, i):
    return str(uuid.uuid5(uuid.NAMESPACE_URL,
                          'perfload/%s/%s/%d' % (SEED, kind, i)))


class _Loader:
    """Rows of the bulk insert, with ids assigned here."""

    def __init__(self, rc_ids, trait_ids, agg_ids):
        self.rc_ids, self.trait_ids, self.agg_ids = rc_ids, trait_ids, agg_ids
        self.rps, self.invs, self.traits, self.aggs = [], [], [], []
        self.now = models.utcnow()

    def provider(self, uuid_, name, parent=None, root=None):
        rp_id = len(self.rps) + 1
        self.rps.append({'id': rp_id, 'uuid': uuid_, 'name': name,
                         'generation': 1, 'parent_provider_id': parent,
                         'root_provider_id': root or rp_id,
                         'created_at': self.now})
        return rp_id

    def inventory(self, rp_id, shape):
        for rc, (total, min_unit, max_unit) in shape.items():
            self.invs.append({
                'resource_provider_id': rp_id,
                'resource_class_id': self.rc_ids[rc], 'total': total,
                'reserved': 0, 'min_unit': min_unit, 'max_unit': max_unit,
                'step_size': 1, 'allocation_ratio': 1.0,
                'created_at': self.now})

    def tag(self, rp_id, traits=(), aggs=()):
        self.traits += [{'resource_provider_id': rp_id,
                         'trait_id': self.trait_ids[t],
                         'created_at': self.now} for t in traits]
        self.aggs += [{'resource_provider_id': rp_id,
                       'aggregate_id': self.agg_ids[a],
                       'created_at': self.now} for a in aggs]


def _nested_indexes(n, pct):
    count = int(round(n * pct / 100.0))
    if not count:
        return set()
    step = n / float(count)
    return {int(k * step) for k in range(count)}


def _build_compute(loader, i, nested, vgpu):
    aggs = AGGREGATES[:(i % 3) + 1]
    traits = TRAITS[:(i % 3) + 1]
    cn = loader.provider(uuid_for('cn', i), 'perf-cn-%06d' % i)
    if not nested:
        loader.inventory(cn, FLAT)
        loader.tag(cn, traits, aggs)
        return
    loader.inventory(cn, NESTED_ROOT)
    loader.tag(cn, traits + ['COMPUTE_VOLUME_MULTI_ATTACH'], aggs)
    for n in (0, 1):
        numa = loader.provider(uuid_for('numa%d' % n, i),
                               'perf-cn-%06d-numa%d' % (i, n), cn, cn)
        loader.inventory(numa, NUMA)
        loader.tag(numa, ['HW_NUMA_ROOT'])
        pf = loader.provider(uuid_for('pf%d' % n, i),
                             'perf-cn-%06d-numa%d-pf' % (i, n), numa, cn)
        loader.inventory(pf, PF)
        loader.tag(pf, [PHYSNETS[n]])
        if vgpu:
            gpu = loader.provider(uuid_for('gpu%d' % n, i),
                                  'perf-cn-%06d-numa%d-gpu' % (i, n),
                                  numa, cn)
            loader.inventory(gpu, VGPU)


def _ids(conn, table, column):
    return {r[0]: r[1] for r in conn.execute(
        sa.select(column, table.c.id))}


def bulk_load(db_url, n, nested_pct=0, sharing=False, vgpu=False):
    """Insert the perfload workload; returns the number of providers."""
    tables = models.TABLES
    engine = sa.create_engine(db_url)
    try:
        with engine.begin() as conn:
            now = models.utcnow()
            conn.execute(sa.insert(tables['placement_aggregates']), [
                {'uuid': a, 'created_at': now} for a in AGGREGATES])
            rc_ids = _ids(conn, tables['resource_classes'],
                          tables['resource_classes'].c.name)
            trait_ids = _ids(conn, tables['traits'], tables['traits'].c.name)
            agg_ids = _ids(conn, tables['placement_aggregates'],
                           tables['placement_aggregates'].c.uuid)
            loader = _Loader(rc_ids, trait_ids, agg_ids)
            nested = _nested_indexes(n, nested_pct)
            for i in range(n):
                _build_compute(loader, i, i in nested, vgpu)
            if sharing:
                ss = loader.provider(uuid_for('shared-disk', 0),
                                     'perf-shared-disk')
                loader.inventory(ss, SHARED_DISK)
                loader.tag(ss, ['MISC_SHARES_VIA_AGGREGATE'],
                           AGGREGATES[:1])
            for name, rows in (('resource_providers', loader.rps),
                               ('inventories', loader.invs),
                               ('resource_provider_traits', loader.traits),
                               ('resource_provider_aggregates',
                                loader.aggs)):
                for start in range(0, len(rows), 5000):
                    conn.execute(sa.insert(tables[name]),
                                 rows[start:start + 5000])
            return len(loader.rps)
    finally:
        engine.dispose()


def _prepare(endpoint):
    """Let the server sync standard names; create the custom traits."""
    session = requests.Session()
    session.headers.update(HEADERS)
    session.get(endpoint + '/resource_providers').raise_for_status()
    for trait in PHYSNETS:
        session.put(endpoint + '/traits/%s' % trait).raise_for_status()


def _perfload_module():
    """The shared tool as a module, for its workload shapes."""
    spec = importlib.util.spec_from_file_location('placement_perfload',
                                                  PERFLOAD)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _claim_burst(endpoint, n, nested_pct):
    """The tool's burst of concurrent claims (its queries run once)."""
    if not os.path.exists(PERFLOAD):
        return None
    with tempfile.NamedTemporaryFile(suffix='.json') as out:
        subprocess.run([sys.executable, PERFLOAD, endpoint, '--skip-load',
                        '--n', str(n), '--nested-pct', str(nested_pct),
                        '--reps', '1', '--json', out.name],
                       check=False, stdout=subprocess.DEVNULL, timeout=3600)
        with open(out.name) as f:
            text = f.read()
    return json.loads(text).get('claims') if text else None


def _server_pids(master_pid):
    """The gunicorn master and its workers (Linux /proc)."""
    pids = [master_pid]
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % entry) as f:
                fields = f.read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == master_pid:
            pids.append(int(entry))
    return pids


def _cpu_seconds(pids):
    total = 0
    for pid in pids:
        try:
            with open('/proc/%d/stat' % pid) as f:
                fields = f.read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf('SC_CLK_TCK')


def _time_queries(endpoint, queries, reps, pids):
    """Median wall time per query, and server CPU per request."""
    session = requests.Session()
    session.headers.update(HEADERS)
    rows = []
    for name, version, qs in queries:
        url = endpoint + '/allocation_candidates?' + qs
        headers = {'OpenStack-API-Version': 'placement %s' % version}
        first = session.get(url, headers=headers)
        if first.status_code != 200:
            rows.append({'query': name, 'error': first.status_code,
                         'detail': first.text[:200]})
            continue
        samples = []
        cpu_before = _cpu_seconds(pids)
        for _ in range(reps):
            started = time.perf_counter()
            session.get(url, headers=headers).content  # noqa: B018
            samples.append((time.perf_counter() - started) * 1000)
        cpu = (_cpu_seconds(pids) - cpu_before) / reps * 1000
        rows.append({'query': name, 'microversion': version, 'qs': qs,
                     'allocation_requests':
                         len(first.json()['allocation_requests']),
                     'provider_summaries':
                         len(first.json()['provider_summaries']),
                     'median_ms': round(statistics.median(samples), 1),
                     'min_ms': round(min(samples), 1),
                     'server_cpu_ms': round(cpu, 1)})
    return rows


class _Database:
    """A fresh database per scenario (SQLite file or MariaDB schema)."""

    def __init__(self, backend, tmp):
        self.backend, self.tmp = backend, tmp

    def __enter__(self):
        name = 'nl_bench_ac_%s' % uuid.uuid4().hex[:8]
        if self.backend == 'sqlite':
            self.url = 'sqlite:///' + os.path.join(self.tmp, name + '.db')
        else:
            self.url = '%s/%s' % (MYSQL_SERVER, name)
        return self.url

    def __exit__(self, *exc):
        if self.backend == 'mariadb':
            db_fixtures.drop_mysql_database(self.url)


class _ReferenceServer:
    """OpenStack Placement from a separate virtualenv (``pip install
    openstack-placement`` there), gunicorn with one worker, noauth2."""

    def __init__(self, venv, db_url, tmp):
        self.venv, self.db_url, self.tmp = venv, db_url, tmp

    def setUp(self):
        if self.db_url.startswith('mysql'):
            _create_mysql_database(self.db_url)
        conf_dir = tempfile.mkdtemp(dir=self.tmp)
        with open(os.path.join(conf_dir, 'placement.conf'), 'w') as f:
            f.write('[api]\nauth_strategy = noauth2\n'
                    '[placement_database]\nconnection = %s\n'
                    'sync_on_startup = True\n' % self.db_url)
        port = server.free_port()
        self.endpoint = 'http://127.0.0.1:%d' % port
        env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=conf_dir)
        self.log = open(os.path.join(conf_dir, 'placement.log'), 'w')
        self.process = subprocess.Popen(
            [os.path.join(self.venv, 'bin', 'gunicorn'), '-w', '1', '-b',
             '127.0.0.1:%d' % port, 'placement.wsgi.api:application'],
            env=env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if requests.get(self.endpoint + '/', timeout=5).ok:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.3)
        self.cleanUp()
        raise RuntimeError('reference placement did not start')

    def cleanUp(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def _create_mysql_database(url):
    parsed = sa.engine.make_url(url)
    engine = sa.create_engine(parsed.set(database=''))
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql('CREATE DATABASE `%s`' % parsed.database)
    finally:
        engine.dispose()


def _queries(label, nested_pct):
    if label == 'sharing':
        return SHARING_QUERIES
    if label == 'nested+vgpu':
        return VGPU_QUERIES
    if not os.path.exists(PERFLOAD):
        return FALLBACK_QUERIES
    return _perfload_module().queries(nested_pct > 0)


def _start(impl, url, tmp):
    if impl == 'reference':
        placement = _ReferenceServer(REFERENCE_VENV, url, tmp)
    else:
        placement = server.PlacementServer(url, workers=1)
    placement.setUp()
    return placement


def _scenario(backend, tmp, label, n, nested_pct=0, reps=5, claims=False,
              sharing=False, vgpu=False, impl='nova_lite'):
    with _Database(backend, tmp) as url:
        placement = _start(impl, url, tmp)
        try:
            _prepare(placement.endpoint)
            started = time.perf_counter()
            providers = bulk_load(url, n, nested_pct, sharing, vgpu)
            load_s = time.perf_counter() - started
            pids = _server_pids(placement.process.pid)
            queries = _time_queries(placement.endpoint,
                                    _queries(label, nested_pct), reps, pids)
            burst = (_claim_burst(placement.endpoint, n, nested_pct)
                     if claims else None)
        finally:
            placement.cleanUp()
    return {'impl': impl, 'backend': backend, 'scenario': label,
            'computes': n, 'providers': providers,
            'bulk_load_s': round(load_s, 2), 'queries': queries,
            'claims': burst}


def _plan(quick):
    flat = [200, 1000] if quick else [1000, 5000, 10000]
    nested = 200 if quick else 1000
    plan = [('flat', n, 0, i == 0, False, False)
            for i, n in enumerate(flat)]
    plan.append(('nested', nested, 50, False, False, False))
    plan.append(('sharing', flat[-2] if not quick else flat[0], 0, False,
                 True, False))
    plan.append(('nested+vgpu', nested, 50, False, False, True))
    return plan


def _rows(results):
    rows = []
    for result in results:
        for query in result['queries']:
            rows.append({
                'impl': result['impl'],
                'backend': result['backend'],
                'scenario': result['scenario'],
                'computes': result['computes'],
                'providers': result['providers'],
                'query': query.get('query'),
                'candidates': query.get('allocation_requests'),
                'median_ms': query.get('median_ms', query.get('error')),
                'server_cpu_ms': query.get('server_cpu_ms')})
    return rows


def _backends():
    backends = ['sqlite']
    if db_fixtures.mysql_unavailable_reason() is None:
        backends.append('mariadb')
    only = os.environ.get('NOVA_LITE_BENCH_BACKENDS')
    if only:
        backends = [b for b in backends if b in only.split(',')]
    return backends


def run(args):
    reps = 3 if args.quick else 7
    results = []
    impls = ['nova_lite'] + (['reference'] if REFERENCE_VENV else [])
    with tempfile.TemporaryDirectory() as tmp:
        for backend in _backends():
            for label, n, pct, claims, sharing, vgpu in _plan(args.quick):
                for impl in impls:
                    results.append(_scenario(backend, tmp, label, n, pct,
                                             reps, claims, sharing, vgpu,
                                             impl))
    return {'reps': reps, 'rows': _rows(results), 'scenarios': results}


if __name__ == '__main__':
    import argparse
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--quick', action='store_true')
    print(json.dumps(run(parser.parse_args())['rows'], indent=1))
