"""The runner against a fake lab: phases, triggers, bounds and undoing."""

import datetime
import itertools
import threading

import fixtures
import testtools

from nova_lite.scenario import http
from nova_lite.scenario import loader
from nova_lite.scenario import runner

TINY = {'vcpus': 1, 'ram': 512, 'disk': 1}


class FakeCompute:
    """Servers that build at once, unless ``builds`` is False."""

    def __init__(self, builds=True):
        self.recorder = http.Recorder()
        self.by_id = {}
        self.allocations = {}
        self.builds = builds
        self.ids = ('s%d' % i for i in itertools.count())

    def image_id(self, name):
        return 'image'

    def flavor(self, name):
        if name == 'm1.missing':
            raise LookupError('no flavor %r' % name)
        return {'id': name}

    def boot(self, name, flavor, image):
        sid = next(self.ids)
        self.recorder.add('boot', 202, 0.0)
        self.by_id[sid] = {
            'id': sid, 'status': 'ACTIVE' if self.builds else 'BUILD',
            'OS-EXT-SRV-ATTR:host': 'h1', 'flavor': dict(TINY),
            'OS-EXT-STS:task_state': None}
        self.allocations[sid] = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}
        return sid

    def delete(self, sid):
        self.recorder.add('delete', 204, 0.0)
        self.by_id.pop(sid, None)
        self.allocations.pop(sid, None)
        return 204

    def request(self, method, path, **kwargs):
        return self.delete(path.rsplit('/', 1)[1]), None

    def list(self):
        self.recorder.add('list', 200, 0.0)
        return 200

    def server(self, sid):
        return self.by_id.get(sid)

    def servers(self):
        return list(self.by_id.values())

    def compute_services(self):
        now = datetime.datetime.now(datetime.timezone.utc)
        return [{'state': 'up', 'updated_at': now.replace(
            tzinfo=None).isoformat()}]


class FakePlacement:

    def __init__(self, compute):
        self.compute = compute

    def allocations(self):
        return dict(self.compute.allocations)


class FakeControls:

    def __init__(self):
        self.done = []

    def rpc_rule(self, rule):
        self.done.append(('rpc_rule', rule['action']))
        return 'ok'

    def rpc_release(self, match, discard=False):
        self.done.append(('rpc_release', discard))
        return 'ok'

    def fault(self, fault):
        self.done.append(('fault', sorted(fault.items())))
        return 'ok'

    def api_fault(self, service, fault, seconds=None):
        self.done.append(('api_fault', service, sorted(fault.items()),
                          seconds))
        return 'ok'

    def kill_compute(self, hosts):
        raise LookupError('no such compute in the lab: %s' % hosts)

    def undo_all(self):
        self.done.append(('undo_all',))
        return ['rpc_clear: ok']


def make_run(text, builds=True):
    compute = FakeCompute(builds)
    controls = FakeControls()
    run = runner.Run(loader.parse(text), compute, FakePlacement(compute),
                     controls, log=lambda line: None)
    return run, compute, controls


HAPPY = """
name: happy
timeout: 5
settle_timeout: 2
workload:
  - {do: boot, count: 2, wait: true}
  - {do: list, count: 2}
  - {do: delete, wait: true}
timeline:
  - {do: rpc_rule, at: 0, rule: {action: hold}}
  - {do: rpc_release, after: list, recovery: released}
invariants:
  - {check: requests_answered}
  - {check: servers_in_state, states: [GONE]}
  - {check: no_orphans}
  - {check: recovered, within: 5}
"""


class TestRunner(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.MockPatchObject(runner, 'POLL', 0.01))

    def test_happy_run_passes_and_undoes(self):
        run, compute, controls = make_run(HAPPY)
        report = run.execute()
        self.assertTrue(report['passed'], report['invariants'])
        self.assertEqual({'boot': {'202': 2}, 'list': {'200': 2},
                          'delete': {'204': 2}}, report['requests'])
        self.assertEqual({'GONE': 2}, report['servers'])
        self.assertEqual([('rpc_rule', 'hold'), ('rpc_release', False),
                          ('undo_all',)], controls.done)
        self.assertEqual(['boot', 'list', 'delete'],
                         [p['name'] for p in report['phases']])
        self.assertIn('released', report['recoveries'])
        self.assertEqual('cleanup_leaves_nothing',
                         report['invariants'][-1]['check'])

    def test_database_and_api_faults_reach_the_controls(self):
        text = HAPPY.replace(
            "  - {do: rpc_rule, at: 0, rule: {action: hold}}\n",
            "  - {do: database_fault, at: 0, host: [c1, c2], latency: 0.5}\n"
            "  - {do: api_fault, at: 0, service: placement, error_rate: 0.3,"
            " seconds: 9}\n")
        run, compute, controls = make_run(text)
        run.execute()
        self.assertEqual([
            ('fault', [('delay', 0.5), ('error_rate', 0), ('fault',
                                                          'database'),
                       ('host', 'c1')]),
            ('fault', [('delay', 0.5), ('error_rate', 0), ('fault',
                                                          'database'),
                       ('host', 'c2')]),
            ('api_fault', 'placement', [('delay', 0), ('error_rate', 0.3),
                                        ('jitter', 0)], 9),
            ('rpc_release', False), ('undo_all',)], controls.done)

    def test_stuck_builds_end_the_run_and_fail(self):
        text = ('name: stuck\ntimeout: 1\nsettle_timeout: 1\n'
                'workload:\n  - {do: boot, count: 2}\n'
                'invariants:\n  - {check: no_stuck_builds}\n')
        run, compute, controls = make_run(text, builds=False)
        report = run.execute()
        self.assertFalse(report['passed'])
        verdicts = {r['check']: r['passed'] for r in report['invariants']}
        self.assertFalse(verdicts['run_completed'])
        self.assertFalse(verdicts['no_stuck_builds'])
        self.assertEqual(2, len(report['stuck_builds']))
        # The cleanup still deletes them.
        self.assertTrue(verdicts['cleanup_leaves_nothing'])
        self.assertEqual([('undo_all',)], controls.done)

    def test_failing_action_is_reported_and_the_rest_runs(self):
        text = HAPPY.replace(
            "  - {do: rpc_rule, at: 0, rule: {action: hold}}\n",
            "  - {do: kill_compute, at: 0, host: nowhere}\n")
        run, compute, controls = make_run(text)
        report = run.execute()
        verdicts = {r['check']: r for r in report['invariants']}
        self.assertFalse(verdicts['run_completed']['passed'])
        self.assertIn('no such compute', verdicts['run_completed']['detail'])
        self.assertIn(('rpc_release', False), controls.done)
        self.assertFalse(report['timeline'][0]['ok'])

    def test_trigger_that_never_comes_is_reported(self):
        text = HAPPY.replace('{do: list, count: 2}',
                             '{do: pause, name: list, seconds: 60}'
                             ).replace('timeout: 5', 'timeout: 1')
        run, compute, controls = make_run(text)
        report = run.execute()
        detail = report['invariants'][0]['detail']
        self.assertIn('its trigger did not come', detail)
        self.assertIn('the timeout came during the pause', detail)

    def test_missing_flavor_fails_the_run_without_workload(self):
        text = HAPPY.replace('{do: list, count: 2}',
                             '{do: resize, name: list, flavor: m1.missing}')
        run, compute, controls = make_run(text)
        report = run.execute()
        self.assertFalse(report['passed'])
        self.assertIn("no flavor 'm1.missing'",
                      report['invariants'][0]['detail'])
        self.assertEqual({}, report['requests'])

    def test_undoing_that_never_ends_is_reported(self):
        run, compute, controls = make_run(HAPPY.replace(
            'settle_timeout: 2', 'settle_timeout: 0.2'))
        never = threading.Event()
        self.addCleanup(never.set)
        controls.undo_all = lambda: never.wait() and []
        report = run.execute()
        self.assertFalse(report['passed'])
        self.assertIn({'check': 'chaos_undone', 'passed': False,
                       'detail': 'the undoing did not end within 0.2s'},
                      report['invariants'])


class TestHeartbeatedSince(testtools.TestCase):

    def test_seen_up_is_not_enough(self):
        since = datetime.datetime(2026, 1, 1, 12, 0, 0)
        self.assertTrue(runner._heartbeated_since(
            {'state': 'up', 'updated_at': '2026-01-01T12:00:01.000000'},
            since))
        self.assertFalse(runner._heartbeated_since(
            {'state': 'up', 'updated_at': '2026-01-01T11:59:59.000000'},
            since))
        self.assertFalse(runner._heartbeated_since(
            {'state': 'down', 'updated_at': '2026-01-01T12:00:01'}, since))
        self.assertFalse(runner._heartbeated_since(
            {'state': 'up', 'updated_at': None}, since))
