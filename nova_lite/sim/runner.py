"""One replay of a workload under one scheduler configuration.

Creates take the fast path (:mod:`nova_lite.sim.fast`: the same
decisions, evaluated incrementally) unless the create or the run needs
the full one, or ``exact`` asks for it. On the full path a create goes
through :meth:`SchedulerManager.schedule
<nova_lite.scheduler.manager.SchedulerManager.schedule>` - the same
request-spec, placement query, filters, weighers, pick and claim in
placement as a real boot, with the decision record the real scheduler
writes - with :class:`~nova_lite.sim.cloud.SimHostManager` as its host
manager and placement in this process. A delete removes the server's
allocations in placement and gives its resources back to its host; a
resize or migrate is scheduled like a build, away from its host, and
confirmed at once (:meth:`Replay.move`). The
build itself takes no time: simulated time only orders the events and
labels the report.

Ties and randomness, so that a run is repeatable:

- hosts of equal weight keep the order placement returned them in, which
  is provider creation order, i.e. the snapshot's order (the weighers'
  sort is stable);
- every random draw of the scheduler and of placement
  (``[filter_scheduler] host_subset_size`` > 1,
  ``shuffle_best_same_weighed_hosts``, the chance scheduler,
  ``[placement_api] randomize_allocation_candidates``) comes from Python's
  ``random``, seeded with the run's seed before the first event; the chance
  scheduler's own generator is seeded with it too.

The same snapshot, trace, configuration and seed give the same decisions.
"""

import json
import os
import random
import time

from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.scheduler import manager as sched_manager
from nova_lite.sim import cloud
from nova_lite.sim import config as sim_config
from nova_lite.sim import fast as fast_path
from nova_lite.sim import metrics
from nova_lite.sim import moves
from nova_lite.sim import report
from nova_lite.sim import workload

CONF = nl_conf.CONF
_FLAVOR_RCS = {'VCPU': 'vcpus', 'MEMORY_MB': 'memory_mb',
               'DISK_GB': 'root_gb'}


def flavor_of(event, flavors):
    """The flavor dict of a create event (named, or from ``resources``)."""
    if 'flavor' in event:
        found = flavors.get(event['flavor'])
        if found is None:
            raise KeyError('flavor %s is not in the snapshot'
                           % event['flavor'])
        return {'name': found['name'], 'vcpus': found['vcpus'],
                'memory_mb': found['ram'], 'root_gb': found['disk'],
                'ephemeral_gb': found['ephemeral'], 'swap': found['swap'],
                'extra_specs': dict(found['extra_specs'])}
    flavor = {'name': 'resources', 'vcpus': 0, 'memory_mb': 0,
              'root_gb': 0, 'ephemeral_gb': 0, 'swap': 0,
              'extra_specs': {}}
    for rc, amount in event['resources'].items():
        if rc in _FLAVOR_RCS:
            flavor[_FLAVOR_RCS[rc]] = amount
        else:
            flavor['extra_specs']['resources:%s' % rc] = str(amount)
    return flavor


def _hints(event):
    """The event's hints, server names turned into instance uuids."""
    hints = {}
    for key, value in (event.get('hints') or {}).items():
        if key in ('same_host', 'different_host'):
            names = value if isinstance(value, list) else [value]
            value = [cloud.server_uuid(n) for n in names]
        hints[key] = value
    return hints


def _group(event, members):
    """The event's server group as the scheduler reads it (members: the
    group's live servers, this one included)."""
    group = event.get('server_group')
    if not group:
        return None
    uuids = [cloud.server_uuid(n) for n in sorted(members.get(
        group['id'], ()))] + [cloud.server_uuid(event['id'])]
    return {'uuid': group['id'], 'policy': group.get('policy'),
            'rules': {}, 'members': uuids}


def request_spec(context, event, flavors, ignore_hosts=None,
                 groups=None):
    hints = _hints(event)
    if event.get('server_group'):
        hints.setdefault('group', event['server_group']['id'])
    return objects.RequestSpec.from_components(
        context, instance_uuid=cloud.server_uuid(event['id']),
        flavor=flavor_of(event, flavors),
        image={'properties': event.get('image_properties') or {}},
        project_id=event.get('project', 'sim'),
        user_id=event.get('user', 'sim'),
        availability_zone=event.get('availability_zone'),
        scheduler_hints=hints, ignore_hosts=ignore_hosts,
        instance_group=_group(event, groups or {}))


class Replay:
    """The state of one run: manager, live servers, records."""

    def __init__(self, doc, placement, seed=0, decisions=None,
                 exact=False):
        self.doc = doc
        self.placement = placement
        self.hosts = cloud.SimHostManager(doc)
        self.manager = sched_manager.SchedulerManager(
            host='sim', placement=placement, host_manager=self.hosts)
        # What the scheduler service does once started (handlers built,
        # the start-up heap kept out of the collector's full passes).
        self.manager.post_start_hook()
        random.seed(seed)
        # NOTE(sim): the chance scheduler keeps its own generator; seed it
        # too (the handlers are built once per configuration).
        _filters, _weights, chance = self.manager._get_handlers()
        if chance is not None:
            chance.rng = random.Random(seed)
        self.context = nl_context.get_admin_context()
        self.flavors = {f['name']: f for f in doc['flavors']}
        self.live = {}          # trace id -> (node uuid, flavor object)
        self.created = {}       # trace id -> its create event
        self.groups = {}        # server group id -> live trace ids
        self.results = []       # one small record per create
        self.decisions = decisions  # a file for the full records, or None
        self.schedule_seconds = 0.0
        # The scheduler's own split of its time (manager.Timings).
        self.phase_seconds = dict.fromkeys(sched_manager.Timings.PHASES,
                                           0.0)
        self.samples = []
        # The incremental decisions (nova_lite.sim.fast), unless every
        # create must take the full path.
        self.fast = None
        self.fast_reason = 'exact replay asked' if exact else None
        if not exact:
            self.fast = fast_path.FastPath(self)
            self.fast_reason = self.fast.reason
            if self.fast.reason is not None:
                self.fast = None

    def fast_summary(self):
        """How many creates took each path (for the report)."""
        counts = dict(self.fast.counts) if self.fast is not None else {
            'fast': 0, 'exact': len(self.results)}
        counts['whole_run_exact_because'] = self.fast_reason
        return counts

    def _fast_create(self, event, uuid, record):
        """The create through the fast path: the record, or None when
        it takes the full path."""
        started = time.perf_counter()
        try:
            answer = self.fast.create(event, uuid, lambda: request_spec(
                self.context, event, self.flavors, groups=self.groups))
        except exception.NoValidHost as err:
            record.update(result='NoValidHost',
                          reason=err.kwargs.get('reason') or str(err))
            self._write(record, err.kwargs.get('decision'))
            return record
        finally:
            self.schedule_seconds += time.perf_counter() - started
        if answer is None:
            return None
        (host, nodename, node), attempt, spec = answer
        self.hosts.placed(node, uuid, spec.project_id)
        self.fast.host_changed(node)
        self.live[event['id']] = (node, spec.flavor)
        record.update(result='placed', host=host, node=nodename)
        self._write(record, attempt)
        return record

    def _schedule(self, spec, uuid):
        started = time.perf_counter()
        try:
            return self.manager.schedule(
                self.context, spec, [uuid], return_alternates=False,
                return_decisions=True)[0][0]
        finally:
            self.schedule_seconds += time.perf_counter() - started
            for name, seconds in (self.manager.last_timings or {}).items():
                self.phase_seconds[name] += seconds

    def create(self, event):
        self.created[event['id']] = event
        uuid = cloud.server_uuid(event['id'])
        record = {'time': event['time'], 'id': event['id']}
        if self.fast is not None:
            done = self._fast_create(event, uuid, record)
            if done is not None:
                return done
            self.fast.before_exact()
        spec = request_spec(self.context, event, self.flavors,
                            groups=self.groups)
        try:
            selection = self._schedule(spec, uuid)
        except exception.NoValidHost as err:
            record.update(result='NoValidHost',
                          reason=err.kwargs.get('reason') or str(err))
            self._write(record, err.kwargs.get('decision'))
            return record
        node = selection.compute_node_uuid
        self.hosts.placed(node, uuid, spec.project_id)
        if self.fast is not None:
            self.fast.exact_create(node, uuid)
        self.live[event['id']] = (node, spec.flavor)
        if event.get('server_group'):
            self.groups.setdefault(event['server_group']['id'], set()).add(
                event['id'])
        record.update(result='placed', host=selection.service_host,
                      node=selection.nodename)
        self._write(record, selection.decision)
        return record

    def move(self, event):
        """A resize or migrate (:func:`~nova_lite.sim.moves.move`), on
        placement's allocations: the fast path writes its claims first
        and takes the server's allocation as placement holds it after."""
        if self.fast is None:
            return moves.move(self, event)
        self.fast.flush()
        record = moves.move(self, event)
        if record is not None:
            self.fast.moved(cloud.server_uuid(event['id']))
        return record

    def delete(self, event):
        found = self.live.pop(event['id'], None)
        if found is None:
            return  # it was never placed
        node, flavor = found
        group = self.created[event['id']].get('server_group')
        if group:
            self.groups.get(group['id'], set()).discard(event['id'])
        uuid = cloud.server_uuid(event['id'])
        self.hosts.removed(node, uuid, flavor)
        if self.fast is not None:
            self.fast.delete(uuid)
        else:
            self.placement.delete_allocations(uuid)

    def _write(self, record, decision_json):
        """Keep ``record``; ``decision_json`` is the decision record as
        JSON or (from the fast path) as the dict it encodes."""
        attempt = decision_json
        if isinstance(decision_json, str):
            attempt = json.loads(decision_json) if decision_json else None
        report.annotate(record, attempt)
        self.results.append(record)
        if self.decisions is not None:
            line = dict(record, decision=attempt)
            self.decisions.write(json.dumps(line, sort_keys=True) + '\n')

    def run(self, events, samples=20):
        """Replay ``events``; the usage is read ``samples`` times."""
        end = events[-1]['time'] if events else 0.0
        marks = [end * (i + 1) / samples for i in range(samples)]
        started = time.perf_counter()
        for event in events:
            while marks and event['time'] > marks[0]:
                self.samples.append(self._sample(marks.pop(0)))
            if event['action'] == 'create':
                self.create(event)
            elif event['action'] == 'delete':
                self.delete(event)
            else:
                self.move(event)
        while marks:
            self.samples.append(self._sample(marks.pop(0)))
        if self.fast is not None:
            # Placement ends holding every live server's allocation.
            self.fast.flush()
        return time.perf_counter() - started

    def _sample(self, until):
        # NOTE(sim): one read of every provider's usage; the simulator's
        # placement is nova_lite's, so its capacity extension is there.
        # The fast path's usage table is that answer without the read.
        providers = (self.fast.capacity() if self.fast is not None else
                     self.placement.get_capacity())
        return metrics.sample(until, providers, set(self.hosts.hosts))


def check_flavors(events, doc):
    """A :class:`~nova_lite.sim.workload.WorkloadError` naming the first
    create whose flavor the snapshot does not have."""
    names = {f['name'] for f in doc['flavors']}
    for event in events:
        if event['action'] in ('create', 'resize') and \
                'flavor' in event and \
                event['flavor'] not in names:
            raise workload.WorkloadError(
                'server %s: flavor %s is not in the snapshot' % (
                    event['id'], event['flavor']))


def run_name(path, taken):
    """A short unique name of a configuration file (its base name)."""
    base = os.path.splitext(os.path.basename(path))[0] or 'config'
    name, index = base, 2
    while name in taken:
        name, index = '%s-%d' % (base, index), index + 1
    taken.add(name)
    return name


def seed_database(doc, workdir):
    """Placement seeded from the snapshot, in ``workdir``: its file and
    the number of provider trees whose usages placement refused."""
    path = cloud.database_path(workdir, 'seeded')
    client = cloud.start_placement(CONF, path)
    try:
        refused = cloud.seed_placement(client, doc)
    finally:
        cloud.stop_placement(CONF)
    return path, refused


def run_one(doc, events, config_path, seeded, workdir, name, seed=0,
            decisions_path=None, samples=20, exact=False, keep=None):
    """The report of one replay under ``config_path``.

    :param exact: every create takes the full path (no
        :mod:`~nova_lite.sim.fast` decisions).
    :param keep: a list the finished :class:`Replay` is appended to
        (tests read its placement database afterwards).
    """
    path = cloud.copy_database(seeded, cloud.database_path(workdir, name))
    decisions = open(decisions_path, 'w') if decisions_path else None
    replay = None
    try:
        with sim_config.applied(CONF, config_path) as (options, unknown):
            client = cloud.start_placement(CONF, path)
            try:
                replay = Replay(doc, client, seed, decisions, exact=exact)
                wall = replay.run(events, samples)
                if keep is not None:
                    keep.append(replay)
            finally:
                cloud.stop_placement(CONF)
                if replay is not None:
                    replay.hosts.close()
    finally:
        if decisions is not None:
            decisions.close()
    rep = report.run_report(name, config_path, options, unknown, seed,
                            replay, wall)
    rep['paths'] = replay.fast_summary()
    return rep
