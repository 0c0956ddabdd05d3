"""Each run's report and the side-by-side comparison of runs.

A run report (JSON) holds the configuration and what it set, the counts
(placed, NoValidHost), the speed (decisions per second of scheduler
time), the timeline (cumulative counts and utilisation at ``samples``
points of simulated time), the final utilisation per resource class with
its spread, the hosts that never received a server, and per create its
outcome and a one-line explanation (the scheduler's own decision
summary).

The comparison lines the runs up on those figures and lists the creates
whose outcome differs between configurations (another host, or placed in
one and NoValidHost in another), each with every run's explanation. Once
two runs diverge their clouds differ, so later requests may differ as a
consequence, not a cause: ``first_difference`` says where it began.
"""

from nova_lite.scheduler import decision as decision_mod
from nova_lite.sim import metrics

DIFF_LIMIT = 200
# The scheduler's ``db`` phase reads host states: from memory here.
_PHASE_NAMES = {'db': 'host_states'}


def why(record, attempt):
    """A create's explanation: the decision summary and the best hosts'
    weights (placed) or the reason (NoValidHost)."""
    if attempt is None:
        return record.get('reason')
    text = decision_mod.summary(attempt)
    if record['result'] == 'placed':
        best = ['%s/%s %.3f' % (w['host'], w['node'], w['total'])
                for w in (attempt.get('weights') or [])[:3]]
        if best:
            text += '; best: ' + ', '.join(best)
    return text


def removals(attempt):
    """``{filter: hosts it removed}`` of one decision (those that removed
    any)."""
    found = {}
    for step in (attempt or {}).get('filters') or []:
        if not step.get('skipped') and step['in'] > step['out']:
            found[step['name']] = step['in'] - step['out']
    return found


def annotate(record, attempt):
    """Add a decision's explanation and per-filter removals to its
    one-line record."""
    record['why'] = why(record, attempt)
    removed = removals(attempt)
    if removed:
        record['removed'] = removed


def filter_removals(results):
    """Per filter, most first: the hosts it removed over the run, and
    the number of decisions in which it removed any."""
    totals = {}
    for record in results:
        for name, count in (record.get('removed') or {}).items():
            row = totals.setdefault(name, {'hosts_removed': 0,
                                           'decisions': 0})
            row['hosts_removed'] += count
            row['decisions'] += 1
    return dict(sorted(totals.items(), key=lambda kv: -kv[1][
        'hosts_removed']))


def _free(template, invs):
    """What placement still lets be allocated on a host, per class, from
    the scheduler's view of it (usage) and its inventories (capacity)."""
    def cap(rc):
        inv = invs.get(rc)
        return metrics._capacity(inv) if inv else 0
    mem_reserved = invs.get('MEMORY_MB', {}).get('reserved', 0)
    disk_reserved = invs.get('DISK_GB', {}).get('reserved', 0)
    used = {'VCPU': template.vcpus_used,
            'MEMORY_MB': (template.total_usable_ram_mb -
                          template.free_ram_mb - mem_reserved),
            'DISK_GB': template.disk_mb_used / 1024.0 - disk_reserved}
    return {rc: cap(rc) - used[rc] for rc in used if rc in invs}


def _fits(flavor, free):
    want = {'VCPU': flavor['vcpus'], 'MEMORY_MB': flavor['ram'],
            'DISK_GB': flavor['disk'] + flavor['ephemeral']}
    return all(free.get(rc, 0) >= amount for rc, amount in want.items()
               if amount)


def host_figures(doc, hosts, live, results=()):
    """The end state per host: utilisation per class (with a histogram
    of its spread), fragmentation (the largest snapshot flavor that still
    fits each host) and per aggregate / zone balance (servers placed
    there over the run, servers there at the end, mean utilisation)."""
    invs = {p['uuid']: p['inventories'] for p in doc['providers']}
    flavors = sorted(doc['flavors'], key=lambda f: (
        f['ram'], f['vcpus'], f['disk'] + f['ephemeral'], f['name']))
    per_host, largest = {}, {}
    counts = dict.fromkeys([f['name'] for f in flavors] + ['none'], 0)
    servers, placed = {}, {}
    for node, _flavor in live.values():
        servers[node] = servers.get(node, 0) + 1
    for record in results:
        if record['result'] == 'placed':
            placed[record['node']] = placed.get(record['node'], 0) + 1
    for node, template in hosts.cell.templates.items():
        inv = invs.get(node, {})
        free = _free(template, inv)
        util = {}
        for rc, left in free.items():
            cap = metrics._capacity(inv[rc])
            if cap > 0:
                util[rc] = round(1 - left / cap, 4)
        fitting = [f['name'] for f in flavors if _fits(f, free)]
        best = fitting[-1] if fitting else 'none'
        counts[best] += 1
        largest[template.nodename] = best
        per_host[node] = {'host': template.host, 'node': template.nodename,
                          'servers': servers.get(node, 0),
                          'placed': placed.get(template.nodename, 0),
                          'utilisation': util}
    histogram = {}
    for row in per_host.values():
        for rc, value in row['utilisation'].items():
            bins = histogram.setdefault(rc, [0] * 10)
            bins[min(9, max(0, int(value * 10)))] += 1
    groups = []
    for agg in doc['aggregates']:
        members = [r for r in per_host.values() if r['host'] in
                   set(agg['hosts'])]
        row = {'name': agg['name'],
               'zone': agg['metadata'].get('availability_zone'),
               'hosts': len(members),
               'placed': sum(r['placed'] for r in members),
               'servers': sum(r['servers'] for r in members)}
        for rc in ('VCPU', 'MEMORY_MB'):
            values = [r['utilisation'][rc] for r in members
                      if rc in r['utilisation']]
            row['%s_mean' % rc] = round(sum(values) / len(values), 4) \
                if values else None
        groups.append(row)
    return {'utilisation_histogram': histogram,
            'fragmentation': {'largest_flavor_fitting': counts,
                              'per_host': largest},
            'aggregates': groups}


def run_report(name, config_path, options, unknown, seed, replay, wall):
    results = replay.results
    creates = [r for r in results if 'action' not in r]
    moves = [r for r in results if 'action' in r]
    placed = [r for r in creates if r['result'] == 'placed']
    used_nodes = {r['node'] for r in results if r['result'] == 'placed'}
    hosts = replay.hosts.cell.templates
    never = sorted(t.nodename for t in hosts.values()
                   if t.nodename not in used_nodes)
    decisions = len(results)
    sched = replay.schedule_seconds
    rep = {
        'name': name, 'config': config_path, 'options': options,
        'unknown_options': unknown, 'seed': seed,
        'creates': len(creates), 'placed': len(placed),
        'no_valid_host': len(creates) - len(placed),
        'moves': len(moves),
        'moves_no_valid_host': sum(1 for m in moves
                                   if m['result'] != 'placed'),
        'hosts': len(hosts), 'hosts_never_used': len(never),
        'hosts_never_used_names': never[:50],
        'wall_seconds': round(wall, 3),
        'scheduler_seconds': round(sched, 3),
        'decisions_per_second': round(decisions / sched, 1) if sched else
        None,
        'ms_per_decision': {
            _PHASE_NAMES.get(name, name):
            round(seconds * 1000 / decisions, 2) if decisions else None
            for name, seconds in dict(
                replay.phase_seconds, total=sched).items()},
        'timeline': metrics.timeline(creates, replay.samples),
        'utilisation': (replay.samples[-1]['utilisation']
                        if replay.samples else {}),
        'utilisation_over_time': metrics.spread_over_time(replay.samples),
        'filter_removals': filter_removals(results),
        'outcomes': results,
    }
    rep.update(host_figures(replay.doc, replay.hosts, replay.live,
                            results))
    return rep


def _outcome(record):
    if record is None:
        return None
    if record['result'] == 'placed':
        return '%s/%s' % (record['host'], record['node'])
    return 'NoValidHost'


def _key(record):
    """A request of the trace: its server, action and time."""
    return (record['id'], record.get('action', 'create'), record['time'])


def compare(reports, limit=DIFF_LIMIT):
    """The side-by-side comparison of ``reports`` (two or more)."""
    names = [r['name'] for r in reports]
    table = {}
    for key in ('creates', 'placed', 'no_valid_host', 'moves',
                'hosts_never_used', 'decisions_per_second'):
        table[key] = {r['name']: r.get(key) for r in reports}
    for rc in sorted({rc for r in reports for rc in r['utilisation']}):
        for stat in ('mean', 'stdev', 'max', 'empty'):
            table['%s_%s' % (rc, stat)] = {
                r['name']: r['utilisation'].get(rc, {}).get(stat)
                for r in reports}
        for stat in ('stdev', 'empty'):
            table['%s_%s_over_time' % (rc, stat)] = {
                r['name']: r['utilisation_over_time'].get(rc, {}).get(stat)
                for r in reports}
    by_id = [{_key(o): o for o in r['outcomes']} for r in reports]
    differing = []
    for record in reports[0]['outcomes']:
        seen = [ids.get(_key(record)) for ids in by_id]
        if len({_outcome(s) for s in seen}) > 1:
            runs = {name: {'outcome': _outcome(s),
                           'why': s and s.get('why')}
                    for name, s in zip(names, seen, strict=True)}
            differing.append({'id': record['id'], 'time': record['time'],
                              'action': record.get('action', 'create'),
                              'runs': runs})
    return {'runs': names, 'table': table,
            'differing_decisions': len(differing),
            'first_difference': differing[0]['time'] if differing else None,
            'differing': differing[:limit]}


def format_table(comparison):
    """The comparison's figures as aligned text."""
    names = comparison['runs']
    width = max([12] + [len(n) for n in names])
    lines = ['%-22s' % '' + ''.join('%*s' % (width + 2, n) for n in names)]
    for key, values in comparison['table'].items():
        cells = ''.join('%*s' % (width + 2, '-' if values[n] is None
                                 else values[n]) for n in names)
        lines.append('%-22s%s' % (key, cells))
    lines.append('differing decisions: %d (first at t=%s)' % (
        comparison['differing_decisions'], comparison['first_difference']))
    return '\n'.join(lines)
