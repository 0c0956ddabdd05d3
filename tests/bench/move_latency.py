"""Latency of each move operation on a stacked lab (RabbitMQ + MariaDB).

Stacks a lab (1 cell x 3 computes x 2 fake nodes by default), boots a few
servers, then times each operation through the compute API as a user
would see it: from the action's answer to the server's final status,
polled every ``POLL_SECONDS``:

* resize to m1.small until VERIFY_RESIZE, confirm until ACTIVE;
* cold migrate until VERIFY_RESIZE, revert until ACTIVE (back home);
* live migrate (scheduler's pick) until ACTIVE on another host;
* shelve (offloaded at once) until SHELVED_OFFLOADED, unshelve until
  ACTIVE.

After every round placement usage must equal what the servers hold
(``consistent``): a benchmark that leaked would not count. Environment:
``NOVA_LITE_BENCH_DATABASE`` (default mysql), ``NOVA_LITE_BENCH_SERVERS``.
"""

import os
import time

from tests.bench import boot_throughput
from tests.bench import stats
from tests.integration import lab as lab_mod

POLL_SECONDS = 0.1


def _act(lab, server_id, body, expected=(202, 204)):
    status, reply = lab.compute('POST', '/servers/%s/action' % server_id,
                                body)
    if status not in expected:
        raise lab_mod.LabError('%s on %s: %s %s' % (
            list(body)[0], server_id, status, reply))
    return time.monotonic()


def _until(lab, server_id, status, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        server = lab.server(server_id)
        if server and server['status'] == status and \
                server.get('OS-EXT-STS:task_state') is None:
            return time.monotonic(), server
        if server and server['status'] == 'ERROR':
            raise lab_mod.LabError('%s went to ERROR: %s' % (
                server_id, server.get('fault')))
        time.sleep(POLL_SECONDS)
    raise lab_mod.LabError('%s not %s after %s s' % (server_id, status,
                                                      timeout))


def _timed(lab, server_id, body, status):
    started = _act(lab, server_id, body)
    finished, server = _until(lab, server_id, status)
    return finished - started, server


def _host(server):
    return server['OS-EXT-SRV-ATTR:host']


def _round(lab, server_id, times):
    seconds, server = _timed(lab, server_id,
                             {'resize': {'flavorRef': '2'}},
                             'VERIFY_RESIZE')
    times['resize'].append(seconds)
    times['confirm'].append(_timed(lab, server_id,
                                   {'confirmResize': None}, 'ACTIVE')[0])
    home = _host(lab.server(server_id))
    times['migrate'].append(_timed(lab, server_id, {'migrate': None},
                                   'VERIFY_RESIZE')[0])
    seconds, server = _timed(lab, server_id, {'revertResize': None},
                             'ACTIVE')
    times['revert'].append(seconds)
    assert _host(server) == home, 'revert did not come home'
    seconds, server = _timed(lab, server_id, {'os-migrateLive': {
        'host': None, 'block_migration': 'auto'}}, 'ACTIVE')
    times['live_migrate'].append(seconds)
    assert _host(server) != home, 'live migration did not move'
    times['shelve_offload'].append(_timed(
        lab, server_id, {'shelve': None}, 'SHELVED_OFFLOADED')[0])
    times['unshelve'].append(_timed(lab, server_id, {'unshelve': None},
                                    'ACTIVE')[0])


def _consistent(lab, server_ids):
    """Memory used over every provider equals the servers' flavors."""
    used = sum(u.get('MEMORY_MB', 0) for u in lab.usages_in_use().values())
    wanted = sum(lab.server(s)['flavor']['ram'] for s in server_ids)
    return used == wanted


def run(args):
    env = os.environ.get
    count = int(env('NOVA_LITE_BENCH_SERVERS', '2' if args.quick else '5'))
    database = env('NOVA_LITE_BENCH_DATABASE', 'mysql')
    missing = boot_throughput._missing_services(database)
    if missing:
        return {'skipped': missing, 'rows': []}
    lab = lab_mod.Lab(cells=1, computes_per_cell=3, nodes_per_compute=2,
                      database=database, name_prefix='nl_bench_moves')
    try:
        lab.stack()
        ids = []
        for i in range(count):
            status, reply = lab.compute('POST', '/servers', {'server': {
                'name': 'mover%d' % i, 'flavorRef': '1',
                'imageRef': boot_throughput.IMAGE_ID, 'networks': 'none'}})
            if status != 202:
                raise lab_mod.LabError('boot: %s %s' % (status, reply))
            ids.append(reply['server']['id'])
        lab.wait_status(ids, statuses=('ACTIVE',))
        times = {name: [] for name in (
            'resize', 'confirm', 'migrate', 'revert', 'live_migrate',
            'shelve_offload', 'unshelve')}
        for server_id in ids:
            _round(lab, server_id, times)
        consistent = _consistent(lab, ids)
        rows = []
        for name, values in times.items():
            summary = stats.summarize(values)
            rows.append({'operation': name, 'runs': len(values),
                         'p50_s': round(summary['p50_ms'] / 1000, 2),
                         'max_s': round(max(values), 2)})
        return {'lab': {'cells': 1, 'computes': 3, 'database': database},
                'poll_s': POLL_SECONDS, 'consistent_usage': consistent,
                'rows': rows}
    finally:
        lab.destroy()
