from nova_lite.scheduler.filters import aggregate_multitenancy_isolation as f
from tests.unit.scheduler import fakes


class TestAggregateMultiTenancyIsolation(fakes.FilterTestCase):
    FILTER = f.AggregateMultiTenancyIsolation

    def test_open_host_takes_anyone(self):
        self.assertPasses(fakes.fake_host(), fakes.fake_spec(project_id='x'))

    def test_dedicated_host_takes_its_projects_only(self):
        host = fakes.fake_host(aggregates=[
            fakes.aggregate(filter_tenant_id='p1,p2')])
        self.assertPasses(host, fakes.fake_spec(project_id='p2'))
        self.assertFails(host, fakes.fake_spec(project_id='p3'))

    def test_suffixed_keys_count(self):
        host = fakes.fake_host(aggregates=[
            fakes.aggregate(filter_tenant_id='p1',
                            filter_tenant_id_2='p9')])
        self.assertPasses(host, fakes.fake_spec(project_id='p9'))
