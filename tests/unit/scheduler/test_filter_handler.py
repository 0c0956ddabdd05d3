"""The filter handler: order, per-filter counts, narrowing, forcing."""

from nova_lite import objects
from nova_lite.scheduler import filters
from nova_lite.scheduler import loadables
from tests.unit.scheduler import fakes


class TestFilterHandler(fakes.TestCase):

    def _hosts(self):
        return [fakes.fake_host('h1', num_io_ops=9),
                fakes.fake_host('h2', service={'disabled': True}),
                fakes.fake_host('h3'), fakes.fake_host('h4')]

    def test_default_filters_are_loaded(self):
        handler = filters.FilterHandler()
        self.assertEqual(['ComputeFilter', 'AvailabilityZoneFilter',
                          'ImagePropertiesFilter',
                          'ServerGroupAntiAffinityFilter',
                          'ServerGroupAffinityFilter'],
                         [f.name for f in handler.filters])

    def test_counts_per_filter_in_order(self):
        handler = filters.FilterHandler(['ComputeFilter', 'IoOpsFilter',
                                         'AllHostsFilter'])
        result = handler.get_filtered_hosts(self._hosts(), fakes.fake_spec())
        self.assertEqual(['h3', 'h4'], [h.host for h in result.hosts])
        self.assertEqual([('ComputeFilter', 4, 3), ('IoOpsFilter', 3, 2),
                          ('AllHostsFilter', 2, 2)],
                         [(s.name, s.hosts_in, s.hosts_out)
                          for s in result.steps])
        self.assertIsNone(result.last_filter)

    def test_stops_when_no_host_is_left(self):
        handler = filters.FilterHandler(['ServerGroupAntiAffinityFilter',
                                         'ComputeFilter'])
        spec = fakes.fake_spec(instance_group=fakes.group(
            'anti-affinity', members=['i1']))
        hosts = [fakes.fake_host('h1', instances=['i1'])]
        result = handler.get_filtered_hosts(hosts, spec)
        self.assertEqual([], result.hosts)
        self.assertEqual(1, len(result.steps))
        self.assertEqual('ServerGroupAntiAffinityFilter',
                         result.last_filter)

    def test_once_per_request_filters_skip_later_instances(self):
        handler = filters.FilterHandler(['ComputeFilter'])
        result = handler.get_filtered_hosts(self._hosts(), fakes.fake_spec(),
                                            index=1)
        self.assertEqual(4, len(result.hosts))
        self.assertTrue(result.steps[0].skipped)

    def test_requested_destination_and_ignore_hosts(self):
        handler = filters.FilterHandler([])
        spec = fakes.fake_spec(ignore_hosts=['H3'])
        result = handler.get_filtered_hosts(self._hosts(), spec)
        self.assertEqual(['h1', 'h2', 'h4'], [h.host for h in result.hosts])
        spec = fakes.fake_spec(
            requested_destination=objects.RequestSpecDestination(host='h4'))
        result = handler.get_filtered_hosts(self._hosts(), spec)
        self.assertEqual(['h4'], [h.host for h in result.hosts])
        self.assertEqual('requested destination', result.steps[0].name)

    def test_forced_hosts_skip_filters(self):
        handler = filters.FilterHandler(['ComputeFilter'])
        spec = fakes.fake_spec(force_hosts=['h2'])
        result = handler.get_filtered_hosts(self._hosts(), spec)
        self.assertTrue(result.forced)
        self.assertEqual(['h2'], [h.host for h in result.hosts])

    def test_forced_node(self):
        handler = filters.FilterHandler([])
        spec = fakes.fake_spec(force_nodes=['h3-node'])
        result = handler.get_filtered_hosts(self._hosts(), spec)
        self.assertEqual(['h3'], [h.host for h in result.hosts])

    def test_unknown_filter_is_a_config_error(self):
        err = self.assertRaises(loadables.PluginNotFound,
                                filters.FilterHandler, ['RetryFilter'])
        self.assertIn('RetryFilter', str(err))
        self.assertIn('ComputeFilter', str(err))

    def test_dotted_path(self):
        handler = filters.FilterHandler([
            'nova_lite.scheduler.filters.all_hosts_filter.AllHostsFilter'])
        self.assertEqual('AllHostsFilter', handler.filters[0].name)
        self.assertRaises(loadables.PluginNotFound, filters.FilterHandler,
                          ['nova_lite.objects.request_spec.RequestSpec'])

    def test_every_filter_is_known(self):
        names = set(filters.all_filters())
        self.assertEqual(25, len(names))
        self.assertIn('AggregateCoreFilter', names)

    def test_rebuild_runs_only_rebuild_filters(self):
        handler = filters.FilterHandler(['ComputeFilter',
                                         'ImagePropertiesFilter'])
        spec = fakes.fake_spec(image_props={'hw_architecture': 'aarch64'})
        host = fakes.fake_host(service={'disabled': True},
                               supported_instances=[('aarch64', 'f', 'hvm')])
        result = handler.get_filtered_hosts([host], spec, rebuild=True)
        self.assertEqual([host], result.hosts)
        self.assertEqual([True, False], [s.skipped for s in result.steps])
