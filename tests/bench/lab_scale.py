"""A lab of N fake nodes stacked by devstack/stack.sh: phases, memory, boots.

Stacks a large lab (default 2 cells x 2 computes x 2,500 fake nodes:
10,000 hypervisors, MariaDB, RabbitMQ) and, in the same run, the small
lab of the side-by-side boots (1 cell x 2 computes x 1 node),
then for each:

* ``stack.sh``'s seconds per step (it prints them), its total, and the
  seconds until every node is listed by ``GET /os-hypervisors`` (paged,
  1,000 a page) -- stack.sh itself waits until every node has its row
  and its placement inventory (``NOVA_LITE_WAIT_NODES``);
* the real ``openstack hypervisor list`` (python-openstackclient, the
  lab's ``nova-lite-admin`` cloud, default table output): seconds, client
  CPU-seconds (start-up and per row), rows, and the lab's own CPU by
  kind while idle before it and while it ran;
* the summed PSS of the lab's processes by kind (``/proc/<pid>/
  smaps_rollup``: pages shared by forked workers counted once);
* the CPU-seconds each kind spent until then;
* a burst of 100 boots (10 requests of 10, as ``boot_throughput``) with
  its deletes, servers ACTIVE per second, CPU per server by process (the
  boots alone too, and the machine's MariaDB and RabbitMQ), and
  MariaDB's buffer pool page reads per server.

With ``NOVA_LITE_BENCH_LAB_SERVERS=N`` the large lab is first filled
with N servers (:func:`fill`: multi-creates of
``NOVA_LITE_BENCH_LAB_BATCH`` servers, default 100, with at most
``NOVA_LITE_BENCH_LAB_WINDOW``, default 400, building at once), which stay
while the rest is measured: the fill's seconds and servers/s (overall and
per tenth), ``GET /servers/detail?limit=1000`` as the member and with
``all_tenants``, the real ``openstack server list --all-projects`` (which
pages through every server), then the memory and the burst as above.

The large lab's burst rate is reported as a ratio of the small lab's.
Environment: ``NOVA_LITE_BENCH_CELLS``, ``NOVA_LITE_BENCH_COMPUTES_PER_CELL``,
``NOVA_LITE_BENCH_NODES`` (the large lab), ``NOVA_LITE_BENCH_SMALL=0``
skips the small lab. ``--quick``: 1 cell x 2 computes x 50 nodes and a
burst of 20.
"""

import collections
import json
import os
import re
import time

from tests.bench import boot_throughput
from tests.bench import openstack_cli
from tests.integration import lab as lab_mod

STEP_LINE = re.compile(r'^\s*(\d+) s  (.+)$')
HYPERVISOR_PAGE = 1000
# Seconds the lab is left alone before the CLI runs: its background load.
IDLE_WINDOW = 30


def phases(stack_stdout):
    """stack.sh's 'Seconds per step' lines: [(step, seconds)]."""
    found, inside = [], False
    for line in stack_stdout.splitlines():
        if line.startswith('Seconds per step'):
            inside = True
            continue
        match = STEP_LINE.match(line) if inside else None
        if match:
            found.append((match.group(2), int(match.group(1))))
    return found


def count_hypervisors(lab):
    """Hypervisors the compute API lists, page after page; (count, pages)."""
    count, pages, marker = 0, 0, None
    while True:
        path = '/os-hypervisors?limit=%d' % HYPERVISOR_PAGE
        if marker:
            path += '&marker=' + marker
        status, body = lab.compute('GET', path)
        if status != 200:
            raise lab_mod.LabError('hypervisor list: %s %s' % (status, body))
        page = body['hypervisors']
        count, pages = count + len(page), pages + 1
        if len(page) < HYPERVISOR_PAGE:
            return count, pages
        marker = page[-1]['id']


def openstack_hypervisor_list(lab, expected):
    """The real ``openstack hypervisor list`` against the stacked lab, as
    a user types it (:mod:`tests.bench.openstack_cli`), after an idle
    window: the lab's CPU-seconds by kind in that window (its background
    load: heartbeats, periodic updates) and during the command (what the
    command competed with besides the API's own pages)."""
    before_idle = by_kind(lab)
    time.sleep(IDLE_WINDOW)
    before = by_kind(lab)
    row = openstack_cli.hypervisor_list(
        ['--os-cloud', 'nova-lite-admin'], lab.env, expected)
    after = by_kind(lab)
    row['lab_idle_cpu_s_per_min'] = _cpu_delta(
        before_idle, before, 60.0 / IDLE_WINDOW)
    row['lab_cpu_s_during'] = _cpu_delta(before, after)
    return row


def _cpu_delta(first, second, scale=1.0):
    """``{kind: cpu-seconds}`` spent between two :func:`by_kind`."""
    return {kind: round((entry['cpu_s'] - first.get(kind, {}).get(
        'cpu_s', 0.0)) * scale, 2) for kind, entry in second.items()}


def _kind(service):
    if service.startswith('compute-'):
        return 'compute'
    if service.startswith('conductor-'):
        return 'cell-conductor'
    return service


def by_kind(lab):
    """{kind: {services, processes, pss_mb, cpu_s}} of the lab's processes."""
    kinds = collections.defaultdict(
        lambda: {'services': 0, 'processes': 0, 'pss_mb': 0.0, 'cpu_s': 0.0})
    for name, pid in lab.pids().items():
        entry = kinds[_kind(name)]
        entry['services'] += 1
        for member in boot_throughput._group_members(pid):
            try:
                pss = boot_throughput._proc_pss_kb(member)
                cpu = boot_throughput._proc_stat(member)[1]
            except (OSError, IndexError, ValueError):
                continue
            entry['processes'] += 1
            entry['pss_mb'] += pss / 1024
            entry['cpu_s'] += cpu / boot_throughput.CLK_TCK
    return {kind: {k: round(v, 1) if isinstance(v, float) else v
                   for k, v in entry.items()}
            for kind, entry in sorted(kinds.items())}


def _project_usages(lab):
    """Usage of the booting project (one request, whatever the number of
    providers: the lab's own usages_in_use reads every provider)."""
    usages = lab.placement_get('/usages?project_id=%s'
                               % lab_mod.MEMBER_PROJECT)['usages']
    return {rc: n for rc, n in usages.items() if n}


def _usage_beyond(lab, baseline):
    """The project's usage (by consumer type) that differs from
    ``baseline``; empty once the burst's deletes are done, whatever the
    fill left."""
    now = _project_usages(lab)
    return {kind: now.get(kind) for kind in set(now) | set(baseline)
            if now.get(kind) != baseline.get(kind)}


def _newest_named(count):
    """A listing of the lab's newest ``count`` servers named ``prefix*``.

    The burst's servers are the newest of the lab, and the default
    order's first page is an index walk in each cell whatever the lab
    holds; a name filter would read every server of each cell at every
    poll (100,000 after a fill), and the polls would take the cores the
    burst is measured on. Both labs are watched this way."""
    def listing(lab, prefix):
        return [server for server in lab.servers(limit=count)
                if server['name'].startswith(prefix)]
    return listing


def _burst(lab, label, total, already=0):
    # NOTE(bench): a quota below what the fill left is refused (400).
    lab.set_member_quota(instances=already + total * 2)
    baseline = _project_usages(lab)
    lab.usages_in_use = lambda: _usage_beyond(lab, baseline)
    per_request = min(10, total)

    def multi(i):
        name = '%s-%02d' % (label, i)
        return lambda: {name: boot_throughput._post(lab, name, per_request)}
    row = boot_throughput._burst(
        lab, label, [multi(i) for i in range(total // per_request)], total,
        listing=_newest_named(total))
    row['nodes_used'] = len(row.pop('servers_per_node'))
    return row


def _reservation_settled(lab, reservation, count):
    """(active, error, fault messages of the ERROR servers) of a
    multi-create of ``count``, None while any builds (or is not listed
    yet)."""
    status, body = lab.compute(
        'GET', '/servers/detail?reservation_id=%s&limit=1000' % reservation,
        admin=False)
    if status != 200:
        raise lab_mod.LabError('servers of %s: %s %s'
                               % (reservation, status, body))
    states = [s.get('status') for s in body['servers']]
    if len(states) < count or any(st not in ('ACTIVE', 'ERROR')
                                  for st in states):
        return None
    faults = [(s.get('fault') or {}).get('message', 'no fault recorded')
              for s in body['servers'] if s.get('status') == 'ERROR']
    return states.count('ACTIVE'), states.count('ERROR'), faults


def fill(lab, servers, batch, window, timeout=None):
    """Boot ``servers`` servers into the lab and leave them: multi-creates
    (``min_count = max_count = batch``) posted while fewer than
    ``window`` are building, each followed by its reservation id (one
    indexed query a poll, whatever the lab holds). A result row."""
    lab.set_member_quota(instances=servers + 1000)
    timeout = timeout or max(600, servers)
    posted, outstanding = 0, {}
    active = error = 0
    faults = collections.Counter()      # why servers went to ERROR
    settled_at = []     # (monotonic, servers settled so far)
    started = time.monotonic()
    deadline = started + timeout
    while (posted < servers or outstanding) and \
            time.monotonic() < deadline:
        for reservation, count in list(outstanding.items()):
            done = _reservation_settled(lab, reservation, count)
            if done is None:
                continue
            del outstanding[reservation]
            active += done[0]
            error += done[1]
            faults.update(done[2])
            settled_at.append((time.monotonic(), active + error))
        building = sum(outstanding.values())
        if posted < servers and building + batch <= window:
            count = min(batch, servers - posted)
            body = {'server': {'name': 'fill-%06d' % posted,
                               'flavorRef': '1',
                               'imageRef': boot_throughput.IMAGE_ID,
                               'networks': 'none', 'min_count': count,
                               'max_count': count,
                               'return_reservation_id': True}}
            status, reply = lab.compute('POST', '/servers', body,
                                        admin=False)
            if status != 202:
                raise lab_mod.LabError('fill: %s %s' % (status, reply))
            outstanding[reply['reservation_id']] = count
            posted += count
            continue
        time.sleep(boot_throughput.POLL_SECONDS)
    elapsed = (settled_at[-1][0] if settled_at else time.monotonic()) - \
        started
    tenths, mark = [], (started, 0)
    for step in range(1, 11):
        point = next(((t, n) for t, n in settled_at
                      if n >= servers * step / 10), None)
        if point is None:
            break
        if point[0] > mark[0]:
            tenths.append(round((point[1] - mark[1]) /
                                (point[0] - mark[0]), 1))
            mark = point
    return {'servers': servers, 'batch': batch, 'window': window,
            'posted': posted, 'active': active, 'error': error,
            'not_settled': posted - active - error,
            'error_faults': dict(faults.most_common(5)),
            'seconds': round(elapsed, 1),
            'servers_per_s': round((active + error) / max(elapsed, 1e-6),
                                   2),
            'servers_per_s_by_tenth': tenths}


def _timed_get(lab, path, admin):
    started = time.monotonic()
    status, body = lab.compute('GET', path, admin=admin)
    if status != 200:
        raise lab_mod.LabError('%s: %s %s' % (path, status, body))
    return {'seconds': round(time.monotonic() - started, 2),
            'listed': len(body['servers'])}


def openstack_server_list(lab):
    """The real ``openstack server list --all-projects`` (every page,
    1,000 a page): seconds, client CPU-seconds, rows."""
    openstack = openstack_cli.command()
    if openstack is None:
        return {'skipped': 'python-openstackclient not installed'}
    argv = [openstack, '--os-cloud', 'nova-lite-admin', 'server', 'list',
            '--all-projects']
    out, wall, cpu = openstack_cli._timed(argv, lab.env, timeout=3600)
    return {'command': 'openstack server list --all-projects',
            'rc': out.returncode,
            'listed': len(openstack_cli.table_ids(out.stdout)),
            'seconds': wall, 'client_cpu_s': cpu,
            'stderr_tail': out.stderr[-300:] if out.returncode else ''}


def innodb_reads():
    """MariaDB's buffer pool page reads so far: ``requests`` (logical)
    and ``from_disk`` (pages not in the pool, read from the files)."""
    import sqlalchemy as sa
    from tests import db_fixtures
    engine = sa.create_engine(db_fixtures.MYSQL_SERVER_URL + '/',
                              poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            status = dict(conn.execute(sa.text(
                "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_read%'")).all())
    finally:
        engine.dispose()
    return {'requests': int(status['Innodb_buffer_pool_read_requests']),
            'from_disk': int(status['Innodb_buffer_pool_reads'])}


def database_use(lab):
    """The lab's MariaDB connections now (its databases' sessions in the
    process list) and the size of its tables (data and indexes, MB),
    by database."""
    import sqlalchemy as sa
    from tests import db_fixtures
    engine = sa.create_engine(db_fixtures.MYSQL_SERVER_URL + '/',
                              poolclass=sa.pool.NullPool)
    pattern = lab.name + '%'
    try:
        with engine.connect() as conn:
            connections = conn.execute(sa.text(
                'SELECT COUNT(*) FROM information_schema.processlist '
                'WHERE db LIKE :p'), {'p': pattern}).scalar()
            sizes = conn.execute(sa.text(
                'SELECT table_schema, SUM(data_length + index_length) '
                'FROM information_schema.tables WHERE table_schema LIKE :p '
                'GROUP BY table_schema'), {'p': pattern}).all()
    finally:
        engine.dispose()
    return {'connections': connections,
            'mb': {schema[len(lab.name) + 1:] or schema: round(
                size / 1048576, 1) for schema, size in sizes}}


def measure_servers(lab, servers):
    """The fill and what is read of a full lab (a result row)."""
    env = os.environ.get
    row = {'fill': fill(lab, servers,
                        int(env('NOVA_LITE_BENCH_LAB_BATCH', '100')),
                        int(env('NOVA_LITE_BENCH_LAB_WINDOW', '400')))}
    row['detail_limit_1000_member'] = _timed_get(
        lab, '/servers/detail?limit=1000', admin=False)
    row['detail_limit_1000_all_tenants'] = _timed_get(
        lab, '/servers/detail?all_tenants=1&limit=1000', admin=True)
    row['openstack_server_list'] = openstack_server_list(lab)
    started = time.monotonic()
    row['placement_usages'] = _project_usages(lab)
    row['placement_usages_s'] = round(time.monotonic() - started, 2)
    row['database'] = database_use(lab)
    return row


def measure(label, cells, computes_per_cell, nodes, burst, servers=0):
    lab = lab_mod.Lab(cells=cells, computes_per_cell=computes_per_cell,
                      nodes_per_compute=nodes, database='mysql',
                      name_prefix='nl_scale')
    expected = cells * computes_per_cell * nodes
    try:
        started = time.monotonic()
        result = lab.stack()
        stack_s = time.monotonic() - started
        listed, pages = count_hypervisors(lab)
        all_listed_s = time.monotonic() - started
        if listed != expected:
            raise lab_mod.LabError('%d of %d hypervisors listed'
                                   % (listed, expected))
        listing_started = time.monotonic()
        count_hypervisors(lab)
        listing_s = time.monotonic() - listing_started
        cli = openstack_hypervisor_list(lab, expected)
        before_fill = by_kind(lab)
        filled = measure_servers(lab, servers) if servers else None
        kinds = by_kind(lab)
        row = {'lab': label, 'cells': cells,
               'computes': cells * computes_per_cell,
               'nodes': expected, 'load_before': _load(),
               'stack_s': round(stack_s, 1),
               'all_listed_s': round(all_listed_s, 1),
               'hypervisor_pages': pages,
               'hypervisor_listing_s': round(listing_s, 2),
               'openstack_hypervisor_list': cli,
               'phases_s': dict(phases(result.stdout)),
               'pss_mb': round(sum(k['pss_mb'] for k in kinds.values()), 1),
               'by_kind': kinds}
        if filled is not None:
            row['servers'] = filled
            row['pss_mb_before_fill'] = round(
                sum(k['pss_mb'] for k in before_fill.values()), 1)
            row['by_kind_before_fill'] = before_fill
        if filled is not None:
            # What was measured so far survives a later failure.
            print('lab_scale %s before the burst: %s'
                  % (label, json.dumps(row, default=str)), flush=True)
        reads = innodb_reads()
        row['burst'] = _burst(lab, 'burst', burst, already=servers)
        row['burst']['innodb_page_reads_per_server'] = {
            kind: round((count - reads[kind]) / burst, 1)
            for kind, count in innodb_reads().items()}
        row['load_after'] = _load()
        return row
    finally:
        lab.destroy()


def _load():
    with open('/proc/loadavg') as f:
        return float(f.read().split()[0])


def run(args):
    missing = boot_throughput._missing_services('mysql')
    if missing:
        return {'skipped': missing, 'rows': []}
    env = os.environ.get
    # A large lab registering on a loaded machine outlasts Lab's default.
    lab_mod.STACK_TIMEOUT = 1200
    if args.quick:
        large, burst = (1, 2, 50), 20
    else:
        large = (int(env('NOVA_LITE_BENCH_CELLS', '2')),
                 int(env('NOVA_LITE_BENCH_COMPUTES_PER_CELL', '2')),
                 int(env('NOVA_LITE_BENCH_NODES', '2500')))
        burst = 100
    rows = []
    if env('NOVA_LITE_BENCH_SMALL', '1') != '0':
        rows.append(measure('small', 1, 2, 1, burst))
    rows.append(measure('large', *large, burst=burst,
                        servers=int(env('NOVA_LITE_BENCH_LAB_SERVERS', '0'))))
    result = {'rows': rows}
    if len(rows) == 2:
        small, big = (r['burst']['servers_active_per_s'] for r in rows)
        result['burst_rate_large_over_small'] = round(big / small, 2) \
            if small else None
    return result
