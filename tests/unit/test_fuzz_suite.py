"""The fuzz suite's own machinery (tests/fuzz): the catalogs cover both
APIs with their schemas, and a run counts every 500 and traceback
instead of stopping at the first."""

import json

import fixtures
import testtools

from tests.fuzz import openapi_run
from tests.fuzz import run
from tests.fuzz import strategies


def _broken_app(environ, start_response):
    """500 with a traceback on every POST, 404 otherwise."""
    if environ['REQUEST_METHOD'] == 'POST':
        start_response('500 Internal Server Error',
                       [('Content-Type', 'text/plain')])
        return [b'Traceback (most recent call last):\n  File "/x.py"']
    start_response('404 Not Found', [('Content-Type', 'application/json')])
    return [b'{}']


class TestFuzzSuite(testtools.TestCase):
    def test_catalogs_hold_routes_and_schemas(self):
        for api in ('compute', 'placement'):
            routes = strategies.catalog(api)
            self.assertGreater(len(routes), 10, api)
            self.assertTrue(any(r.bodies for r in routes), api)
            self.assertTrue(any(r.queries for r in routes), api)

    def test_every_500_and_traceback_is_counted(self):
        routes = [r for r in strategies.catalog('placement')
                  if r.template == '/resource_providers']
        tally = run.fuzz(run.InProcess({'placement': _broken_app}), routes,
                         60)
        posts = tally.statuses['500']
        self.assertGreater(posts, 0)
        self.assertEqual(posts, tally.errors)
        self.assertEqual(posts + tally.statuses['404'], tally.sent)
        self.assertTrue(tally.tracebacks)
        self.assertEqual([('POST /resource_providers', posts)],
                         tally.as_dict()['worst_routes'])

    def test_bodies_are_json_text_even_with_lone_surrogates(self):
        body = strategies._encode({'name': '\ud800'})
        self.assertEqual({'name': '\ud800'}, json.loads(body))
        self.assertIn(b'\\ud800', body)


# What schemathesis's JUnit report says of an operation (abridged).
JUNIT = '''<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="schemathesis">
<testcase name="GET /traits" />
<testcase name="POST /resource_providers">
<failure type="failure" message="ST202">1. Test Case ID: a1

- ST202 Schema-valid request rejected

[400] Bad Request:

    `{"errors": [{"detail": "parent provider UUID does not exist"}]}`

2. Test Case ID: a2

- ST101 Server error

- ST108 Response violates schema

[500] Internal Server Error:

    `{"errors": []}`</failure>
</testcase>
<testcase name="GET /usages"><error message="x">Schema Error</error>
</testcase>
</testsuite></testsuites>'''


class TestOpenAPIPhase(testtools.TestCase):

    def test_findings_are_read_case_by_case(self):
        path = self.useFixture(fixtures.TempDir()).join('r.xml')
        with open(path, 'w') as f:
            f.write(JUNIT)
        found = openapi_run.findings(path)
        self.assertEqual(
            [('POST /resource_providers', 'ST202', 400),
             ('POST /resource_providers', 'ST101', 500),
             ('POST /resource_providers', 'ST108', 500),
             ('GET /usages', 'error', None)],
            [f[:3] for f in found])
        self.assertIn('parent provider UUID', found[0][3])

    def test_only_listed_refusals_are_expected(self):
        self.assertTrue(openapi_run.expected_refusal(
            'placement', 'POST /resource_providers',
            'parent provider UUID does not exist'))
        self.assertFalse(openapi_run.expected_refusal(
            'placement', 'POST /resource_providers',
            "JSON does not validate: 'x' is too long"))
        self.assertFalse(openapi_run.expected_refusal(
            'compute', 'POST /resource_providers',
            'parent provider UUID does not exist'))
