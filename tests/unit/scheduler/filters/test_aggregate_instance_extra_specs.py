from nova_lite.scheduler.filters import aggregate_instance_extra_specs as f
from tests.unit.scheduler import fakes


class TestAggregateInstanceExtraSpecsFilter(fakes.FilterTestCase):
    FILTER = f.AggregateInstanceExtraSpecsFilter

    def _host(self, **metadata):
        return fakes.fake_host(aggregates=[fakes.aggregate(**metadata)])

    def test_no_extra_specs_passes(self):
        self.assertPasses(self._host(), fakes.fake_spec())

    def test_scoped_key_matches_aggregate(self):
        spec = fakes.fake_spec(extra_specs={
            'aggregate_instance_extra_specs:ssd': 'true'})
        self.assertPasses(self._host(ssd='true'), spec)
        self.assertFails(self._host(ssd='false'), spec)
        self.assertFails(self._host(), spec)

    def test_unscoped_key_counts_and_operators_apply(self):
        spec = fakes.fake_spec(extra_specs={'speed': '>= 10'})
        self.assertPasses(self._host(speed='40'), spec)
        self.assertFails(self._host(speed='1'), spec)

    def test_other_scopes_are_ignored(self):
        spec = fakes.fake_spec(extra_specs={
            'resources:VCPU': '2', 'trait:CUSTOM_SSD': 'required',
            'hw:cpu_policy': 'dedicated', 'group_policy': 'none'})
        self.assertPasses(self._host(), spec)

    def test_any_aggregate_value_may_match(self):
        host = fakes.fake_host(aggregates=[
            fakes.aggregate('a', ssd='false'),
            fakes.aggregate('b', ssd='true')])
        spec = fakes.fake_spec(extra_specs={
            'aggregate_instance_extra_specs:ssd': 'true'})
        self.assertPasses(host, spec)
