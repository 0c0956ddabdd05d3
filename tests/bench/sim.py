"""``sim run`` speed: scheduling decisions per second at 1,000 hosts.

A synthetic cloud of ``NOVA_LITE_BENCH_SIM_HOSTS`` (default 1,000)
compute nodes (32 VCPU at 4.0, 128 GiB, 2 TB each) and a generated trace
of ``NOVA_LITE_BENCH_SIM_EVENTS`` creates (default 1,000; 200 with
``--quick``; Poisson arrivals, exponential lifetimes, three flavors, each
server deleted after its lifetime) are replayed under a packing and a
spreading configuration (``NOVA_LITE_BENCH_SIM_CONFIGS``, comma list) the
way ``nova-lite-manage sim run`` does: through the fast path
(:mod:`nova_lite.sim.fast`). Then the first
``NOVA_LITE_BENCH_SIM_EXACT_EVENTS`` creates (default 200, 50 with
``--quick``, 0 for none) under spreading with ``--exact`` (every create a
whole request through the scheduler manager and placement), and spreading
with ``[scheduler] max_placement_results = 50`` and randomized
candidates, which always takes the full path: the rows the fast path is
measured against. ``NOVA_LITE_BENCH_SIM_PROFILE=0`` skips the profile.

Per configuration: decisions per second of scheduler time (the figure
the simulator is judged by), decisions per second of process CPU time
over the whole replay (usage samples included; steadier on a shared
machine), wall time of the whole replay, how many creates took the fast
path, and for the full-path rows the scheduler's own split of a
decision's time (``host_states``: the host manager's fresh host
state per candidate, from memory here; ``placement``: the candidates
request; ``claims``: the claim in placement). Then 1,000 creates of the
spreading configuration under cProfile: the functions with the most own
time, so the figure says where the time goes.
"""

import cProfile
import io
import os
import pstats
import tempfile
import time

from nova_lite import conf as nl_conf
from nova_lite import objects
from nova_lite.sim import report
from nova_lite.sim import runner
from nova_lite.sim import snapshot
from nova_lite.sim import workload
from nova_lite.testing import placement_fixture

CONF = nl_conf.CONF
CONFIGS = {
    'pack': '[filter_scheduler]\nram_weight_multiplier = -1.0\n'
            'cpu_weight_multiplier = -1.0\ndisk_weight_multiplier = -1.0\n',
    'spread': '[filter_scheduler]\nram_weight_multiplier = 1.0\n'
              'cpu_weight_multiplier = 1.0\n',
    # What large clouds run with: placement returns 50 random hosts that
    # fit, not all of them (a row to show what the host count costs).
    'spread-limit50': '[filter_scheduler]\nram_weight_multiplier = 1.0\n'
                      'cpu_weight_multiplier = 1.0\n'
                      '[scheduler]\nmax_placement_results = 50\n'
                      '[placement_api]\n'
                      'randomize_allocation_candidates = true\n',
}
FLAVORS = [{'name': 'small', 'vcpus': 1, 'ram': 2048, 'disk': 20},
           {'name': 'medium', 'vcpus': 4, 'ram': 8192, 'disk': 40},
           {'name': 'large', 'vcpus': 8, 'ram': 32768, 'disk': 80}]


def synthetic_snapshot(hosts):
    return snapshot.validate({
        'providers': [
            {'uuid': '00000000-0000-4000-8000-%012d' % i,
             'name': 'node%04d' % i,
             'inventories': {
                 'VCPU': {'total': 32, 'allocation_ratio': 4.0},
                 'MEMORY_MB': {'total': 131072, 'reserved': 512},
                 'DISK_GB': {'total': 2000}}} for i in range(hosts)],
        'flavors': FLAVORS,
        'hypervisors': [{'id': '00000000-0000-4000-8000-%012d' % i,
                         'hypervisor_hostname': 'node%04d' % i,
                         'service': {'host': 'compute%03d' % (i // 10)}}
                        for i in range(hosts)]})


def _profile(doc, events, conf_path, seeded, workdir, count=1000):
    profiler = cProfile.Profile()
    creates = [e for e in events if e['action'] == 'create'][:count]
    profiler.enable()
    runner.run_one(doc, creates, conf_path, seeded, workdir, 'profile',
                   samples=1)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    total = sum(row[2] for row in stats.stats.values())
    top = sorted(stats.stats.items(), key=lambda kv: kv[1][2],
                 reverse=True)[:15]
    return [{'function': '%s:%d(%s)' % (os.path.relpath(k[0]) if
                                        k[0].startswith('/') else k[0],
                                        k[1], k[2]),
             'own_share': round(v[2] / total, 3),
             'calls': v[1]} for k, v in top]


def _row(rep, hosts, name, cpu, seed_seconds, exact):
    row = {'hosts': hosts, 'config': name,
           'path': 'exact' if exact else 'fast',
           'creates': rep['creates'], 'placed': rep['placed'],
           'decisions_per_second': rep['decisions_per_second'],
           'replay_wall_s': rep['wall_seconds'],
           # The whole replay's process CPU (deletes and usage samples
           # included): steadier than wall time on a busy machine.
           'decisions_per_cpu_second': round(
               rep['creates'] / cpu, 1) if cpu else None,
           'replay_cpu_s': round(cpu, 1),
           'fast_decisions': rep['paths'].get('fast'),
           'seed_placement_s': round(seed_seconds, 1),
           'load_avg_1m': os.getloadavg()[0]}
    if exact:
        for phase, ms in rep['ms_per_decision'].items():
            row['%s_ms' % phase] = ms
    return row


def _prefix(events, creates):
    """The events up to the ``creates``-th create."""
    seen = 0
    for index, event in enumerate(events):
        if event['action'] == 'create':
            seen += 1
            if seen > creates:
                return events[:index]
    return events


def run(args):
    objects.register_all()
    placement_fixture.ensure_parsed(CONF)
    hosts = int(os.environ.get('NOVA_LITE_BENCH_SIM_HOSTS', 1000))
    count = int(os.environ.get('NOVA_LITE_BENCH_SIM_EVENTS',
                               200 if args.quick else 1000))
    exact_count = int(os.environ.get('NOVA_LITE_BENCH_SIM_EXACT_EVENTS',
                                     50 if args.quick else 200))
    names = os.environ.get('NOVA_LITE_BENCH_SIM_CONFIGS',
                           'pack,spread').split(',')
    profile_on = os.environ.get('NOVA_LITE_BENCH_SIM_PROFILE', '1') != '0'
    doc = synthetic_snapshot(hosts)
    events = workload.generate({'small': 5, 'medium': 3, 'large': 1},
                               count, rate=20.0, lifetime=300.0, seed=1)
    runs = [(name, events, False) for name in names]
    if exact_count:
        short = _prefix(events, exact_count)
        runs += [('spread', short, True), ('spread-limit50', short, True)]
    rows, reports = [], []
    with tempfile.TemporaryDirectory(prefix='bench-sim-') as workdir:
        started = time.perf_counter()
        seeded, _refused = runner.seed_database(doc, workdir)
        seed_seconds = time.perf_counter() - started
        paths = {}
        for name, text in CONFIGS.items():
            paths[name] = os.path.join(workdir, name + '.conf')
            with open(paths[name], 'w') as f:
                f.write(text)
        for name, trace, exact in runs:
            cpu0 = time.process_time()
            rep = runner.run_one(doc, trace, paths[name], seeded, workdir,
                                 '%s-%s' % (name, exact), samples=5,
                                 exact=exact)
            cpu = time.process_time() - cpu0
            if not exact:
                reports.append(rep)
            rows.append(_row(rep, hosts, name, cpu, seed_seconds, exact))
        comparison = (report.compare(reports[:2]) if len(reports) > 1
                      else {'differing_decisions': None})
        profile = (_profile(doc, events, paths['spread'], seeded, workdir)
                   if profile_on else None)
    return {'rows': rows,
            'differing_decisions': comparison['differing_decisions'],
            'profile_top_own_time': profile,
            'target_decisions_per_second': 1000,
            'note': 'fast path (nova_lite.sim.fast) and, on a prefix of '
                    'the trace, the full path: the real scheduler manager '
                    'and nova_lite placement (SQLite, in process, through '
                    'its WSGI app); ms per decision (full path) split by '
                    'the scheduler\'s Timings'}
