"""End-to-end boot throughput of a stacked lab (RabbitMQ + MariaDB).

Stacks a lab with devstack/stack.sh (2 cells x 1 compute x 10 fake nodes
by default: two computes, as the reference measurement of real Nova had),
then measures through the compute API:

* one-at-a-time POST-to-ACTIVE latency;
* a burst of 10 requests of 10 servers (``min_count``) and a burst of 100
  single requests from 4 threads: servers ACTIVE per second (first POST to
  last ACTIVE) and p50/p99 time from a server's POST to ACTIVE;
* after each burst, the time until its deletes are gone and placement
  usage is back to zero;
* CPU-seconds per server by process (utime + stime of every process of
  each service's process group, from /proc) over each burst and its
  deletes, and over its boots alone (``boots_*``); the same for the
  machine's MariaDB and RabbitMQ, which the lab shares
  (``shared_cpu_s_per_server``); the lab's resident memory and stack
  time.

Servers are watched by polling ``GET /servers/detail`` every
``POLL_SECONDS``: times carry that granularity, and the polling's own API
cost is included in the api's CPU. Environment: ``NOVA_LITE_BENCH_CELLS``,
``NOVA_LITE_BENCH_COMPUTES_PER_CELL``, ``NOVA_LITE_BENCH_NODES``,
``NOVA_LITE_BENCH_DATABASE`` (default mysql).
"""

import concurrent.futures
import os
import time

from tests.bench import stats
from tests.integration import lab as lab_mod

POLL_SECONDS = 0.25
IMAGE_ID = 'c1a7e0a5-5e1f-4b7b-9f0e-0000000000c1'
CLK_TCK = os.sysconf('SC_CLK_TCK')
PAGE_KB = os.sysconf('SC_PAGE_SIZE') // 1024


def _proc_stat(pid):
    with open('/proc/%d/stat' % pid) as f:
        fields = f.read().rsplit(')', 1)[1].split()
    # After the command: state ppid pgrp ... utime(12) stime(13).
    return int(fields[2]), int(fields[11]) + int(fields[12])


def _proc_rss_kb(pid):
    with open('/proc/%d/statm' % pid) as f:
        return int(f.read().split()[1]) * PAGE_KB


def _group_members(pgid):
    members = []
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            try:
                if _proc_stat(int(entry))[0] == pgid:
                    members.append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    return members


def cpu_by_service(lab):
    """{service: CPU seconds so far} over each service's process group."""
    result = {}
    for name, pid in lab.pids().items():
        ticks = 0
        for member in _group_members(pid):
            try:
                ticks += _proc_stat(member)[1]
            except (OSError, IndexError, ValueError):
                continue
        result[name] = ticks / CLK_TCK
    return result


# The machine's own servers a lab may use, by their command names.
MACHINE_SERVICES = {'mariadb': ('mariadbd', 'mysqld'),
                    'rabbitmq': ('beam.smp',)}


def machine_service_cpu():
    """{'mariadb', 'rabbitmq'}: CPU seconds so far of the machine's
    database and message bus, which the lab shares rather than owns
    (absent ones count 0)."""
    result = dict.fromkeys(MACHINE_SERVICES, 0.0)
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/comm' % entry) as f:
                comm = f.read().strip()
            kind = next((k for k, names in MACHINE_SERVICES.items()
                         if comm in names), None)
            if kind is not None:
                result[kind] += _proc_stat(int(entry))[1] / CLK_TCK
        except (OSError, IndexError, ValueError):
            continue
    return result


def _proc_pss_kb(pid):
    with open('/proc/%d/smaps_rollup' % pid) as f:
        for line in f:
            if line.startswith('Pss:'):
                return int(line.split()[1])
    return 0


def memory_mb(lab):
    """Resident memory of the lab's processes: the plain RSS sum (counts
    pages shared by forked workers once per process) and the PSS sum."""
    rss = pss = 0
    for pid in lab.pids().values():
        for member in _group_members(pid):
            try:
                rss += _proc_rss_kb(member)
                pss += _proc_pss_kb(member)
            except OSError:
                continue
    return {'rss_sum_mb': round(rss / 1024, 1),
            'pss_sum_mb': round(pss / 1024, 1)}


def _post(lab, name, count=1):
    body = {'server': {'name': name, 'flavorRef': '1', 'imageRef': IMAGE_ID,
                       'networks': 'none'}}
    if count > 1:
        body['server'].update(min_count=count, max_count=count)
    status, reply = lab.compute('POST', '/servers', body, admin=False)
    if status != 202:
        raise lab_mod.LabError('boot %s: %s %s' % (name, status, reply))
    return time.monotonic()


def _named(lab, prefix):
    """The servers named ``prefix*`` (each cell matches the name)."""
    return lab.servers(name='^' + prefix)


def _watch(lab, prefix, expected, timeout, listing=_named):
    """Poll until ``expected`` servers named ``prefix*`` left BUILD;
    {id: (name, status, monotonic time first seen settled)}."""
    settled = {}
    deadline = time.monotonic() + timeout
    while len(settled) < expected and time.monotonic() < deadline:
        now = time.monotonic()
        for server in listing(lab, prefix):
            if server['status'] in ('ACTIVE', 'ERROR') and \
                    server['id'] not in settled:
                settled[server['id']] = (server['name'], server['status'],
                                         now,
                                         server['OS-EXT-SRV-ATTR:'
                                                'hypervisor_hostname'])
        time.sleep(POLL_SECONDS)
    return settled


def _delete_all(lab, prefix, threads=4, listing=_named):
    """Delete every server named ``prefix*``; seconds until they are gone
    and placement usage is zero."""
    ids = [s['id'] for s in listing(lab, prefix)]
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        list(pool.map(lambda sid: lab.compute('DELETE', '/servers/' + sid),
                      ids))
    deadline = started + 600
    while time.monotonic() < deadline:
        if not listing(lab, prefix) and not lab.usages_in_use():
            return round(time.monotonic() - started, 2)
        time.sleep(POLL_SECONDS)
    raise lab_mod.LabError('deletes of %s not done in 600 s' % prefix)


def _cpu_delta(before, after, servers):
    return {name: round((after.get(name, 0) - before.get(name, 0)) /
                        servers, 4) for name in sorted(after)}


def _burst(lab, label, posts, total, listing=_named):
    """Run ``posts`` (callables returning {name prefix: POST time}),
    then watch (``listing(lab, label)``: the servers to watch); one
    result row."""
    cpu_before = cpu_by_service(lab)
    shared_before = machine_service_cpu()
    post_times = {}
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        for result in pool.map(lambda post: post(), posts):
            post_times.update(result)
    settled = _watch(lab, label, total, timeout=600, listing=listing)
    # The boots alone, before the deletes (whose waits poll placement).
    cpu_settled = cpu_by_service(lab)
    shared_settled = machine_service_cpu()
    first_post = min(post_times.values())
    to_active, errors = [], 0
    per_node = {}
    for name, status, seen, node in settled.values():
        per_node[node] = per_node.get(node, 0) + 1
        if status != 'ACTIVE':
            errors += 1
            continue
        key = name if name in post_times else name.rsplit('-', 1)[0]
        to_active.append(seen - post_times[key])
    last = max((item[2] for item in settled.values()),
               default=first_post)
    delete_s = _delete_all(lab, label, listing=listing)
    cpu_after = cpu_by_service(lab)
    shared_after = machine_service_cpu()
    summary = stats.summarize(to_active or [0])
    cpu = _cpu_delta(cpu_before, cpu_after, total)
    boots = _cpu_delta(cpu_before, cpu_settled, total)
    return {'scenario': label, 'servers': total,
            'active': len(to_active), 'error': errors,
            'not_settled': total - len(settled),
            'servers_active_per_s': round(len(to_active) /
                                          max(last - first_post, 1e-6), 2),
            'to_active_p50_s': round(summary['p50_ms'] / 1000, 2),
            'to_active_p99_s': round(summary['p99_ms'] / 1000, 2),
            'delete_all_s': delete_s,
            'servers_per_node': dict(sorted(per_node.items(),
                                            key=lambda kv: str(kv[0]))),
            'cpu_s_per_server_total': round(sum(cpu.values()), 4),
            'cpu_s_per_server': cpu,
            'boots_cpu_s_per_server_total': round(sum(boots.values()), 4),
            'boots_cpu_s_per_server': boots,
            'shared_cpu_s_per_server': {
                'boots': _cpu_delta(shared_before, shared_settled, total),
                'with_deletes': _cpu_delta(shared_before, shared_after,
                                           total)}}


def _one_at_a_time(lab, count):
    latencies = []
    for i in range(count):
        name = 'single%d' % i
        posted = _post(lab, name)
        settled = _watch(lab, name, 1, timeout=120)
        if settled:
            latencies.append(list(settled.values())[0][2] - posted)
    _delete_all(lab, 'single')
    summary = stats.summarize(latencies or [0])
    return {'scenario': 'one_at_a_time', 'servers': count,
            'active': len(latencies),
            'post_to_active_p50_s': round(summary['p50_ms'] / 1000, 2),
            'post_to_active_max_s': round(max(latencies or [0]), 2)}


def _missing_services(database):
    base = lab_mod.base
    if not base._port_open(base.RABBIT_HOST, base.RABBIT_PORT):
        return 'RabbitMQ does not answer on %s:%d' % (base.RABBIT_HOST,
                                                       base.RABBIT_PORT)
    if database == 'mysql':
        return base.db_fixtures.mysql_unavailable_reason()
    return None


def run(args):
    total = 20 if args.quick else 100
    per_request = 10 if total >= 10 else total
    env = os.environ.get
    database = env('NOVA_LITE_BENCH_DATABASE', 'mysql')
    missing = _missing_services(database)
    if missing:
        return {'skipped': missing, 'rows': []}
    lab = lab_mod.Lab(
        cells=int(env('NOVA_LITE_BENCH_CELLS', '2')),
        computes_per_cell=int(env('NOVA_LITE_BENCH_COMPUTES_PER_CELL', '1')),
        nodes_per_compute=int(env('NOVA_LITE_BENCH_NODES', '10')),
        database=database, name_prefix='nl_bench')
    try:
        lab.stack()
        memory = memory_mb(lab)
        lab.set_member_quota(instances=total * 2)
        rows = [_one_at_a_time(lab, 5 if args.quick else 10)]

        def multi(i):
            name = 'multi-%02d' % i
            return lambda: {name: _post(lab, name, per_request)}
        rows.append(_burst(lab, 'multi',
                           [multi(i) for i in range(total // per_request)],
                           total))

        def single(i):
            name = 'burst1-%03d' % i
            return lambda: {name: _post(lab, name)}
        rows.append(_burst(lab, 'burst1',
                           [single(i) for i in range(total)], total))
        return {'lab': {'cells': len(lab.cells),
                        'computes': sum(len(h) for h in
                                        lab.computes.values()),
                        'database': lab.env['NOVA_LITE_DATABASE'],
                        'stack_s': round(lab.stack_seconds, 1),
                        'memory': memory},
                'poll_s': POLL_SECONDS, 'rows': rows}
    finally:
        lab.destroy()
