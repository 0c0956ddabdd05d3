"""GET /servers/detail paging over two cells: newest first, then by
uuid among servers created at the same moment, every server once, and a
page after a marker reads at most ``limit`` rows per cell (it used to
read every server of every cell)."""

import datetime

import fixtures
from oslo_utils import uuidutils
import testtools

from nova_lite.db.api import api as api_db
from nova_lite.db.cell import instance_api
from nova_lite import objects
from tests.functional.api import fixtures as api_fixtures

V = '/v2.1'


class TestServerPaging(testtools.TestCase):
    def setUp(self):
        super().setUp()
        self.api = self.useFixture(api_fixtures.APIFixture())
        base = datetime.datetime(2026, 11, 27, 12, 0, 0)
        self.servers = []
        # 12 servers, alternating cells, four created at each of three
        # moments (ties that only the uuid orders).
        for index in range(12):
            cell = 'cell1' if index % 2 else 'cell2'
            created = base + datetime.timedelta(seconds=index // 4)
            uuid = uuidutils.generate_uuid()
            instance_api.instance_create(self.api.cell_context(cell), {
                'uuid': uuid, 'project_id': 'p', 'user_id': 'u',
                'display_name': 'vm%d' % index, 'created_at': created,
                'vm_state': 'active'})
            api_db.instance_mapping_create(self.api.admin_context, {
                'instance_uuid': uuid, 'project_id': 'p',
                'cell_id': self.api.dbs.cell_ids[cell]})
            self.servers.append((created, uuid))
        self.newest_first = [uuid for _c, uuid in sorted(
            self.servers, reverse=True)]
        self.read = []
        real = objects.InstanceList.get_by_filters.__func__

        def counting(cls, context, *args, **kwargs):
            result = real(cls, context, *args, **kwargs)
            self.read.append(len(result.objects))
            return result
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.objects.instance.InstanceList.get_by_filters',
            classmethod(counting)))

    def _page(self, query):
        resp = self.api.get(V + '/servers/detail?all_tenants=1&' + query)
        self.assertEqual(200, resp.status, resp)
        return resp.body

    def test_pages_follow_the_listing_order(self):
        seen, query = [], 'limit=5'
        while query:
            self.read = []
            body = self._page(query)
            seen.extend(s['id'] for s in body['servers'])
            # Each cell (and cell0) gives at most ``limit`` rows.
            self.assertLessEqual(max(self.read), 5, self.read)
            links = body.get('servers_links')
            query = ('limit=5&marker=%s' % seen[-1]) if links else None
        self.assertEqual(self.newest_first, seen)

    def test_unknown_marker_is_400(self):
        resp = self.api.get(V + '/servers/detail?marker=%s'
                            % uuidutils.generate_uuid())
        self.assertEqual(400, resp.status)
