"""Request prefilters narrow the placement query."""

from nova_lite.scheduler import placement_query as pq
from nova_lite.scheduler import request_filter as rf
from tests.unit.scheduler import fakes


class TestPrefilters(fakes.TestCase):

    def setUp(self):
        super().setUp()
        self.aggregates = [
            fakes.aggregate('az1-a', availability_zone='az1'),
            fakes.aggregate('az1-b', availability_zone='az1'),
            fakes.aggregate('az2', availability_zone='az2'),
            fakes.aggregate('t1', filter_tenant_id='p1,p2'),
            fakes.aggregate('t2', filter_tenant_id_x='p2'),
        ]
        self.uuids = {a.name: a.uuid for a in self.aggregates}

    def _run(self, spec):
        query = pq.build_query(spec)
        applied = rf.process_reqspec(spec, query, self.aggregates)
        return query, applied

    def test_disabled_computes_always_forbidden(self):
        query, applied = self._run(fakes.fake_spec())
        self.assertEqual(['compute_status_filter'], applied)
        self.assertIn(('root_required', '!COMPUTE_STATUS_DISABLED'),
                      query.params())

    def test_availability_zone_maps_to_aggregates(self):
        query, applied = self._run(fakes.fake_spec(availability_zone='az1'))
        self.assertIn('map_az_to_placement_aggregate', applied)
        wanted = 'in:' + ','.join(sorted([self.uuids['az1-a'],
                                          self.uuids['az1-b']]))
        self.assertIn(('member_of', wanted), query.params())

    def test_zone_without_aggregate_adds_nothing(self):
        query, applied = self._run(fakes.fake_spec(availability_zone='nova'))
        self.assertNotIn('map_az_to_placement_aggregate', applied)
        self.assertNotIn('member_of', dict(query.params()))

    def test_tenant_aggregates_off_by_default(self):
        query, applied = self._run(fakes.fake_spec(project_id='p1'))
        self.assertNotIn('require_tenant_aggregate', applied)

    def test_tenant_aggregates(self):
        self.flags(group='scheduler',
                   limit_tenants_to_placement_aggregate=True)
        query, applied = self._run(fakes.fake_spec(project_id='p2'))
        wanted = 'in:' + ','.join(sorted([self.uuids['t1'],
                                          self.uuids['t2']]))
        self.assertIn(('member_of', wanted), query.params())
        query, applied = self._run(fakes.fake_spec(project_id='p9'))
        self.assertNotIn('require_tenant_aggregate', applied)

    def test_tenant_aggregate_required(self):
        self.flags(group='scheduler',
                   limit_tenants_to_placement_aggregate=True,
                   placement_aggregate_required_for_tenants=True)
        err = self.assertRaises(rf.RequestFilterFailed, self._run,
                                fakes.fake_spec(project_id='p9'))
        self.assertIn('p9', str(err))

    def test_image_type_support(self):
        spec = fakes.fake_spec(disk_format='qcow2')
        query, applied = self._run(spec)
        self.assertNotIn('require_image_type_support', applied)
        self.flags(group='scheduler',
                   query_placement_for_image_type_support=True)
        query, applied = self._run(spec)
        self.assertIn(('root_required',
                       'COMPUTE_IMAGE_TYPE_QCOW2,!COMPUTE_STATUS_DISABLED'),
                      query.params())

    def test_unknown_disk_format_is_skipped(self):
        self.flags(group='scheduler',
                   query_placement_for_image_type_support=True)
        query, applied = self._run(fakes.fake_spec(disk_format='weird'))
        self.assertNotIn('require_image_type_support', applied)
