"""Run a scenario: the workload and the timeline side by side, then the
settling, the final look, the undoing of every fault and the cleanup.

Three deadlines bound a run: ``timeout`` for the workload and the
timeline, ``settle_timeout`` for the servers to stop changing after them,
and ``settle_timeout`` again for the cleanup's deletes. Every wait polls
against one of them and every HTTP request is cut to it, so a run ends
in about ``timeout + 2 * settle_timeout`` at most, whatever the lab does;
what ran out is reported (the ``run_completed`` invariant), never waited
for.
"""

import datetime
import threading
import time

from nova_lite.scenario import http
from nova_lite.scenario import invariants
from nova_lite.scenario import report as report_mod

POLL = 0.5
# A server whose status is one of these, or with a task state, is still
# changing.
TRANSIENT = ('BUILD', 'RESIZE', 'REBUILD', 'MIGRATING', 'REBOOT',
             'HARD_REBOOT')


def _changing(server):
    return server == http.NO_ANSWER or (server is not None and (
        server['status'] in TRANSIENT
        or server.get('OS-EXT-STS:task_state')))


def _heartbeated_since(service, since):
    """Whether the service (os-services) is up and heartbeated after
    ``since`` (naive UTC, as the API gives ``updated_at``)."""
    updated = service.get('updated_at')
    if service['state'] != 'up' or not updated:
        return False
    return datetime.datetime.fromisoformat(updated.rstrip('Z')) >= since


class Run:
    """One run of ``scenario`` against the lab behind ``compute`` and
    ``placement`` (:mod:`nova_lite.scenario.http`), with ``controls``
    (:class:`nova_lite.scenario.controls.LabControls`)."""

    def __init__(self, scenario, compute, placement, controls, log=print):
        self.scenario = scenario
        self.compute = compute
        self.placement = placement
        self.controls = controls
        self.log = log
        self.recorder = compute.recorder
        self.deadline = None
        self.started = None
        self.servers = []
        self.deleted = set()
        self.unfinished = []
        self.phases = []
        self.timeline = []
        self.recoveries = {}
        self._phase_ended = {p['name']: threading.Event()
                             for p in scenario['workload']}
        self._lock = threading.Lock()

    # -- the run -------------------------------------------------------

    def execute(self):
        """Run everything; the report (a dict)."""
        self.started = time.monotonic()
        self.deadline = self.started + self.scenario['timeout']
        flavors = self._flavors()
        threads = [threading.Thread(target=self._workload, args=(flavors,),
                                    daemon=True),
                   threading.Thread(target=self._timeline, daemon=True)]
        if flavors is not None:
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(max(0, self.deadline - time.monotonic())
                            + http.REQUEST_TIMEOUT)
                if thread.is_alive():
                    self._unfinished('a thread of the run did not end')
        self.deadline = time.monotonic() + self.scenario['settle_timeout']
        self._settle()
        obs = self._observe()
        results = invariants.evaluate(self.scenario['invariants'], obs)
        undone = self._bounded(self.controls.undo_all,
                               self.scenario['settle_timeout'])
        if undone is None:
            undone = ['the undoing did not end within %ss'
                      % self.scenario['settle_timeout']]
            results.append({'check': 'chaos_undone', 'passed': False,
                            'detail': undone[0]})
        self.log('chaos undone: %s' % '; '.join(undone))
        obs['cleanup'] = {'undone': undone}
        if self.scenario['cleanup']:
            obs['cleanup'].update(self._cleanup())
            results.append(invariants.cleanup_result(obs['cleanup']))
        return report_mod.build(self.scenario, obs, results)

    @staticmethod
    def _bounded(func, seconds):
        """``func()`` in a thread; its result, or None when it did not
        end within ``seconds`` (a bus that does not answer must not hang
        the run)."""
        result = []
        thread = threading.Thread(target=lambda: result.append(func()),
                                  daemon=True)
        thread.start()
        thread.join(seconds)
        return result[0] if result else None

    def _flavors(self):
        try:
            image = self.compute.image_id(self.scenario['image'])
            names = {self.scenario['flavor']} | {
                p['flavor'] for p in self.scenario['workload']
                if 'flavor' in p}
            flavors = {n: self.compute.flavor(n)['id'] for n in names}
        except LookupError as exc:
            self._unfinished('setup: %s' % exc)
            return None
        flavors['image'] = image
        return flavors

    def _observe(self):
        listed = self.compute.servers()
        allocations = self.placement.allocations()
        return {
            'seconds': time.monotonic() - self.started,
            'requests': list(self.recorder.requests),
            'run_servers': list(self.servers),
            'servers': (None if listed is None
                        else {s['id']: s for s in listed}),
            'allocations': allocations,
            'recoveries': dict(self.recoveries),
            'unfinished': list(self.unfinished),
            'phases': self.phases,
            'timeline': self.timeline,
        }

    def _unfinished(self, what):
        with self._lock:
            self.unfinished.append(what)
        self.log('NOT COMPLETED: %s' % what)

    def _elapsed(self):
        return round(time.monotonic() - self.started, 2)

    # -- waiting ---------------------------------------------------------

    def _sleep_until(self, when):
        """Sleep until ``when`` (monotonic); False when the deadline
        comes first."""
        while time.monotonic() < when:
            if time.monotonic() >= self.deadline:
                return False
            time.sleep(min(POLL, max(0, when - time.monotonic())))
        return True

    def _wait_servers(self, ids, done, what):
        """Poll until ``done(server)`` for every id; False (and reported)
        at the deadline."""
        left = set(ids)
        while left:
            left = {sid for sid in left
                    if not done(self.compute.server(sid))}
            if not left:
                return True
            if time.monotonic() + POLL >= self.deadline:
                self._unfinished('%s: %d server(s) still waited for at the '
                                 'deadline: %s' % (what, len(left),
                                                   ', '.join(sorted(left))))
                return False
            time.sleep(POLL)
        return True

    def _settle(self):
        self._wait_servers([s for s in self.servers
                            if s not in self.deleted],
                           lambda s: not _changing(s), 'settle')

    # -- the workload ------------------------------------------------------

    def _workload(self, flavors):
        for phase in self.scenario['workload']:
            started = self._elapsed()
            if time.monotonic() >= self.deadline:
                self._unfinished('phase %s: not started before the '
                                 'timeout' % phase['name'])
                break
            getattr(self, '_phase_' + phase['do'])(phase, flavors)
            self.phases.append({'name': phase['name'], 'do': phase['do'],
                                'started': started,
                                'ended': self._elapsed()})
            self._phase_ended[phase['name']].set()
            self.log('phase %s ended at %.1fs' % (phase['name'],
                                                  self._elapsed()))

    def _paced(self, items, rate):
        """Yield ``items`` at ``rate`` per second until the deadline."""
        interval = 1.0 / rate if rate else 0
        begin = time.monotonic()
        for index, item in enumerate(items):
            if not self._sleep_until(begin + index * interval):
                self._unfinished('requests left unsent at the timeout')
                return
            yield item

    def _live(self, statuses=None):
        found = []
        for sid in self.servers:
            if sid in self.deleted:
                continue
            if statuses is None:
                found.append(sid)
                continue
            server = self.compute.server(sid)
            if isinstance(server, dict) and server['status'] in statuses:
                found.append(sid)
        return found

    def _phase_boot(self, phase, flavors):
        flavor = flavors[phase.get('flavor', self.scenario['flavor'])]
        booted = []
        for index in self._paced(range(phase.get('count', 1)),
                                 phase.get('rate')):
            sid = self.compute.boot('%s-%s-%d' % (
                self.scenario['name'], phase['name'], index), flavor,
                flavors['image'])
            if sid:
                booted.append(sid)
                with self._lock:
                    self.servers.append(sid)
        if phase.get('wait'):
            self._wait_servers(booted, lambda s: s is None or (
                s != http.NO_ANSWER and s['status'] != 'BUILD'),
                'phase %s' % phase['name'])

    def _phase_delete(self, phase, flavors):
        chosen = self._live()
        for sid in self._paced(chosen, phase.get('rate')):
            if self.compute.delete(sid) in (204, 404):
                self.deleted.add(sid)
        if phase.get('wait'):
            self._wait_servers(chosen, lambda s: s is None,
                               'phase %s' % phase['name'])

    def _phase_resize(self, phase, flavors):
        flavor = flavors[phase['flavor']]
        chosen = self._live(('ACTIVE',))
        for sid in self._paced(chosen, phase.get('rate')):
            self.compute.action(sid, 'resize',
                                {'resize': {'flavorRef': flavor}})
        if phase.get('wait'):
            self._wait_servers(chosen, lambda s: s is None or (
                s != http.NO_ANSWER and s['status'] in ('VERIFY_RESIZE',
                                                        'ERROR')),
                'phase %s' % phase['name'])

    def _phase_confirm(self, phase, flavors):
        chosen = self._live(('VERIFY_RESIZE',))
        for sid in self._paced(chosen, phase.get('rate')):
            self.compute.action(sid, 'confirm', {'confirmResize': None})
        if phase.get('wait'):
            self._wait_servers(chosen, lambda s: s is None or (
                s != http.NO_ANSWER and s['status'] in ('ACTIVE', 'ERROR')),
                'phase %s' % phase['name'])

    def _phase_list(self, phase, flavors):
        for _ in self._paced(range(phase.get('count', 1)),
                             phase.get('rate')):
            self.compute.list()

    def _phase_pause(self, phase, flavors):
        if not self._sleep_until(time.monotonic() + phase.get('seconds', 0)):
            self._unfinished('phase %s: the timeout came during the pause'
                             % phase['name'])

    # -- the timeline ------------------------------------------------------

    def _timeline(self):
        for index, entry in enumerate(self.scenario['timeline']):
            label = 'timeline[%d] %s' % (index, entry['do'])
            if not self._triggered(entry):
                self._unfinished('%s: its trigger did not come before the '
                                 'timeout' % label)
                return
            at = self._elapsed()
            try:
                detail = self._act(entry)
            except Exception as exc:  # reported: the run goes on
                self._unfinished('%s failed: %s' % (label, exc))
                self.timeline.append({'do': entry['do'], 'at': at,
                                      'ok': False, 'detail': str(exc)})
                continue
            self.timeline.append({'do': entry['do'], 'at': at, 'ok': True,
                                  'detail': detail})
            self.log('%.1fs %s: %s' % (at, entry['do'], detail))
            if entry.get('recovery'):
                self._measure_recovery(entry['recovery'])

    def _triggered(self, entry):
        if 'after' in entry:
            event = self._phase_ended[entry['after']]
            if not event.wait(max(0, self.deadline - time.monotonic())) \
                    or time.monotonic() >= self.deadline:
                # A phase that ran into the deadline ends after it.
                return False
            when = time.monotonic() + entry.get('delay', 0)
        else:
            when = self.started + entry['at'] + entry.get('delay', 0)
        return self._sleep_until(when)

    def _act(self, entry):
        do, controls = entry['do'], self.controls
        if do == 'rpc_rule':
            return controls.rpc_rule(entry['rule'])
        if do == 'rpc_release':
            return controls.rpc_release(entry.get('match', {}),
                                        entry.get('discard', False))
        if do == 'rpc_clear':
            return controls.rpc_clear(entry.get('discard', False))
        if do in ('kill_compute', 'restart_compute'):
            return getattr(controls, do)(entry['host'])
        if do in ('stop_heartbeats', 'partition'):
            hosts = entry['host']
            extra = ({'seconds': entry.get('seconds', 30)}
                     if do == 'partition' else {})
            return '; '.join(controls.fault(dict(
                extra, fault='heartbeats' if do == 'stop_heartbeats'
                else do, host=host))
                for host in ([hosts] if isinstance(hosts, str) else hosts))
        if do == 'database_fault':
            hosts = entry['host']
            return '; '.join(controls.fault({
                'fault': 'database', 'host': host,
                'delay': entry.get('latency', 0),
                'error_rate': entry.get('error_rate', 0)})
                for host in ([hosts] if isinstance(hosts, str) else hosts))
        if do == 'api_fault':
            return controls.api_fault(entry['service'], {
                'delay': entry.get('latency', 0),
                'jitter': entry.get('jitter', 0),
                'error_rate': entry.get('error_rate', 0)},
                entry.get('seconds'))
        return getattr(controls, do)(entry['cell'])

    def _measure_recovery(self, name):
        """Seconds until every compute service has heartbeated since the
        action (a restarted or thawed compute is really back, not only
        not yet seen down) and no server of the run is changing (a deleted
        one is gone); None when the deadline came first."""
        began = time.monotonic()
        since = datetime.datetime.now(datetime.timezone.utc).replace(
            tzinfo=None)
        self.recoveries[name] = None
        while time.monotonic() + POLL < self.deadline:
            services = self.compute.compute_services()
            if services is not None and all(
                    _heartbeated_since(s, since) for s in services) and \
                    not any(_changing(self.compute.server(sid))
                            for sid in list(self.servers)):
                self.recoveries[name] = round(time.monotonic() - began, 2)
                return
            time.sleep(POLL)

    # -- the cleanup -------------------------------------------------------

    def _cleanup(self):
        """Delete what the run left; what remained, and the allocations
        of the run's servers left behind."""
        self.deadline = time.monotonic() + self.scenario['settle_timeout']
        left = [sid for sid in self.servers
                if self.compute.server(sid) is not None]
        for sid in left:
            self.compute.request('DELETE', '/servers/' + sid)
        unfinished = len(self.unfinished)
        self._wait_servers(left, lambda s: s is None, 'cleanup')
        remaining = [sid for sid in left
                     if self.compute.server(sid) is not None]
        del self.unfinished[unfinished:]
        allocations = self.placement.allocations() or {}
        return {'deleted': len(left), 'servers_left': remaining,
                'allocations_left': sorted(
                    sid for sid in self.servers if sid in allocations)}
