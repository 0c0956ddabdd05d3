"""Generated requests to both APIs in-process: no 500, no traceback.

The small run of the fuzz suite (the big one is ``tox -e fuzz``):
a few hundred requests per API drawn by hypothesis from the route tables
and JSON schemas (tests/fuzz/strategies.py), derandomized so that CI sees
the same requests every run. Every answer must be below 500 (501 for an
API nova_lite lacks) with no traceback in it, and nothing the services
log may carry one.
"""

import fixtures
import testtools

from nova_lite.testing import placement_fixture
from tests.functional.api import fixtures as api_fixtures
from tests.fuzz import run
from tests.fuzz import strategies

EXAMPLES = 200


class TestFuzz(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.log = self.useFixture(fixtures.FakeLogger(level='WARNING'))

    def _check(self, api, app):
        tally = run.fuzz(run.InProcess({api: app}),
                         strategies.catalog(api), EXAMPLES)
        self.assertGreaterEqual(tally.sent, EXAMPLES // 2)
        self.assertEqual(0, tally.errors, tally.as_dict())
        self.assertEqual([], tally.tracebacks)
        logged = self.log.output
        self.assertNotIn('Traceback', logged, logged[-3000:])

    def test_compute_api(self):
        api = self.useFixture(api_fixtures.APIFixture())
        api.add_compute('host1', 'cell1')
        api.post('/v2.1/flavors', {'flavor': {
            'name': 'f', 'id': '1', 'ram': 1, 'vcpus': 1, 'disk': 0}})
        self._check('compute', api.app)

    def test_placement_api(self):
        placement = self.useFixture(placement_fixture.PlacementFixture())
        placement.client.create_provider(
            'fuzz-rp', uuid='10000000-0000-4000-8000-000000000001')
        self._check('placement', placement.app)
