"""Regression: a delete racing the burial of an unschedulable server.

Deleting a server 10-50 ms after its create, when scheduling
then fails, once answered 204 but left an ERROR row in cell0 with no instance
mapping (listed, 404 on GET and DELETE, counted against quota): the
delete removed the mapping between the super conductor's creating the row
in cell0 and its pointing the mapping there. 40 races must leave nothing.
"""

import random
import time

import fixtures
import testtools

from nova_lite import cells
from nova_lite.conductor.tasks import bury
from nova_lite import context as nl_context
from nova_lite.db.cell import instance_api
from nova_lite import objects
from nova_lite.testing import integrated

RACES = 40


class DeleteRaceTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.cloud = self.useFixture(
            integrated.IntegratedFixture(cast_as_call=False))
        # No compute: every flavor is unschedulable. The burial is slowed
        # a little after the cell0 row exists, as a loaded conductor is.
        real = bury._record_failed_create

        def slow_record(*args, **kwargs):
            time.sleep(0.02)
            return real(*args, **kwargs)
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.conductor.tasks.bury._record_failed_create',
            slow_record))

    def _cell0_rows(self):
        cell0 = self.cloud.dbs.cells['cell0']
        context = nl_context.get_admin_context()
        mapping = objects.CellMapping.get_by_uuid(context, cell0.uuid)
        with cells.target_cell(context, mapping) as cctxt:
            return instance_api.instance_get_all_by_filters(cctxt, {})

    def test_create_then_delete_leaves_nothing(self):
        rng = random.Random(16)
        for index in range(RACES):
            server = self.cloud.create_server(name='race-%d' % index)
            time.sleep(rng.uniform(0.01, 0.05))
            response = self.cloud.api.delete('/servers/%s' % server['id'])
            self.assertIn(response.status, (204, 404), response)
        # let the conductor finish every burial
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            listed = self.cloud.api.get('/servers').body['servers']
            if not listed and not self._cell0_rows():
                break
            time.sleep(0.2)
        self.assertEqual([], self.cloud.api.get('/servers').body['servers'])
        self.assertEqual([], [r.uuid for r in self._cell0_rows()])
        limits = self.cloud.api.get('/limits').body['limits']['absolute']
        self.assertEqual(0, limits['totalInstancesUsed'])
