"""The faults the suite injects, one function each.

Each ``inject(ctx)`` runs while a burst of creates is going on (after
``inject_at`` POSTs were answered): it breaks something, waits out the
outage, repairs it the way an operator would (start the server or the
lab process again, with the command line stack.sh gave it) and returns
once the repair is done, with what it measured. The outages are as
short as still gives the same effect; the database stays down
30 s (reads and writes must be retried across that long).
"""

import collections
import concurrent.futures
import os
import signal
import time

from tests.faults import faultlab
from tests.faults import services

RABBIT_SHORT_OUTAGE = 5
RABBIT_LONG_OUTAGE = 40
DB_OUTAGE = 30
GALERA_NODE_OUTAGE = 15
CELL_CONDUCTOR_OUTAGE = 40
# While the broker is down the API answers a create within this (503, or
# 202 and the build completes later), and GETs keep answering.
OUTAGE_ANSWER_SECONDS = 10


class Fault:
    """``database``: the lab's databases live on the private MariaDB
    (``'mariadb'``) or on the private Galera cluster (``'galera'``,
    tests/faults/galera.py)."""

    def __init__(self, name, description, inject, inject_at=10,
                 database='mariadb'):
        self.name, self.description = name, description
        self.inject, self.inject_at = inject, inject_at
        self.database = database


def _sleep_until(start, seconds):
    left = start + seconds - time.monotonic()
    if left > 0:
        time.sleep(left)


class Outage:
    """Times of one outage: how long the stop took, how long the thing
    was down (``down_s``: from stopped to the start command), how long
    the start took."""

    def __init__(self):
        self.began = time.monotonic()
        self.stopped = self.restarting = self.up = None

    def mark_stopped(self):
        self.stopped = time.monotonic()

    def wait_down(self, seconds):
        """Stay down until ``seconds`` after the stop completed."""
        _sleep_until(self.stopped, seconds)
        self.restarting = time.monotonic()

    def mark_up(self):
        self.up = time.monotonic()
        return {'stop_s': round(self.stopped - self.began, 1),
                'down_s': round(self.restarting - self.stopped, 1),
                'start_s': round(self.up - self.restarting, 1)}




def rabbit_stop_start(ctx):
    outage = Outage()
    ctx.rabbit.stop()
    outage.mark_stopped()
    outage.wait_down(RABBIT_SHORT_OUTAGE)
    ctx.rabbit.start()
    return outage.mark_up()


def rabbit_kill9(ctx):
    outage = Outage()
    ctx.rabbit.kill9()
    outage.mark_stopped()
    outage.wait_down(RABBIT_SHORT_OUTAGE)
    ctx.rabbit.start()
    return outage.mark_up()


def _outage_probe(ctx, creates=10):
    """Concurrent creates and GETs while the broker is down, each with a
    client deadline of OUTAGE_ANSWER_SECONDS; what they answered."""
    lab = ctx.lab
    limit = OUTAGE_ANSWER_SECONDS
    some_id = next(iter(ctx.burst.accepted), None)
    gets = ['/servers/detail?all_tenants=1', '/flavors', '/os-hypervisors']
    if some_id:
        gets.append('/servers/' + some_id)

    def post(i):
        return faultlab.compute_call(
            lab, 'POST', '/servers',
            faultlab.create_body('%s-outage-%02d' % (ctx.fault.name, i)),
            admin=False, timeout=limit + 2)

    def get(path):
        return faultlab.compute_call(lab, 'GET', path, timeout=limit + 2)

    with concurrent.futures.ThreadPoolExecutor(creates + len(gets)) as pool:
        posts = [pool.submit(post, i) for i in range(creates)]
        reads = [pool.submit(get, p) for p in gets]
        posts = [f.result() for f in posts]
        reads = [f.result() for f in reads]
    bad_posts = [(s, round(t, 1)) for s, t, _ in posts
                 if s not in (202, 503) or t > limit]
    bad_gets = [(p, s, round(t, 1)) for p, (s, t, _) in zip(gets, reads,
                                                         strict=True)
                if s != 200 or t > limit]
    accepted = [b['server']['id'] for s, _, b in posts
                if s == 202 and isinstance(b, dict)]
    return {
        'post_statuses': sorted(str(s) for s, _, _ in posts),
        'post_slowest_s': round(max(t for _, t, _ in posts), 1),
        'get_slowest_s': round(max(t for _, t, _ in reads), 1),
        'bad_posts': bad_posts, 'bad_gets': bad_gets, 'gets': len(gets),
        'ok': not bad_posts and not bad_gets,
    }, accepted


def rabbit_down_40s(ctx):
    outage = Outage()
    ctx.rabbit.stop()
    outage.mark_stopped()
    # Let the services notice the broker is gone before probing.
    time.sleep(3)
    probe, accepted = _outage_probe(ctx)
    outage.wait_down(RABBIT_LONG_OUTAGE)
    ctx.rabbit.start()
    return dict(outage.mark_up(),
                outage_probe=probe, accepted=accepted,
                check_failed=None if probe['ok'] else
                'broker down: %d/10 POSTs and %d/%d GETs not answered '
                '202/503 and 200 within %ds (POSTs: %s)' % (
                    len(probe['bad_posts']), len(probe['bad_gets']),
                    probe['gets'], OUTAGE_ANSWER_SECONDS,
                    ', '.join(sorted({str(s) for s, _ in
                                      probe['bad_posts']}))))


def mariadb_restart(ctx):
    outage = Outage()
    ctx.mysql.stop()
    outage.mark_stopped()
    outage.wait_down(DB_OUTAGE)
    ctx.mysql.start()
    return outage.mark_up()


def galera_node_stop(ctx):
    """Stop (SIGTERM) the Galera node the proxy sends every connection
    to; the open connections drop, new ones go to the next synced node.
    The node stays down until the burst is answered and
    GALERA_NODE_OUTAGE seconds have passed, then joins again (IST)."""
    cluster = ctx.mysql
    node = next(n for n in cluster.nodes if n.index in cluster.proxy.healthy)
    outage = Outage()
    node.stop()
    outage.mark_stopped()
    size_down = cluster.size()
    ctx.burst.join()
    outage.wait_down(GALERA_NODE_OUTAGE)
    cluster.start()
    info = outage.mark_up()
    info.update(stopped_node=node.index, cluster_size_while_down=size_down,
                proxy_switches=[{'at': round(t - outage.began, 1),
                                 'synced': synced}
                                for t, synced in cluster.proxy.switches()
                                if t >= outage.began])
    return info


def _process_fault(ctx, service, sig, down):
    """Signal a lab service, stay ``down`` seconds, start it again with
    the command stack.sh runs for it (not stack.sh's other steps)."""
    outage = Outage()
    ctx.lab.kill_service(service, sig)
    outage.mark_stopped()
    outage.wait_down(down)
    ctx.lab.start_service(service)
    return outage.mark_up()


def super_conductor_kill(ctx):
    return _process_fault(ctx, 'conductor', signal.SIGKILL, 2)


def cell_conductor_down(ctx):
    return _process_fault(ctx, 'conductor-' + ctx.lab.cells[0],
                          signal.SIGTERM, CELL_CONDUCTOR_OUTAGE)


def _compute(ctx):
    cell = ctx.lab.cells[0]
    return 'compute-' + ctx.lab.computes[cell][0]


def compute_kill_restart(ctx):
    return _process_fault(ctx, _compute(ctx), signal.SIGKILL, 2)


def compute_sigterm(ctx):
    # stop_s: how long the graceful stop took.
    return _process_fault(ctx, _compute(ctx), signal.SIGTERM, 0)


# SIGTERMs the compute gets during the burst, and the creates sent beside
# the burst meanwhile (so that every stop and start meets build casts).
SIGTERM_CYCLES = 3
SIGTERM_BURST = 24
COMPUTE_START_LIMIT = 90


def _starts(lab, name):
    """How many times lab service ``name`` logged that it consumes."""
    path = os.path.join(lab.state, 'logs', name + '.log')
    try:
        with open(path, errors='replace') as log:
            return sum(1 for line in log if ' consuming topic ' in line)
    except OSError:
        return 0


def _wait_consuming(lab, name, starts_before):
    services.wait_until(lambda: _starts(lab, name) > starts_before,
                        COMPUTE_START_LIMIT, '%s consuming' % name)


def compute_sigterm_burst(ctx):
    """SIGTERM the compute SIGTERM_CYCLES times while creates keep coming,
    starting it again at once each time: first with builds in flight, then
    as soon as the new process consumes (the casts queued meanwhile are
    pouring in), then a second after that. Every server must then go
    ACTIVE (built before a stop, after a restart, or rescheduled): a build
    cast taken and dropped by a stopping compute would sit in BUILD until
    the build timeout, then end in ERROR."""
    lab, name = ctx.lab, _compute(ctx)
    more = faultlab.Burst(lab, ctx.fault.name + '-more', SIGTERM_BURST,
                          concurrency=2).start()
    cycles = []
    for pause in [0] * (SIGTERM_CYCLES - 1) + [1]:
        time.sleep(pause)
        starts = _starts(lab, name)
        outage = Outage()
        lab.kill_service(name, signal.SIGTERM)
        outage.mark_stopped()
        outage.wait_down(0)
        lab.start_service(name)
        _wait_consuming(lab, name, starts)
        cycles.append(outage.mark_up())
    more.join()
    ctx.burst.join()
    accepted = ctx.burst.accepted + more.accepted
    # Polled until none is in BUILD; a lost build leaves BUILD only
    # through the build timeout, in ERROR.
    since = time.monotonic()
    servers, settled_at = faultlab.wait_settled(
        lab, accepted, since + lab.build_timeout + 60, only=True)
    not_active = {sid: (servers.get(sid) or {}).get('status', 'gone')
                  for sid in accepted
                  if (servers.get(sid) or {}).get('status') != 'ACTIVE'}
    check_failed = None
    if not_active:
        counts = collections.Counter(not_active.values())
        check_failed = ('%d of %d servers not ACTIVE after %d SIGTERMs of '
                        'the compute: %s' % (
                            len(not_active), len(accepted), SIGTERM_CYCLES,
                            dict(sorted(counts.items()))))
    return {'cycles': cycles, 'accepted': more.accepted,
            'settle_s': (round(settled_at - since, 1)
                         if settled_at is not None else None),
            'not_active_ids': sorted(not_active),
            'check_failed': check_failed}


FAULTS = [
    Fault('rabbit_stop_start', 'RabbitMQ clean stop, %ds, start'
          % RABBIT_SHORT_OUTAGE, rabbit_stop_start),
    Fault('rabbit_kill9', 'RabbitMQ kill -9, %ds, start'
          % RABBIT_SHORT_OUTAGE, rabbit_kill9),
    Fault('rabbit_down_40s', 'RabbitMQ down %ds; 10 concurrent creates '
          'and GETs meanwhile' % RABBIT_LONG_OUTAGE, rabbit_down_40s),
    Fault('mariadb_restart', 'MariaDB stopped %ds, started' % DB_OUTAGE,
          mariadb_restart),
    Fault('super_conductor_kill', 'SIGKILL the super conductor, '
          'start it again', super_conductor_kill),
    Fault('cell_conductor_down', 'cell conductor SIGTERM, down %ds'
          % CELL_CONDUCTOR_OUTAGE, cell_conductor_down),
    Fault('compute_kill_restart', 'SIGKILL the compute mid-build, '
          'start it again', compute_kill_restart, inject_at=15),
    Fault('compute_sigterm', 'SIGTERM the compute with builds in flight, '
          'then start it', compute_sigterm, inject_at=15),
    Fault('compute_sigterm_burst', 'SIGTERM the compute %d times while '
          'creates go on, starting it again each time' % SIGTERM_CYCLES,
          compute_sigterm_burst, inject_at=10),
    Fault('galera_node_stop', 'stop 1 of 3 Galera nodes (the one the '
          'proxy uses) mid-burst, %ds, start' % GALERA_NODE_OUTAGE,
          galera_node_stop, database='galera'),
]

BY_NAME = {f.name: f for f in FAULTS}
