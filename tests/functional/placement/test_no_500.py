"""No request shape makes placement answer 500 or show a traceback.

Every route of the route table is sent every method with malformed,
missing, unknown and extreme path items, bodies, query strings and
microversion headers (in-process, fresh SQLite). Each answer must be below
500, and an error must be a JSON document in placement's shape.
"""

import itertools
import json
import random
import re

from gunicorn.http import errors as gunicorn_errors
import testtools
import webob

from nova_lite.testing import placement_fixture
from nova_lite.placement import handler

RP = '10000000-0000-4000-8000-000000000001'
CONSUMER = '20000000-0000-4000-8000-000000000001'
MISSING = '30000000-0000-4000-8000-000000000009'

PATH_VALUES = {
    'uuid': [RP, MISSING, 'not-a-uuid', 'x' * 300, '%E2%98%83',
             RP.replace('-', '')],
    'consumer_uuid': [CONSUMER, MISSING, 'not-a-uuid', '%00', 'x' * 300],
    'resource_class': ['VCPU', 'CUSTOM_NOPE', 'vcpu', 'x' * 300, '%20'],
    'name': ['HW_CPU_X86_AVX2', 'CUSTOM_X', 'CUSTOM_x', 'VCPU', 'x' * 300,
             '%E2%98%83', 'CUSTOM_' + 'A' * 300],
}
METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'HEAD']
BODIES = [None, b'', b'{', b'[]', b'null', b'123', b'"x"', b'{}',
          b'\xff\xfe', b'{"a": 1}', json.dumps({'name': None}).encode(),
          json.dumps({'allocations': {RP: {'resources': {'VCPU': 2 ** 70}}},
                      'project_id': 'p', 'user_id': 'u',
                      'consumer_generation': 2 ** 70}).encode()]
QUERIES = ['', 'foo=bar', 'name=%ff', 'member_of=!', 'member_of=in:',
           'resources=:', 'resources=VCPU:-1', 'resources=VCPU:99999999999999'
           '999999', 'required=in:', 'required=!', 'required=,',
           'in_tree=x', 'uuid=', 'project_id=', 'associated=2',
           'name=in:', 'name=startswith:', 'consumer_type=', 'limit=-1']
VERSIONS = [None, '1.0', '1.13', '1.28', 'latest', '1.99', 'x',
            'placement', '']

TRACEBACK = re.compile(r'Traceback|File "')


def _fill(path, values):
    """Every combination of path item values for ``path``."""
    names = re.findall(r'{(\w+)}', path)
    for combo in itertools.product(*[values[n] for n in names]):
        filled = path
        for name, value in zip(names, combo, strict=True):
            filled = filled.replace('{%s}' % name, value)
        yield filled


def _mutations(rng, count):
    """Seeded random JSON documents of plausible placement shapes."""
    leaves = [None, True, -1, 0, 1, 2 ** 31, 2 ** 70, 1.5, 'x', '', [], {},
              RP, 'VCPU', 'CUSTOM_X']
    keys = ['name', 'uuid', 'parent_provider_uuid', 'inventories', 'total',
            'resource_provider_generation', 'allocations', 'resources',
            'project_id', 'user_id', 'consumer_generation', 'consumer_type',
            'traits', 'aggregates', 'resource_class', 'reserved', RP,
            CONSUMER, 'VCPU']

    def value(depth):
        if depth > 2 or rng.random() < 0.4:
            return rng.choice(leaves)
        if rng.random() < 0.2:
            return [value(depth + 1) for _ in range(rng.randint(0, 3))]
        return {rng.choice(keys): value(depth + 1)
                for _ in range(rng.randint(0, 4))}

    return [json.dumps(value(0)).encode() for _ in range(count)]


class _PlacementCase(testtools.TestCase):
    """A fresh placement with one provider and one consumer."""

    def setUp(self):
        super().setUp()
        placement = self.useFixture(placement_fixture.PlacementFixture())
        self.app = placement.app
        client = placement.client
        client.create_provider('fuzz-rp', uuid=RP)
        client.set_inventories(RP, 0, {'VCPU': {'total': 8}})
        client.put_allocations(CONSUMER, {RP: {'resources': {'VCPU': 1}}},
                               'p', 'u')
        self.session = client.session
        self.endpoint = client.endpoint
        self.seen = 0

    def _send(self, method, path, body=None, query='', version='latest'):
        headers = {'Content-Type': 'application/json'}
        if version is not None:
            headers['OpenStack-API-Version'] = 'placement %s' % version
        url = self.endpoint + path + ('?' + query if query else '')
        response = self.session.request(method, url, data=body,
                                        headers=headers)
        self.seen += 1
        where = '%s %s%s body=%r version=%r' % (method, path,
                                                '?' + query if query else '',
                                                body, version)
        self.assertLess(response.status_code, 500,
                        '%s -> %s' % (where, response.text))
        self.assertIsNone(TRACEBACK.search(response.text), where)
        if response.status_code >= 400 and method != 'HEAD':
            errors = response.json()['errors']
            self.assertEqual(response.status_code, errors[0]['status'])
            # As in Placement, the error code is in the body from 1.23.
            if version == 'latest':
                self.assertTrue(errors[0]['code'].startswith('placement.'))
            else:
                self.assertTrue(errors[0].get('code', 'placement.')
                                .startswith('placement.'))


class TestNoServerErrors(_PlacementCase):
    def test_every_route_method_and_body(self):
        for path in handler.ROUTE_DECLARATIONS:
            for filled in _fill(path, PATH_VALUES):
                for method in METHODS:
                    self._send(method, filled)
                for body in BODIES:
                    for method in ('PUT', 'POST'):
                        self._send(method, filled, body)

    def test_every_get_with_odd_queries_and_versions(self):
        for path in handler.ROUTE_DECLARATIONS:
            filled = next(_fill(path, PATH_VALUES))
            for query in QUERIES:
                self._send('GET', filled, query=query)
            for version in VERSIONS:
                self._send('GET', filled, version=version)
                self._send('PUT', filled, b'{}', version=version)

    def test_random_documents_on_every_writer(self):
        rng = random.Random(20261121)
        documents = _mutations(rng, 40)
        for path, methods in handler.ROUTE_DECLARATIONS.items():
            filled = next(_fill(path, PATH_VALUES))
            for method in set(methods) & {'PUT', 'POST'}:
                for body in documents:
                    for version in ('1.0', '1.12', '1.28', 'latest'):
                        self._send(method, filled, body, version=version)


DEEP_BODIES = [b'[' * 990 + b']' * 990, b'{"a":' * 990 + b'1' + b'}' * 990]
SURROGATE_BODIES = [b'{"name": "\\ud800"}', b'{"\\udfff": {"total": 1}}',
                    b'{"traits": ["CUSTOM_\\ud800"], '
                    b'"resource_provider_generation": 0}']


class _RaisingInput:
    """A wsgi.input failing as gunicorn's reader does on a bad chunk."""

    def read(self, size=-1):
        raise gunicorn_errors.InvalidChunkSize(b'zz')


class TestBadInput(_PlacementCase):
    """Input no handler should see: a 400 in placement's format."""

    def _expect(self, status, method, path, body=None, query=''):
        url = self.endpoint + path + ('?' + query if query else '')
        response = self.session.request(method, url, data=body, headers={
            'Content-Type': 'application/json',
            'OpenStack-API-Version': 'placement latest'})
        where = '%s %s?%s' % (method, path, query)
        self.assertEqual(status, response.status_code,
                         '%s -> %s' % (where, response.text))
        errors = response.json()['errors']
        self.assertEqual(status, errors[0]['status'], where)
        self.assertTrue(errors[0]['code'].startswith('placement.'), where)
        return errors[0]['detail']

    def _writers(self):
        for path, methods in handler.ROUTE_DECLARATIONS.items():
            filled = next(_fill(path, PATH_VALUES))
            for method in set(methods) & {'PUT', 'POST'}:
                yield method, filled

    def test_deep_json_everywhere_is_400(self):
        count = 0
        for method, path in self._writers():
            for body in DEEP_BODIES:
                detail = self._expect(400, method, path, body)
                self.assertIn('levels deep', detail)
                count += 1
        self.assertGreater(count, 20)

    def test_lone_surrogates_everywhere_are_400(self):
        for method, path in self._writers():
            for body in SURROGATE_BODIES:
                detail = self._expect(400, method, path, body)
                self.assertIn('lone surrogate', detail)

    def test_query_surrogates_are_400(self):
        for path, query in (('/resource_providers', 'name=%ED%A0%80'),
                            ('/traits', 'name=in:%ED%B0%80'),
                            ('/resource_providers/%ED%A0%80', '')):
            self._expect(400, 'GET', path, query=query)

    def test_amounts_past_the_range_match_nothing_or_are_400(self):
        # Placement answers 500 for an amount past what its database
        # holds. GET /resource_providers clamps it before SQL and finds
        # nothing, as for any amount past what an inventory holds;
        # allocation candidates refuse it with a clear 400
        # (doc/placement-compat.md, deliberate differences).
        headers = {'OpenStack-API-Version': 'placement latest'}
        response = self.session.get(
            self.endpoint + '/resource_providers?resources=VCPU:' + '9' * 30,
            headers=headers)
        self.assertEqual(200, response.status_code, response.text)
        self.assertEqual([], response.json()['resource_providers'])
        response = self.session.get(
            self.endpoint + '/allocation_candidates?resources=VCPU:'
            + '9' * 30, headers=headers)
        self.assertEqual(400, response.status_code, response.text)
        self.assertIn('requires amount <= 2147483647', response.text)

    def test_a_limit_past_the_range_means_all_candidates(self):
        # As in Placement, which applies the limit to its results: any
        # positive limit is valid.
        response = self.session.get(
            self.endpoint + '/allocation_candidates?resources=VCPU:1&limit='
            + '9' * 30,
            headers={'OpenStack-API-Version': 'placement latest'})
        self.assertEqual(200, response.status_code, response.text)
        self.assertIn('allocation_requests', response.json())

    def test_bad_chunked_body_is_400(self):
        req = webob.Request.blank('/resource_providers', method='POST')
        req.headers['Transfer-Encoding'] = 'chunked'
        req.headers['X-Auth-Token'] = 'admin'
        req.content_type = 'application/json'
        req.environ['wsgi.input'] = _RaisingInput()
        req.environ['wsgi.input_terminated'] = True
        response = req.get_response(self.app)
        self.assertEqual(400, response.status_int, response.text)
        self.assertIn('could not be read',
                      response.json['errors'][0]['detail'])
