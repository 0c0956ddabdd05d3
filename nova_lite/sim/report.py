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


def run_report(name, config_path, options, unknown, seed, replay, wall):
    results = replay.results
    placed = [r for r in results if r['result'] == 'placed']
    used_nodes = {r['node'] for r in placed}
    hosts = replay.hosts.cell.templates
    never = sorted(t.nodename for t in hosts.values()
                   if t.nodename not in used_nodes)
    decisions = len(results)
    sched = replay.schedule_seconds
    return {
        'name': name, 'config': config_path, 'options': options,
        'unknown_options': unknown, 'seed': seed,
        'creates': decisions, 'placed': len(placed),
        'no_valid_host': decisions - len(placed),
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
        'timeline': metrics.timeline(results, replay.samples),
        'utilisation': (replay.samples[-1]['utilisation']
                        if replay.samples else {}),
        'utilisation_over_time': metrics.spread_over_time(replay.samples),
        'outcomes': results,
    }


def _outcome(record):
    if record is None:
        return None
    if record['result'] == 'placed':
        return '%s/%s' % (record['host'], record['node'])
    return 'NoValidHost'


def compare(reports, limit=DIFF_LIMIT):
    """The side-by-side comparison of ``reports`` (two or more)."""
    names = [r['name'] for r in reports]
    table = {}
    for key in ('creates', 'placed', 'no_valid_host', 'hosts_never_used',
                'decisions_per_second'):
        table[key] = {r['name']: r[key] for r in reports}
    for rc in sorted({rc for r in reports for rc in r['utilisation']}):
        for stat in ('mean', 'stdev', 'max', 'empty'):
            table['%s_%s' % (rc, stat)] = {
                r['name']: r['utilisation'].get(rc, {}).get(stat)
                for r in reports}
        for stat in ('stdev', 'empty'):
            table['%s_%s_over_time' % (rc, stat)] = {
                r['name']: r['utilisation_over_time'].get(rc, {}).get(stat)
                for r in reports}
    by_id = [{o['id']: o for o in r['outcomes']} for r in reports]
    differing = []
    for record in reports[0]['outcomes']:
        seen = [ids.get(record['id']) for ids in by_id]
        if len({_outcome(s) for s in seen}) > 1:
            runs = {name: {'outcome': _outcome(s),
                           'why': s and s.get('why')}
                    for name, s in zip(names, seen, strict=True)}
            differing.append({'id': record['id'], 'time': record['time'],
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
