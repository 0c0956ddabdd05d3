"""The fuzz suite's own machinery (tests/fuzz): the catalogs cover both
APIs with their schemas, and a run counts every 500 and traceback
instead of stopping at the first."""

import json

import testtools

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
