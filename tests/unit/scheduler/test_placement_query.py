"""Request spec -> GET /allocation_candidates query."""

import urllib.parse

from nova_lite import exception
from nova_lite import objects
from nova_lite.scheduler import placement_query as pq
from tests.unit.scheduler import fakes


def _params(query):
    return dict(query.params())


class TestFlavorResources(fakes.TestCase):

    def test_flavor_amounts_and_limit(self):
        spec = fakes.fake_spec(vcpus=2, memory_mb=2048, root_gb=10,
                               ephemeral_gb=5, swap=1025)
        query = pq.build_query(spec)
        self.assertEqual({'resources': 'DISK_GB:17,MEMORY_MB:2048,VCPU:2',
                          'limit': '1000'}, _params(query))

    def test_limit_option(self):
        self.flags(group='scheduler', max_placement_results=7)
        self.assertEqual('7', _params(pq.build_query(fakes.fake_spec()))[
            'limit'])

    def test_boot_from_volume_has_no_root_disk(self):
        spec = fakes.fake_spec(root_gb=10, ephemeral_gb=0, is_bfv=True)
        self.assertNotIn('DISK_GB', _params(pq.build_query(spec))[
            'resources'])

    def test_resources_override_and_zero(self):
        spec = fakes.fake_spec(vcpus=2, extra_specs={
            'resources:VCPU': '4', 'resources:DISK_GB': '0',
            'resources:VGPU': '1', 'resources:CUSTOM_FPGA': '2'})
        self.assertEqual('CUSTOM_FPGA:2,MEMORY_MB:512,VCPU:4,VGPU:1',
                         _params(pq.build_query(spec))['resources'])

    def test_traits(self):
        spec = fakes.fake_spec(extra_specs={
            'trait:CUSTOM_SSD': 'required',
            'trait:HW_CPU_X86_AVX': 'forbidden'})
        self.assertEqual('CUSTOM_SSD,!HW_CPU_X86_AVX',
                         _params(pq.build_query(spec))['required'])

    def test_image_traits(self):
        spec = fakes.fake_spec(image_props={
            'traits_required': 'CUSTOM_A, CUSTOM_B',
            'trait:CUSTOM_C': 'required'})
        self.assertEqual('CUSTOM_A,CUSTOM_B,CUSTOM_C',
                         _params(pq.build_query(spec))['required'])

    def test_dedicated_cpus_ask_for_pcpu(self):
        spec = fakes.fake_spec(vcpus=4, extra_specs={
            'hw:cpu_policy': 'dedicated', 'hw:cpu_thread_policy': 'isolate'})
        params = _params(pq.build_query(spec))
        self.assertIn('PCPU:4', params['resources'])
        self.assertNotIn('VCPU', params['resources'])
        self.assertEqual('!HW_CPU_HYPERTHREADING', params['required'])


class TestGranularGroups(fakes.TestCase):

    def test_numbered_groups_and_policy(self):
        spec = fakes.fake_spec(extra_specs={
            'resources1:SRIOV_NET_VF': '1', 'trait1:CUSTOM_PHYSNET_A':
            'required', 'resources2:SRIOV_NET_VF': '1',
            'group_policy': 'isolate'})
        params = pq.build_query(spec).params()
        self.assertIn(('resources1', 'SRIOV_NET_VF:1'), params)
        self.assertIn(('required1', 'CUSTOM_PHYSNET_A'), params)
        self.assertIn(('resources2', 'SRIOV_NET_VF:1'), params)
        self.assertIn(('group_policy', 'isolate'), params)

    def test_one_numbered_group_needs_no_policy(self):
        spec = fakes.fake_spec(extra_specs={'resources1:VGPU': '1'})
        self.assertNotIn('group_policy', _params(pq.build_query(spec)))

    def test_querystring(self):
        spec = fakes.fake_spec(extra_specs={'resources_gpu:VGPU': '1'})
        text = pq.build_query(spec).to_querystring()
        parsed = urllib.parse.parse_qs(text)
        self.assertEqual(['VGPU:1'], parsed['resources_gpu'])
        self.assertIn('resources=DISK_GB:1,MEMORY_MB:512,VCPU:1', text)


class TestMalformedExtraSpecs(fakes.TestCase):

    def _assert_invalid(self, extra_specs, key, image_props=None):
        spec = fakes.fake_spec(extra_specs=extra_specs,
                               image_props=image_props)
        err = self.assertRaises(exception.InvalidSchedulerRequest,
                                pq.build_query, spec)
        self.assertEqual(key, err.key)
        self.assertIn(key, str(err))

    def test_amount_not_an_integer(self):
        self._assert_invalid({'resources:VCPU': 'abc'}, 'resources:VCPU')

    def test_negative_amount(self):
        self._assert_invalid({'resources1:VGPU': '-1'}, 'resources1:VGPU')

    def test_unknown_resource_class(self):
        self._assert_invalid({'resources:vgpu': '1'}, 'resources:vgpu')

    def test_bad_trait_value(self):
        self._assert_invalid({'trait:CUSTOM_SSD': 'yes'}, 'trait:CUSTOM_SSD')

    def test_bad_trait_name(self):
        self._assert_invalid({'trait:custom-ssd': 'required'},
                             'trait:custom-ssd')

    def test_bad_group_policy(self):
        self._assert_invalid({'group_policy': 'sometimes'}, 'group_policy')

    def test_missing_group_policy(self):
        self._assert_invalid({'resources1:VGPU': '1',
                              'resources2:VGPU': '1'}, 'group_policy')

    def test_traits_without_resources(self):
        self._assert_invalid({'trait3:CUSTOM_X': 'required'}, 'trait3:*')

    def test_bad_cpu_policy(self):
        self._assert_invalid({'hw:cpu_policy': 'fast'}, 'hw:cpu_policy')

    def test_bad_image_trait(self):
        self._assert_invalid({}, 'image traits_required',
                             image_props={'traits_required': ['bad trait']})


class TestDestinationAndLimit(fakes.TestCase):

    def test_destination_aggregates(self):
        spec = fakes.fake_spec(
            requested_destination=objects.RequestSpecDestination(
                aggregates=['a1,a2', 'a3'], forbidden_aggregates=['x']))
        params = pq.build_query(spec).params()
        self.assertIn(('member_of', 'in:a1,a2'), params)
        self.assertIn(('member_of', 'in:a3'), params)
        self.assertIn(('member_of', '!in:x'), params)

    def test_hints_remove_limit(self):
        for hints in ({'group': 'g'}, {'same_host': ['i']},
                      {'different_host': 'i'}):
            spec = fakes.fake_spec(scheduler_hints=hints)
            self.assertNotIn('limit', _params(pq.build_query(spec)))

    def test_forced_host_without_node_removes_limit(self):
        spec = fakes.fake_spec(force_hosts=['h1'])
        self.assertNotIn('limit', _params(pq.build_query(spec)))
        params = _params(pq.build_query(spec, in_tree='cn-uuid'))
        self.assertEqual('cn-uuid', params['in_tree'])
        self.assertEqual('1000', params['limit'])

    def test_str_names_the_endpoint(self):
        self.assertTrue(str(pq.build_query(fakes.fake_spec())).startswith(
            'GET /allocation_candidates?'))
