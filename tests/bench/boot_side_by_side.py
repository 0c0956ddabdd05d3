"""Boots side by side in one run: real Nova 34 and nova_lite.

Both labs have the same shape (1 cell, 2 computes x 1 fake node, MariaDB,
RabbitMQ, unlimited quotas, flavor ``bench-tiny`` 64 MB / 1 vCPU / 1 GB)
and are driven by the same ``bench.py`` of the shared reference tools over
the compute API, one lab after the other:

* one server at a time, POST -> ACTIVE (polled every 20 ms), median;
* a burst of 100 servers (10 POSTs of ``min_count=10``): servers ACTIVE
  per second and p50 POST -> ACTIVE (polled every second, or every
  ``NOVA_LITE_BENCH_BURST_POLL`` seconds; the deletes too);
* the 100 deletes until placement usage is back to 0;
* CPU-seconds per server over the burst, from ``/proc/<pid>/stat`` of
  every process of each lab (children included) and of MariaDB and
  RabbitMQ. Those two are shared by everything on the machine (other labs
  included), so they are reported apart as well.

Environment:

``NOVA_LITE_BENCH_NOVA_REFERENCE``
    the reference tool directory (``setup.sh``, ``start.sh``,
    ``bench.py``, ``stop.sh``); default ``../shared/tools/nova_reference``.
``NOVA_LITE_BENCH_NOVA_BASE``
    the real Nova install made by ``setup.sh`` (default ``/tmp/nova-real``:
    its venv, configs, logs; databases ``nr_*``, vhost ``novareal``). When
    it has no venv, nova_lite runs alone (the tool's ``bench.py`` still
    drives it) and the table has no reference column.

The real Nova lab is reset (``RESET=1 setup.sh``) before it starts, since
its fake computes cannot restart on an existing database.
"""

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from tests.bench import side_by_side as sbs
from tests.integration import lab as lab_mod

SHARED = ('(mariadb)', '(rabbitmq)')
FLAVOR = {'name': 'bench-tiny', 'id': 'bench-tiny', 'ram': 64, 'vcpus': 1,
          'disk': 1}
BENCH_TIMEOUT = 1800
# The identity headers bench.py sends to real Nova (no noauth2 in Nova 34).
NOVA_HEADERS = {'X-Auth-Token': 'admin:admin', 'X-User-Id': 'admin',
                'X-Project-Id': 'admin', 'X-Roles': 'admin,member,reader',
                'OpenStack-API-Version': 'compute 2.90'}


def burst_poll():
    """bench.py's poll period in the burst and the deletes, seconds.

    1 by default, bench.py's own. A 1-s poll adds up to a second
    to a 3-s burst and to a 30-s one alike, so it bends the faster side's
    figure most; ``NOVA_LITE_BENCH_BURST_POLL`` makes it finer for both
    sides alike.
    """
    return float(os.environ.get('NOVA_LITE_BENCH_BURST_POLL') or 1.0)


def bench_args(quick):
    """The same load for both labs."""
    seq, burst = (5, 20) if quick else (20, 100)
    return ['--seq', str(seq), '--poll', '0.02', '--burst', str(burst),
            '--burst-mode', 'multi', '--burst-poll', '%g' % burst_poll()]


def _run(cmd, env, log, timeout=BENCH_TIMEOUT):
    with open(log, 'a') as out:
        result = subprocess.run(cmd, env=env, stdout=out,
                                stderr=subprocess.STDOUT, timeout=timeout)
    if result.returncode != 0:
        with open(log) as f:
            tail = f.read()[-3000:]
        raise RuntimeError('%s failed (%s):\n%s'
                           % (' '.join(cmd), result.returncode, tail))


def _bench(python, tools, env, out_dir, quick, log):
    """Run the tool's bench.py; its JSON result."""
    out = os.path.join(out_dir, 'result.jsonl')
    _run([python, os.path.join(tools, 'bench.py'), *bench_args(quick),
          '--out', out], env, log)
    with open(out) as f:
        return json.loads(f.read().splitlines()[-1])


class ErroredDeleteRetrier(threading.Thread):
    """Deletes again the real lab's one-at-a-time servers that a failed
    delete left in ERROR.

    Under load a compute's call to placement sometimes fails
    (``ConnectFailure ... RemoteDisconnected`` on a reused connection to
    gunicorn): the server stays in ERROR and bench.py's clean-up after the
    one-at-a-time phase waits for it forever. That clean-up is outside
    every measured phase; the count of retried deletes is reported.
    """

    def __init__(self, api, interval=10):
        super().__init__(daemon=True)
        self.api = api
        self.interval = interval
        self.retried = []
        self.done = threading.Event()

    def _call(self, method, path):
        req = urllib.request.Request(self.api + path, method=method,
                                     headers=NOVA_HEADERS)
        with urllib.request.urlopen(req, timeout=30) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def retry_once(self):
        servers = self._call('GET', '/servers/detail?name=%5Ebench-s-'
                             '&status=ERROR')['servers']
        for server in servers:
            if server.get('OS-EXT-STS:task_state') is None:
                self._call('DELETE', '/servers/' + server['id'])
                self.retried.append(server['id'])

    def run(self):
        while not self.done.wait(self.interval):
            try:
                self.retry_once()
            except OSError:
                continue  # the lab is starting or stopping


def run_reference(tools, base, out_dir, quick):
    """Fresh real Nova lab (setup.sh RESET=1, start.sh), bench.py, stop."""
    env = dict(os.environ, BASE=base)
    log = os.path.join(out_dir, 'reference.log')
    stop = ['bash', os.path.join(tools, 'stop.sh')]
    subprocess.run(stop, env=env, capture_output=True, timeout=120)
    logs = os.path.join(base, 'logs')
    for name in os.listdir(logs) if os.path.isdir(logs) else ():
        os.unlink(os.path.join(logs, name))
    started = time.monotonic()
    try:
        _run(['bash', os.path.join(tools, 'setup.sh')],
             dict(env, RESET='1'), log, timeout=900)
        _run(['bash', os.path.join(tools, 'start.sh')], env, log,
             timeout=900)
        up_s = time.monotonic() - started
        time.sleep(5)  # as the tool's own side_by_side.sh
        retrier = ErroredDeleteRetrier('http://127.0.0.1:%s/v2.1' % env.get(
            'API_PORT', '18774'))
        retrier.start()
        try:
            result = _bench(os.path.join(base, 'venv', 'bin', 'python'),
                            tools, env, out_dir, quick, log)
        finally:
            retrier.done.set()
    finally:
        subprocess.run(stop, env=env, capture_output=True, timeout=120)
    result.update(setup_and_start_s=round(up_s, 1),
                  errored_deletes_retried=retrier.retried)
    return result


def _prepare_nova_lite(lab):
    """What the real lab has too: the flavor and unlimited quotas; the id
    of the lab's image (bench.py boots it)."""
    lab.compute('POST', '/flavors', {'flavor': FLAVOR})
    lab.compute('PUT', '/os-quota-sets/admin',
                {'quota_set': {'instances': -1, 'cores': -1, 'ram': -1}})
    status, reply = lab.request('GET', lab.api + '/image/v2/images',
                                headers=lab_mod.ADMIN_HEADERS)
    if status != 200 or not reply.get('images'):
        raise lab_mod.LabError('no image in the lab: %s %s'
                               % (status, reply))
    return reply['images'][0]['id']


def run_nova_lite(tools, python, out_dir, quick):
    """A nova_lite lab of the reference's shape, the same bench.py."""
    lab = lab_mod.Lab(cells=1, computes_per_cell=2, nodes_per_compute=1,
                      database='mysql', name_prefix='nl_sbs')
    bench_base = os.path.join(out_dir, 'nova_lite')
    os.makedirs(os.path.join(bench_base, 'logs'))
    try:
        lab.stack()
        image = _prepare_nova_lite(lab)
        # bench.py reads CPU from $BASE/pids (each listed pid + its direct
        # children); compute logs are not parsed for nova_lite (no 'srv').
        with open(os.path.join(bench_base, 'pids'), 'w') as f:
            f.write('\n'.join(sbs.pids_file_lines(lab.pids())) + '\n')
        env = dict(os.environ, BASE=bench_base,
                   API_PORT=str(lab.api_port),
                   PLACEMENT_PORT=str(lab.placement_port),
                   STUB_IMAGE_ID=image)
        result = _bench(python, tools, env, out_dir, quick,
                        os.path.join(out_dir, 'nova_lite.log'))
        result['stack_s'] = round(lab.stack_seconds, 1)
        return result
    finally:
        lab.destroy()


def cpu_by_process(cpu):
    """bench.py's per-entry CPU summed per service (worker entries are
    named ``service.pid``)."""
    total = {}
    for name, seconds in (cpu or {}).items():
        service = name.split('.', 1)[0]
        total[service] = round(total.get(service, 0) + seconds, 2)
    return total


def cpu_per_server(result, shared):
    """Burst CPU-seconds per booted server: the lab's own processes, or
    (``shared``) MariaDB and RabbitMQ only."""
    burst = (result or {}).get('burst')
    if not burst or not burst.get('active'):
        return None
    cpu = burst.get('cpu_s', {})
    seconds = sum(v for k, v in cpu.items() if (k in SHARED) == shared)
    return round(seconds / burst['active'], 3)


def _get(result, phase, key):
    return ((result or {}).get(phase) or {}).get(key)


def table_rows(reference, nova_lite, burst, poll=1.0):
    lab_cpu = [cpu_per_server(r, False) for r in (reference, nova_lite)]
    shared_cpu = [cpu_per_server(r, True) for r in (reference, nova_lite)]
    total_cpu = [round(a + b, 3) if a is not None and b is not None
                 else None
                 for a, b in zip(lab_cpu, shared_cpu, strict=True)]
    return [
        sbs.row('one at a time, POST -> ACTIVE, median (20 ms polling)',
                _get(reference, 'seq', 'obs_s_median'),
                _get(nova_lite, 'seq', 'obs_s_median'), 's'),
        sbs.row('burst of %d (10 per POST), servers/s' % burst,
                _get(reference, 'burst', 'servers_per_s_obs'),
                _get(nova_lite, 'burst', 'servers_per_s_obs'),
                higher_is_better=True),
        sbs.row('burst p50 POST -> ACTIVE (%g s polling)' % poll,
                _get(reference, 'burst', 'obs_s_p50'),
                _get(nova_lite, 'burst', 'obs_s_p50'), 's'),
        sbs.row('%d deletes until placement usage is 0' % burst,
                _get(reference, 'delete', 'usage_zero_s'),
                _get(nova_lite, 'delete', 'usage_zero_s'), 's'),
        sbs.row('CPU-s per server (burst), lab processes', *lab_cpu),
        sbs.row('CPU-s per server (burst), MariaDB + RabbitMQ (shared)',
                *shared_cpu),
        sbs.row('CPU-s per server (burst), all processes', *total_cpu),
    ]


def checks(result):
    """Correctness of one side's run: no ERROR, placement usage exact."""
    if not result:
        return None
    return {'burst_active': _get(result, 'burst', 'active'),
            'burst_error': _get(result, 'burst', 'error'),
            'burst_usage_ok': _get(result, 'burst', 'placement_usage_ok'),
            'usage_after_delete': _get(result, 'delete', 'usage_after'),
            'burst_cpu_s_by_process': cpu_by_process(
                _get(result, 'burst', 'cpu_s'))}


def run(args):
    tools = sbs.tools_dir('NOVA_LITE_BENCH_NOVA_REFERENCE', 'nova_reference')
    if tools is None:
        return {'skipped': 'no reference tools (bench.py): set '
                'NOVA_LITE_BENCH_NOVA_REFERENCE', 'rows': []}
    missing = lab_mod.base.db_fixtures.mysql_unavailable_reason()
    if missing:
        return {'skipped': missing, 'rows': []}
    base = os.environ.get('NOVA_LITE_BENCH_NOVA_BASE', '/tmp/nova-real')
    reference_python = os.path.join(base, 'venv', 'bin', 'python')
    installed = os.path.exists(os.path.join(base, 'venv', 'bin',
                                            'nova-manage'))
    note = None
    if not installed:
        note = ('no real Nova install in %s (run %s/setup.sh): nova_lite '
                'alone' % (base, tools))
        print(note)
    out_dir = tempfile.mkdtemp(prefix='nl-boot-sbs-')
    load = {'start': sbs.load_average()}
    started = time.monotonic()
    reference = reference_error = None
    if installed:
        try:
            reference = run_reference(tools, base, out_dir, args.quick)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            # The real lab did not come up or its run failed (a shared
            # MariaDB out of connections, say): nova_lite's half still
            # runs, the error is reported.
            reference_error = str(e)[-2000:]
            print('real Nova run failed: %s' % reference_error)
        load['after_reference'] = sbs.load_average()
    nova_lite = run_nova_lite(
        tools, reference_python if installed else sys.executable, out_dir,
        args.quick)
    load['end'] = sbs.load_average()
    burst = 20 if args.quick else 100
    rows = table_rows(reference, nova_lite, burst, burst_poll())
    table = sbs.markdown_table(rows, 'real Nova 34')
    print(table)
    return {'lab': '1 cell, 2 computes x 1 fake node, MariaDB, RabbitMQ',
            'bench_args': bench_args(args.quick), 'note': note,
            'reference_error': reference_error,
            'load_average': load, 'wall_s': round(time.monotonic() - started),
            'interpreters': sbs.interpreters(
                reference_python if installed else None),
            'rows': rows, 'markdown': table,
            'checks': {'reference': checks(reference),
                       'nova_lite': checks(nova_lite)},
            'reference': reference, 'nova_lite': nova_lite,
            'logs': out_dir}
