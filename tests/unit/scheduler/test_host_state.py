"""HostState built from DB rows, and consumption between picks."""

from nova_lite.scheduler import host_state
from tests.unit.scheduler import fakes


class TestHostState(fakes.TestCase):

    def _compute_node(self, **overrides):
        node = {'uuid': 'cn1', 'host': 'h1', 'hypervisor_hostname': 'n1',
                'vcpus': 16, 'vcpus_used': 4, 'memory_mb': 32768,
                'memory_mb_used': 8192, 'free_ram_mb': None,
                'local_gb': 500, 'local_gb_used': 100, 'free_disk_gb': None,
                'disk_available_least': None, 'hypervisor_type': 'fake',
                'hypervisor_version': 1000, 'cpu_info': '{"arch": "x86_64"}',
                'cpu_allocation_ratio': 4.0, 'ram_allocation_ratio': None,
                'disk_allocation_ratio': 1.0, 'failed_builds': 2,
                'stats': {'num_instances': '3', 'io_workload': '1',
                          'supported_instances': [['x86_64', 'fake',
                                                   'hvm']]}}
        node.update(overrides)
        return node

    def test_from_compute_node(self):
        service = {'host': 'h1', 'disabled': False, 'forced_down': False,
                   'last_seen_up': None, 'created_at': None}
        aggs = [fakes.aggregate(availability_zone='az1')]
        state = host_state.HostState.from_compute_node(
            self._compute_node(), service=service, cell_uuid=fakes.CELL1,
            aggregates=aggs, instances=[{'uuid': 'i1', 'project_id': 'p1'}])
        self.assertEqual(('h1', 'n1', 'cn1'),
                         (state.host, state.nodename, state.uuid))
        self.assertEqual(24576, state.free_ram_mb)
        self.assertEqual(400 * 1024, state.free_disk_mb)
        self.assertEqual(4.0, state.cpu_allocation_ratio)
        self.assertEqual(1.0, state.ram_allocation_ratio)
        self.assertEqual(3, state.num_instances)
        self.assertEqual(1, state.num_io_ops)
        self.assertEqual(2, state.failed_builds)
        self.assertEqual({'arch': 'x86_64'}, state.cpu_info)
        self.assertEqual([('x86_64', 'fake', 'hvm')],
                         state.supported_instances)
        self.assertEqual('az1', state.availability_zone)
        self.assertEqual(['i1'], list(state.instances))
        # Never heartbeated and no creation time: down.
        self.assertFalse(state.service_up)

    def test_disk_available_least_caps_free_disk(self):
        state = host_state.HostState.from_compute_node(
            self._compute_node(disk_available_least=50))
        self.assertEqual(50 * 1024, state.free_disk_mb)

    def test_default_zone(self):
        self.assertEqual('nova', fakes.fake_host().availability_zone)

    def test_consume_from_request(self):
        state = fakes.fake_host(free_ram_mb=4096, free_disk_mb=20480)
        spec = fakes.fake_spec(vcpus=2, memory_mb=1024, root_gb=5,
                               ephemeral_gb=1, swap=512)
        state.consume_from_request(spec, 'i9')
        self.assertEqual(3072, state.free_ram_mb)
        self.assertEqual(20480 - 6 * 1024 - 512, state.free_disk_mb)
        self.assertEqual(2, state.vcpus_used)
        self.assertEqual((1, 1), (state.num_instances, state.num_io_ops))
        self.assertIn('i9', state.instances)

    def test_consume_selected_host_records_group_pick(self):
        state = fakes.fake_host('h7')
        spec = fakes.fake_spec(instance_group=fakes.group('affinity'))
        host_state.consume_selected_host(state, spec, 'i1')
        self.assertEqual(['h7'], spec.instance_group.hosts)
        self.assertEqual(['i1'], spec.instance_group.members)

    def test_aggregate_values_split_commas(self):
        state = fakes.fake_host(aggregates=[
            fakes.aggregate('a', k='x, y'), fakes.aggregate('b', k='z')])
        self.assertEqual({'x', 'y', 'z'}, state.aggregate_values('k'))
        self.assertEqual({'k': {'x', 'y', 'z'}}, state.aggregate_metadata())

    def test_service_object_with_unset_fields(self):
        import nova_lite.objects
        from nova_lite.objects import service as service_obj
        nova_lite.objects.register_all()
        service = service_obj.Service(host='h1', disabled=True)
        state = host_state.HostState.from_compute_node(
            self._compute_node(), service=service)
        self.assertTrue(state.service['disabled'])
        self.assertIsNone(state.service['last_seen_up'])
        self.assertFalse(state.service_up)
