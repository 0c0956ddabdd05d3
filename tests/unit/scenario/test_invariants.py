"""Invariants and the report, on observations written by hand."""

import testtools

from nova_lite.scenario import http
from nova_lite.scenario import invariants
from nova_lite.scenario import report

TINY = {'vcpus': 1, 'ram': 512, 'disk': 1}
TINY_ALLOC = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}


def server(status, host='h1', flavor=TINY, task_state=None, sid=None):
    return {'id': sid, 'status': status, 'OS-EXT-SRV-ATTR:host': host,
            'flavor': flavor, 'OS-EXT-STS:task_state': task_state}


def observation(**changes):
    obs = {'seconds': 3.0, 'requests': [('boot', 202, 0.1)],
           'run_servers': ['a', 'b'],
           'servers': {'a': server('ACTIVE'), 'b': server('ACTIVE')},
           'allocations': {'a': dict(TINY_ALLOC), 'b': dict(TINY_ALLOC)},
           'recoveries': {}, 'unfinished': [], 'phases': [],
           'timeline': []}
    obs.update(changes)
    return obs


def verdicts(specs, obs):
    return {r['check']: r for r in invariants.evaluate(specs, obs)}


ALL = [{'check': 'requests_answered'}, {'check': 'no_stuck_builds'},
       {'check': 'allocations_match_servers'}, {'check': 'no_orphans'},
       {'check': 'servers_in_state', 'states': ['ACTIVE']}]


class TestInvariants(testtools.TestCase):

    def test_a_clean_run_passes_everything(self):
        results = verdicts(ALL, observation())
        self.assertEqual({True}, {r['passed'] for r in results.values()},
                         results)
        self.assertIn('run_completed', results)

    def test_unfinished_fails_run_completed(self):
        results = verdicts([], observation(unfinished=['settle: 2 left']))
        self.assertFalse(results['run_completed']['passed'])
        self.assertIn('settle: 2 left', results['run_completed']['detail'])

    def test_stuck_builds(self):
        obs = observation(servers={'a': server('BUILD'),
                                   'b': server('ACTIVE')})
        result = verdicts(ALL, obs)['no_stuck_builds']
        self.assertFalse(result['passed'])
        self.assertIn('a', result['detail'])
        self.assertEqual(['a'], invariants.stuck_builds(obs))

    def test_requests_without_answer_or_500_fail(self):
        obs = observation(requests=[('boot', 202, 0.1),
                                    ('list', http.NO_ANSWER, 30.0)])
        self.assertFalse(verdicts(ALL, obs)['requests_answered']['passed'])
        obs = observation(requests=[('list', 503, 0.1)])
        self.assertFalse(verdicts(ALL, obs)['requests_answered']['passed'])
        spec = [{'check': 'requests_answered', 'statuses': [202]}]
        obs = observation(requests=[('delete', 409, 0.1)])
        result = verdicts(spec, obs)['requests_answered']
        self.assertFalse(result['passed'])
        self.assertIn('delete 409 x1', result['detail'])

    def test_allocation_differs_from_flavor(self):
        obs = observation(allocations={'a': dict(TINY_ALLOC),
                                       'b': {'VCPU': 2, 'MEMORY_MB': 512,
                                             'DISK_GB': 1}})
        result = verdicts(ALL, obs)['allocations_match_servers']
        self.assertFalse(result['passed'])
        self.assertIn('b', result['detail'])

    def test_orphans_both_ways(self):
        obs = observation(allocations={'a': dict(TINY_ALLOC),
                                       'ghost': dict(TINY_ALLOC)})
        self.assertEqual({'allocations': ['ghost'], 'instances': ['b']},
                         invariants.orphans(obs))
        result = verdicts(ALL, obs)
        self.assertFalse(result['no_orphans']['passed'])
        # Usage equals the flavors' sum, but it is the wrong consumer.
        self.assertTrue(result['allocations_match_servers']['passed'])

    def test_server_without_host_wants_no_allocation(self):
        obs = observation(servers={'a': server('ERROR', host=None),
                                   'b': server('ACTIVE')},
                          allocations={'b': dict(TINY_ALLOC)})
        results = verdicts(ALL, obs)
        self.assertTrue(results['no_orphans']['passed'])
        self.assertTrue(results['allocations_match_servers']['passed'])

    def test_build_without_host_may_hold_its_claim(self):
        for allocations in ({'a': dict(TINY_ALLOC), 'b': dict(TINY_ALLOC)},
                            {'b': dict(TINY_ALLOC)}):
            obs = observation(servers={'a': server('BUILD', host=None,
                                                   sid='a'),
                                       'b': server('ACTIVE', sid='b')},
                              allocations=allocations)
            results = verdicts(ALL, obs)
            self.assertTrue(results['no_orphans']['passed'], results)
            self.assertTrue(results['allocations_match_servers']['passed'],
                            results)

    def test_deleted_servers_are_gone(self):
        obs = observation(servers={}, allocations={})
        spec = [{'check': 'servers_in_state', 'states': ['GONE']}]
        self.assertTrue(verdicts(spec, obs)['servers_in_state']['passed'])
        spec = [{'check': 'servers_in_state', 'states': ['ACTIVE']}]
        result = verdicts(spec, obs)['servers_in_state']
        self.assertFalse(result['passed'])
        self.assertIn('GONE x2', result['detail'])

    def test_no_answer_fails_instead_of_passing(self):
        obs = observation(servers=None, allocations=None)
        results = verdicts(ALL, obs)
        for check in ('no_stuck_builds', 'allocations_match_servers',
                      'no_orphans', 'servers_in_state'):
            self.assertFalse(results[check]['passed'], check)

    def test_recovered(self):
        spec = [{'check': 'recovered', 'within': 10}]
        obs = observation(recoveries={'restart': 4.2})
        self.assertTrue(verdicts(spec, obs)['recovered']['passed'])
        obs = observation(recoveries={'restart': 12.0})
        self.assertFalse(verdicts(spec, obs)['recovered']['passed'])
        obs = observation(recoveries={'restart': None})
        result = verdicts(spec, obs)['recovered']
        self.assertFalse(result['passed'])
        self.assertIn('restart (never)', result['detail'])
        self.assertFalse(verdicts(spec, observation())['recovered']['passed'])

    def test_cleanup_result(self):
        clean = invariants.cleanup_result(
            {'deleted': 2, 'servers_left': [], 'allocations_left': []})
        self.assertTrue(clean['passed'])
        dirty = invariants.cleanup_result(
            {'deleted': 2, 'servers_left': [], 'allocations_left': ['a']})
        self.assertFalse(dirty['passed'])
        self.assertIn('allocations left: a', dirty['detail'])


SCENARIO = {'name': 's', 'description': 'd', 'expect_pass': True}


class TestReport(testtools.TestCase):

    def test_report_counts_and_text(self):
        obs = observation(
            requests=[('boot', 202, 0.1), ('boot', 202, 0.1),
                      ('list', 200, 0.1)],
            run_servers=['a', 'b', 'c'],
            recoveries={'restart': 1.5})
        results = invariants.evaluate(ALL, obs)
        built = report.build(SCENARIO, obs, results)
        self.assertFalse(built['passed'])  # c is GONE, not ACTIVE
        self.assertEqual({'boot': {'202': 2}, 'list': {'200': 1}},
                         built['requests'])
        self.assertEqual({'ACTIVE': 2, 'GONE': 1}, built['servers'])
        self.assertEqual([], built['stuck_builds'])
        self.assertEqual({'VCPU': 2, 'MEMORY_MB': 1024, 'DISK_GB': 2},
                         built['placement']['usage'])
        text = report.text(built)
        self.assertIn('Scenario s: FAILED', text)
        self.assertIn('boot 202 x2', text)
        self.assertIn('ACTIVE=2 GONE=1', text)
        self.assertIn('restart 1.5s', text)
        self.assertIn('FAIL servers_in_state', text)
        self.assertIn('PASS no_orphans', text)

    def test_report_without_answers(self):
        obs = observation(servers=None, allocations=None)
        built = report.build(SCENARIO, obs, invariants.evaluate(ALL, obs))
        self.assertIsNone(built['stuck_builds'])
        self.assertIsNone(built['orphans'])
        text = report.text(built)
        self.assertIn('stuck builds', text)
        self.assertIn('unknown', text)
