"""What must hold at the end of a scenario, checked on what the run saw.

The checks read an *observation* (a dict the runner fills, see
:mod:`nova_lite.scenario.runner`), never the lab, so they are plain
functions a unit test feeds by hand:

* ``requests``: ``[(kind, status, seconds)]``, status an int or
  ``'no answer'``;
* ``run_servers``: the ids of the servers the run booted;
* ``servers``: ``{id: server}`` of the whole lab at the end (the compute
  API's server documents), None when the API did not answer;
* ``allocations``: ``{consumer: {resource class: amount}}`` from
  placement, None when it did not answer;
* ``recoveries``: ``{name: seconds or None}`` (None: not recovered in
  time);
* ``unfinished``: what did not complete: a wait that ran out, a
  timeline action that failed or never came.

An invariant that cannot be checked (no answer, a wait that ran out)
fails: a run never passes by not looking.
"""

from nova_lite.scenario import http

BUILDING = 'BUILD'
GONE = 'GONE'
# Placement's classes for a flavor's vcpus, ram and disk.
FLAVOR_CLASSES = (('VCPU', 'vcpus'), ('MEMORY_MB', 'ram'),
                  ('DISK_GB', 'disk'))


def final_states(obs):
    """``{id: status}`` of the run's servers (GONE when deleted)."""
    servers = obs['servers'] or {}
    return {sid: servers[sid]['status'] if sid in servers else GONE
            for sid in obs['run_servers']}


def stuck_builds(obs):
    return sorted(sid for sid, state in final_states(obs).items()
                  if state == BUILDING)


def expected_allocation(server, allocations=None):
    """What placement should hold for ``server``: its flavor on its host,
    nothing when it has no host, but for a build that has no host yet:
    the scheduler's claim comes before the compute sets the host, so it
    may hold its flavor or nothing (as ``allocations`` say)."""
    if not server.get('OS-EXT-SRV-ATTR:host'):
        if server['status'] != BUILDING or \
                server['id'] not in (allocations or {}):
            return {}
    flavor = server['flavor']
    return {rc: flavor[key] for rc, key in FLAVOR_CLASSES
            if flavor.get(key)}


def mismatches(obs):
    """Servers whose allocations differ from their flavor:
    ``{id: (expected, found)}`` (orphans aside)."""
    found = {}
    allocations = obs['allocations']
    for sid, server in obs['servers'].items():
        want = expected_allocation(server, allocations)
        have = allocations.get(sid, {})
        if want and have and want != have:
            found[sid] = (want, have)
    return found


def orphans(obs):
    """``{'allocations': [consumer], 'instances': [id]}``: allocations
    with no server, and servers on a host with no allocation."""
    servers, allocations = obs['servers'], obs['allocations']
    return {
        'allocations': sorted(c for c in allocations if c not in servers),
        'instances': sorted(sid for sid, s in servers.items()
                            if expected_allocation(s, allocations)
                            and sid not in allocations)}


def usage(obs):
    """``(placement's usage, what the servers' flavors add up to)``."""
    used, wanted = {}, {}
    for alloc in obs['allocations'].values():
        for rc, amount in alloc.items():
            used[rc] = used.get(rc, 0) + amount
    for server in obs['servers'].values():
        for rc, amount in expected_allocation(
                server, obs['allocations']).items():
            wanted[rc] = wanted.get(rc, 0) + amount
    return used, wanted


def _requests_answered(spec, obs):
    allowed = spec.get('statuses')
    bad = [(kind, status) for kind, status, _ in obs['requests']
           if status == http.NO_ANSWER
           or (allowed is not None and status not in allowed)
           or (allowed is None and status >= 500)]
    if bad:
        return False, '%d of %d requests: %s' % (
            len(bad), len(obs['requests']), _counted(bad))
    return True, 'all %d answered%s' % (
        len(obs['requests']),
        '' if allowed is None else ' with %s' % sorted(set(allowed)))


def _no_stuck_builds(spec, obs):
    if obs['servers'] is None:
        return False, 'the compute API did not answer the final list'
    stuck = stuck_builds(obs)
    if stuck:
        return False, '%d server(s) still in BUILD: %s' % (
            len(stuck), ', '.join(stuck))
    return True, 'no server in BUILD'


def _allocations_match_servers(spec, obs):
    missing = _unanswered(obs)
    if missing:
        return False, missing
    wrong = mismatches(obs)
    used, wanted = usage(obs)
    if wrong or used != wanted:
        return False, 'usage %s, servers want %s; differing: %s' % (
            used, wanted, ', '.join(sorted(wrong)) or 'none')
    return True, 'usage %s equals the servers\' flavors' % (used or '{}')


def _no_orphans(spec, obs):
    missing = _unanswered(obs)
    if missing:
        return False, missing
    found = orphans(obs)
    if found['allocations'] or found['instances']:
        return False, 'allocations without a server: %s; servers on a ' \
            'host without allocations: %s' % (
                ', '.join(found['allocations']) or 'none',
                ', '.join(found['instances']) or 'none')
    return True, 'none'


def _servers_in_state(spec, obs):
    if obs['servers'] is None:
        return False, 'the compute API did not answer the final list'
    allowed = set(spec['states'])
    wrong = {sid: state for sid, state in final_states(obs).items()
             if state not in allowed}
    if wrong:
        return False, '%d server(s) not in %s: %s' % (
            len(wrong), sorted(allowed), _counted(wrong.values()))
    return True, 'all %d in %s' % (len(obs['run_servers']),
                                   sorted(allowed))


def _recovered(spec, obs):
    within = spec.get('within')
    recoveries = obs['recoveries']
    if not recoveries:
        return False, 'no recovery was measured (no timeline action ' \
            'names one)'
    late = {name: secs for name, secs in recoveries.items()
            if secs is None or (within is not None and secs > within)}
    if late:
        return False, 'not recovered%s: %s' % (
            '' if within is None else ' within %gs' % within,
            ', '.join('%s (%s)' % (n, 'never' if s is None else '%.1fs' % s)
                      for n, s in sorted(late.items())))
    return True, ', '.join('%s %.1fs' % (n, s)
                           for n, s in sorted(recoveries.items()))


def _unanswered(obs):
    if obs['servers'] is None:
        return 'the compute API did not answer the final list'
    if obs['allocations'] is None:
        return 'placement did not answer'
    return None


def _counted(items):
    counts = {}
    for item in items:
        key = item if not isinstance(item, tuple) else '%s %s' % item
        counts[key] = counts.get(key, 0) + 1
    return ', '.join('%s x%d' % (k, n) for k, n in sorted(counts.items()))


def cleanup_result(cleanup):
    """The invariant of every run that cleans up: deleting its servers
    leaves neither a server nor an allocation."""
    left, allocs = cleanup['servers_left'], cleanup['allocations_left']
    if left or allocs:
        return {'check': 'cleanup_leaves_nothing', 'passed': False,
                'detail': 'servers left: %s; allocations left: %s' % (
                    ', '.join(left) or 'none', ', '.join(allocs) or 'none')}
    return {'check': 'cleanup_leaves_nothing', 'passed': True,
            'detail': '%d deleted, no server or allocation left'
            % cleanup['deleted']}


CHECKS = {
    'requests_answered': _requests_answered,
    'no_stuck_builds': _no_stuck_builds,
    'allocations_match_servers': _allocations_match_servers,
    'no_orphans': _no_orphans,
    'servers_in_state': _servers_in_state,
    'recovered': _recovered,
}


def evaluate(specs, obs):
    """``[{'check', 'passed', 'detail'}]``: the scenario's invariants,
    after the one every run has: each phase, wait and action completed
    before its deadline."""
    results = [{'check': 'run_completed',
                'passed': not obs['unfinished'],
                'detail': ('; '.join(obs['unfinished'])
                           if obs['unfinished'] else 'every phase, wait '
                           'and action completed in time')}]
    for spec in specs:
        passed, detail = CHECKS[spec['check']](spec, obs)
        results.append({'check': spec['check'], 'passed': passed,
                        'detail': detail})
    return results
