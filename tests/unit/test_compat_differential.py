"""The differential checker's own logic (tests/compat/differential): what
counts as a difference, candidate-set comparison, reproducibility. The
runs themselves need two live services: tox -e compat -- --differential."""

import testtools

from tests.compat.differential import compare
from tests.compat.differential import runner

KNOWN = 'd7f2c5a4-5b8e-4c3a-9d61-0f3e2b1a4c5d'
OTHER = '0b8f41c6-2b0e-4e4a-8b8a-4a0b9e6c2f11'
MADE_UP_A = '11111111-2222-4333-8444-555555555555'
MADE_UP_B = '99999999-8888-4777-8666-555555555555'
JSON = {'content-type': 'application/json',
        'openstack-api-version': 'placement 1.39',
        'vary': 'openstack-api-version'}


def resp(body, status=200, **headers):
    merged = dict(JSON)
    merged.update({k.replace('_', '-'): v for k, v in headers.items()})
    return compare.Response(status, merged, body)


def diff(ref, tgt, known=(KNOWN, OTHER), subset_of=None):
    return compare.compare(ref, tgt, set(known), subset_of)


def candidate(*allocs):
    return {'allocations': {rp: {'resources': res} for rp, res in allocs}}


class TestCompare(testtools.TestCase):

    def test_same_answer(self):
        body = {'uuid': KNOWN, 'generation': 1, 'name': 'a'}
        self.assertEqual([], diff(resp(body), resp(dict(body))))

    def test_status_alone_when_it_differs(self):
        self.assertEqual([('status', 400, 409)],
                         diff(resp({'a': 1}, 400), resp({'b': 2}, 409)))

    def test_uuids_the_servers_made_up_are_ignored(self):
        self.assertEqual([], diff(resp({'uuid': MADE_UP_A}),
                                  resp({'uuid': MADE_UP_B})))

    def test_uuids_the_generator_chose_must_match(self):
        self.assertEqual([('body.uuid', KNOWN, OTHER)],
                         diff(resp({'uuid': KNOWN}), resp({'uuid': OTHER})))
        # Placement accepts them without dashes; they are the same uuid.
        self.assertEqual([], diff(resp({'uuid': KNOWN}),
                                  resp({'uuid': KNOWN.upper()})))

    def test_timestamps_and_request_ids_are_ignored(self):
        ref = {'created_at': '2026-01-01T00:00:00Z',
               'errors': [{'request_id': 'req-%s' % MADE_UP_A}]}
        tgt = {'created_at': '2027-02-02T00:00:00Z',
               'errors': [{'request_id': 'req-%s' % MADE_UP_B}]}
        self.assertEqual([], diff(resp(ref), resp(tgt)))

    def test_keys_and_types(self):
        found = diff(resp({'a': 1, 'b': 2}), resp({'a': '1', 'c': 2}))
        self.assertEqual(('body keys', ['b'], ['c']), found[0])
        self.assertEqual('body.a', found[1][0])
        self.assertIn('<int>', found[1][1])
        self.assertIn('<str>', found[1][2])

    def test_lists_are_multisets(self):
        self.assertEqual([], diff(resp({'traits': ['A', 'B', 'A']}),
                                  resp({'traits': ['A', 'A', 'B']})))
        found = diff(resp({'traits': ['A', 'B']}),
                     resp({'traits': ['A', 'A']}))
        self.assertEqual(1, len(found))
        self.assertIn('"B"', found[0][1])
        self.assertIn('"A"', found[0][2])

    def test_candidates_are_compared_as_sets(self):
        one = candidate((KNOWN, {'VCPU': 1}))
        two = candidate((KNOWN, {'VCPU': 1}), (OTHER, {'DISK_GB': 10}))
        three = candidate((OTHER, {'VCPU': 1}))
        same = diff(resp({'allocation_requests': [one, two]}),
                    resp({'allocation_requests': [two, one]}))
        self.assertEqual([], same)
        found = diff(resp({'allocation_requests': [one, two]}),
                     resp({'allocation_requests': [one, three]}))
        self.assertEqual(1, len(found))
        where, mine, theirs = found[0]
        self.assertEqual('body.allocation_requests (2 vs 2 items)', where)
        self.assertIn('DISK_GB', mine)
        self.assertNotIn('DISK_GB', theirs)

    def test_limited_candidates_are_a_subset_of_the_full_set(self):
        a = candidate((KNOWN, {'VCPU': 1}))
        b = candidate((OTHER, {'VCPU': 1}))
        c = candidate((OTHER, {'VCPU': 2}))
        full = resp({'allocation_requests': [a, b], 'provider_summaries': {}})
        ref = resp({'allocation_requests': [a], 'provider_summaries': {}})
        self.assertEqual([], diff(ref, resp({'allocation_requests': [b],
                                             'provider_summaries': {}}),
                                  subset_of=full))
        found = diff(ref, resp({'allocation_requests': [c],
                                'provider_summaries': {}}), subset_of=full)
        self.assertEqual(['body.allocation_requests not in the unlimited '
                          'set'], [f[0] for f in found])
        found = diff(ref, resp({'allocation_requests': [a, b],
                                'provider_summaries': {}}), subset_of=full)
        self.assertEqual([('body.allocation_requests count', 1, 2)], found)

    def test_headers(self):
        self.assertEqual([], diff(
            resp({}, content_type='application/json',
                 vary='openstack-api-version, Accept'),
            resp({}, content_type='Application/JSON',
                 vary='accept,openstack-api-version')))
        found = diff(resp({}, cache_control='no-cache',
                          last_modified='Wed, 01 Jan 2026 00:00:00 GMT'),
                     resp({}))
        self.assertEqual(['header cache-control', 'header last-modified'],
                         [f[0] for f in found])
        self.assertEqual([], diff(
            resp({}, last_modified='Wed, 01 Jan 2026 00:00:00 GMT'),
            resp({}, last_modified='Thu, 02 Jan 2026 00:00:00 GMT')))

    def test_location_without_host_and_made_up_uuids(self):
        self.assertEqual([], diff(
            resp({}, 201, location='http://127.0.0.1:1/resource_providers/'
                 + MADE_UP_A),
            resp({}, 201, location='http://127.0.0.1:2/resource_providers/'
                 + MADE_UP_B)))
        found = diff(resp({}, 201, location='/resource_providers/' + KNOWN),
                     resp({}, 201, location='/resource_providers/' + OTHER))
        self.assertEqual(['header location'], [f[0] for f in found])

    def test_error_detail(self):
        placement = ('The server could not comply with the request since it '
                     'is either malformed or otherwise incorrect.\n\n JSON '
                     'does not validate: 0 is less than the minimum of 1 '
                     "Failed validating 'minimum' in schema: {...} ")
        ours = ('JSON does not validate: 0 is less than the minimum of 1'
                "\n\nFailed validating 'minimum' in schema:\n {...}")
        self.assertEqual(
            {'explanation': 'The server could not comply with the request '
             'since it is either malformed or otherwise incorrect.',
             'message': 'JSON does not validate: 0 is less than the minimum '
             "of 1 [Failed validating 'minimum']"},
            compare.error_detail(placement))
        found = diff(resp({'errors': [{'detail': placement}]}, 400),
                     resp({'errors': [{'detail': ours}]}, 400))
        self.assertEqual(['body.errors[0].detail.explanation'],
                         [f[0] for f in found])


class FakeEndpoint:
    """Answers every request alike and records what it was sent."""

    def __init__(self, body=None):
        self.sent = []
        self.body = body or {}

    def send(self, req):
        self.sent.append(req.describe())
        return compare.Response(200, dict(JSON), dict(self.body))

    def wipe(self):
        self.sent.append('wipe')


class ProbedEndpoint(FakeEndpoint):
    """Lists one provider (uuid made up) with the given generation."""

    def __init__(self, generation):
        super().__init__()
        self.generation = generation

    def send(self, req):
        if req.method == 'GET' and req.path == '/resource_providers':
            return compare.Response(200, dict(JSON), {'resource_providers': [
                {'uuid': MADE_UP_A, 'name': 'x', 'parent_provider_uuid': None,
                 'generation': self.generation}]})
        return super().send(req)


class TestRunner(testtools.TestCase):

    def test_the_probe_after_a_write_finds_state_drift(self):
        run = runner.Run(ProbedEndpoint(1), ProbedEndpoint(2), '7',
                         out=lambda text: None)
        run.sequence(0, 'api', 80)
        self.assertEqual(1, len(run.differences))
        diff = run.differences[0]
        self.assertNotEqual('GET', diff.request.method)
        self.assertEqual([('state after it: body.named x.generation', 1, 2)],
                         diff.found)
        self.assertEqual(1, run.requests)
        same = runner.Run(ProbedEndpoint(1), ProbedEndpoint(1), '7',
                          out=lambda text: None)
        same.sequence(0, 'api', 80)
        self.assertEqual([], same.differences)

    def run_with(self, seed, target_body=None):
        ref = FakeEndpoint()
        tgt = FakeEndpoint(target_body)
        run = runner.Run(ref, tgt, seed, out=lambda text: None)
        run.run(requests_wanted=150, queries_wanted=30)
        return run, ref.sent

    def test_a_seed_replays_the_same_requests(self):
        first, sent = self.run_with('7')
        second, again = self.run_with('7')
        self.assertEqual(sent, again)
        self.assertNotEqual(sent, self.run_with('8')[1])
        self.assertEqual([], first.differences)
        self.assertEqual(30, first.queries)
        self.assertGreaterEqual(first.requests, 180)

    def test_differences_are_counted_and_classed(self):
        run, _ = self.run_with('7', target_body={'extra': 1})
        self.assertEqual(run.requests, len(run.differences))
        self.assertTrue(any('body keys' in line for line in run.summary()))

    def test_route_of(self):
        self.assertEqual(
            '/resource_providers/{uuid}/inventories/{name}',
            runner.route_of('/resource_providers/%s/inventories/VCPU'
                            % KNOWN))
        self.assertEqual('/usages?project_id&user_id',
                         runner.route_of('/usages?user_id=a&project_id=b'))
        self.assertEqual('/allocation_candidates', runner.route_of(
            '/allocation_candidates?resources1=VCPU:1&limit=2'))
