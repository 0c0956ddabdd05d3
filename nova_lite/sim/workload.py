"""The workload trace: JSON lines, one event per line, in time order.

::

    {"time": 0.0, "action": "create", "id": "vm-1", "flavor": "m1.small",
     "project": "p1"}
    {"time": 1.5, "action": "create", "id": "vm-2",
     "resources": {"VCPU": 2, "MEMORY_MB": 4096, "DISK_GB": 20},
     "hints": {"different_host": ["vm-1"]}, "project": "p2",
     "image_properties": {"hw_architecture": "x86_64"}}
    {"time": 600.0, "action": "delete", "id": "vm-1"}

- ``time``: seconds since the start of the trace (simulated: the replay
  never waits); events are replayed in time order, ties in file order.
- ``action``: ``create``, ``delete``, ``resize`` or ``migrate``.
- ``id``: the trace's name of the server; a delete, resize or migrate
  names a created one.
  Hints that name servers (``same_host``, ``different_host``) use these
  ids too.
- a create gives ``flavor`` (a name from the snapshot's flavors) or
  ``resources`` (``{resource class: amount}``: VCPU, MEMORY_MB and
  DISK_GB become the flavor's sizes, other classes ``resources:<RC>``
  extra specs); optional ``hints``, ``project`` (default ``sim``),
  ``user``, ``image_properties``, ``availability_zone`` and
  ``server_group`` (``{"id": ..., "policy": "anti-affinity"}``: members
  are the trace's servers naming the same id).
- a ``resize`` gives the new ``flavor`` or ``resources``; a ``migrate``
  nothing more: both move the server to another host (a resize may stay
  on its host when ``allow_resize_to_same_host`` is set), confirmed at
  once.
- ``observed`` (optional, written by ``sim record``): where the recorded
  cloud put the server; the replay does not read it.

Lines that are empty or start with ``#`` are skipped. :func:`generate`
writes such a trace from a distribution (Poisson arrivals, a weighted
flavor mix, exponential lifetimes), repeatable with a seed.
"""

import json
import random

ACTIONS = ('create', 'delete', 'resize', 'migrate')
MOVES = ('resize', 'migrate')


class WorkloadError(ValueError):
    """A trace line is wrong (says which line and why)."""


def _check(cond, lineno, what):
    if not cond:
        raise WorkloadError('line %d: %s' % (lineno, what))


def _check_size(lineno, event):
    _check(('flavor' in event) != ('resources' in event), lineno,
           'a %s gives either flavor or resources' % event['action'])
    if 'resources' in event:
        res = event['resources']
        _check(isinstance(res, dict) and res and all(
            isinstance(v, int) and v >= 0 for v in res.values()), lineno,
            'resources must map resource classes to integers')


def parse_event(lineno, event, created):
    """``event`` checked (``created``: ids created so far, updated)."""
    _check(isinstance(event, dict), lineno, 'not a JSON object')
    _check(isinstance(event.get('time'), (int, float)) and
           event['time'] >= 0, lineno, 'time must be a number >= 0')
    _check(event.get('action') in ACTIONS, lineno,
           'action must be one of %s' % ', '.join(ACTIONS))
    _check(isinstance(event.get('id'), str) and event['id'], lineno,
           'id must be a non-empty string')
    if event['action'] != 'create':
        _check(event['id'] in created, lineno,
               '%s of %s, which no earlier line creates' % (
                   event['action'], event['id']))
        if event['action'] == 'resize':
            _check_size(lineno, event)
        return event
    _check(event['id'] not in created, lineno,
           '%s is created twice' % event['id'])
    _check_size(lineno, event)
    _check(isinstance(event.get('hints', {}), dict), lineno,
           'hints must be an object')
    group = event.get('server_group')
    _check(group is None or (isinstance(group, dict) and
                             isinstance(group.get('id'), str)), lineno,
           'server_group must be an object with an id')
    created.add(event['id'])
    return event


def load(path):
    """The events of the trace at ``path``, in replay order."""
    events, created = [], set()
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            try:
                event = json.loads(line)
            except ValueError as err:
                raise WorkloadError('line %d: not JSON: %s' % (lineno, err))
            events.append(parse_event(lineno, event, created))
    # NOTE(sim): a stable sort: events at the same time keep file order.
    events.sort(key=lambda e: e['time'])
    return events


def save(events, path):
    with open(path, 'w') as f:
        for event in events:
            f.write(json.dumps(event, sort_keys=True) + '\n')


def parse_mix(text, flavor_names):
    """``{flavor: weight}`` from ``name=weight,...`` (None: all equal)."""
    if not text:
        return dict.fromkeys(flavor_names, 1.0)
    mix = {}
    for part in text.split(','):
        name, _sep, weight = part.partition('=')
        name = name.strip()
        if name not in flavor_names:
            raise WorkloadError('flavor %s is not in the snapshot' % name)
        try:
            mix[name] = float(weight or 1)
        except ValueError:
            raise WorkloadError('weight of %s is not a number' % name)
        if mix[name] < 0:
            raise WorkloadError('weight of %s is negative' % name)
    if not sum(mix.values()):
        raise WorkloadError('the flavor mix has no weight')
    return mix


def generate(mix, count, rate=1.0, lifetime=None, projects=1, seed=0,
             end_at_last_create=False):
    """A trace of ``count`` creates (and their deletes).

    :param mix: ``{flavor name: weight}``.
    :param rate: mean creates per simulated second (Poisson arrivals).
    :param lifetime: mean seconds a server lives (exponential); None or
        0 keeps every server to the end.
    :param projects: servers belong to projects ``p0`` .. ``p<n-1>``,
        drawn uniformly.
    :param seed: the same seed gives the same trace.
    :param end_at_last_create: leave out the deletes that would come
        after the last create: the trace ends with the last arrival and
        the servers alive then stay (a report's end state is the cloud
        in use, not drained).
    """
    if count < 0 or rate <= 0 or projects < 1:
        raise WorkloadError('count >= 0, rate > 0 and projects >= 1 needed')
    rng = random.Random(seed)
    names = sorted(mix)
    weights = [mix[n] for n in names]
    events, now = [], 0.0
    for index in range(count):
        now += rng.expovariate(rate)
        server = 'vm-%d' % index
        events.append({'time': round(now, 3), 'action': 'create',
                       'id': server,
                       'flavor': rng.choices(names, weights)[0],
                       'project': 'p%d' % rng.randrange(projects)})
        if lifetime:
            events.append({'time': round(now + rng.expovariate(
                1.0 / lifetime), 3), 'action': 'delete', 'id': server})
    if end_at_last_create and events:
        last = now
        events = [e for e in events
                  if e['action'] == 'create' or e['time'] <= last]
    events.sort(key=lambda e: e['time'])
    return events
