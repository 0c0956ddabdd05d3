"""The end of a run: a JSON document and a short text table.

The JSON keeps everything a later look needs (each request's status, each
timeline action, the final states); the text is what a lab user reads in
the terminal: one line per section, then each invariant PASS or FAIL.
"""

from nova_lite.scenario import invariants


def build(scenario, obs, results):
    """The report (a JSON-serialisable dict)."""
    by_status = {}
    for kind, status, _ in obs['requests']:
        row = by_status.setdefault(kind, {})
        row[str(status)] = row.get(str(status), 0) + 1
    states = {}
    if obs['servers'] is not None:
        for state in invariants.final_states(obs).values():
            states[state] = states.get(state, 0) + 1
    checked = obs['servers'] is not None and obs['allocations'] is not None
    used, wanted = invariants.usage(obs) if checked else (None, None)
    return {
        'scenario': scenario['name'],
        'description': scenario['description'],
        'expect_pass': scenario['expect_pass'],
        'passed': all(r['passed'] for r in results),
        'seconds': round(obs['seconds'], 2),
        'requests': by_status,
        'servers': states,
        'stuck_builds': (invariants.stuck_builds(obs)
                         if obs['servers'] is not None else None),
        'placement': {'usage': used, 'servers_want': wanted},
        'orphans': invariants.orphans(obs) if checked else None,
        'recoveries': obs['recoveries'],
        'phases': obs['phases'],
        'timeline': obs['timeline'],
        'cleanup': obs.get('cleanup'),
        'invariants': results,
    }


def text(report):
    """The short table a terminal shows."""
    lines = ['Scenario %s: %s (%.1fs)' % (
        report['scenario'], 'PASSED' if report['passed'] else 'FAILED',
        report['seconds'])]
    rows = [
        ('requests', '; '.join(
            '%s %s' % (kind, ' '.join('%s x%d' % (s, n) for s, n in
                                      sorted(counts.items())))
            for kind, counts in sorted(report['requests'].items()))
         or 'none'),
        ('servers', _pairs(report['servers']) or 'none'),
        ('stuck builds', 'unknown' if report['stuck_builds'] is None
         else len(report['stuck_builds'])),
        ('placement', 'unknown' if report['placement']['usage'] is None
         else 'usage %s, servers want %s' % (
             _pairs(report['placement']['usage']) or '0',
             _pairs(report['placement']['servers_want']) or '0')),
        ('orphans', 'unknown' if report['orphans'] is None
         else 'allocations %d, instances %d' % (
             len(report['orphans']['allocations']),
             len(report['orphans']['instances']))),
        ('recoveries', ', '.join(
            '%s %s' % (n, 'never' if s is None else '%.1fs' % s)
            for n, s in sorted(report['recoveries'].items())) or 'none'),
    ]
    cleanup = report['cleanup'] or {}
    if 'deleted' in cleanup:
        rows.append(('cleanup', 'deleted %d, servers left %d, allocations '
                     'left %d' % (cleanup['deleted'],
                                  len(cleanup['servers_left']),
                                  len(cleanup['allocations_left']))))
    rows += [('%s %s' % ('PASS' if r['passed'] else 'FAIL', r['check']),
              r['detail']) for r in report['invariants']]
    width = max(len(name) for name, _ in rows)
    lines += ['  %-*s  %s' % (width, name, value) for name, value in rows]
    return '\n'.join(lines)


def _pairs(counts):
    return ' '.join('%s=%s' % (k, v) for k, v in sorted(counts.items()))
