"""NoValidHost explanations."""

from nova_lite import exception
from nova_lite.objects import instance_fault
from nova_lite.scheduler import explain
from nova_lite.scheduler import filters
from nova_lite.scheduler import placement_query as pq
from tests.unit.scheduler import fakes


class TestExplain(fakes.TestCase):

    def test_no_candidates_keeps_the_query_for_admins(self):
        """A member's fault does not show the placement query;
        it travels with the exception into the (admin-only) details."""
        query = pq.build_query(fakes.fake_spec(
            extra_specs={'trait:CUSTOM_SSD': 'required'}))
        text = explain.explain_no_candidates()
        self.assertIn('Placement returned no allocation candidates', text)
        err = explain.no_valid_host(text, query)
        self.assertNotIn('CUSTOM_SSD', str(err))
        self.assertIn('required=CUSTOM_SSD', err.kwargs['placement_query'])
        values = instance_fault.fault_values('u', err)
        self.assertNotIn('allocation_candidates', values['message'])
        self.assertIn('required=CUSTOM_SSD', values['details'])

    def test_filters_in_order_with_counts(self):
        handler = filters.FilterHandler(['ComputeFilter',
                                         'ServerGroupAntiAffinityFilter'])
        spec = fakes.fake_spec(instance_group=fakes.group(
            'anti-affinity', members=['i1', 'i2']))
        hosts = [fakes.fake_host('h1', instances=['i1']),
                 fakes.fake_host('h2', instances=['i2']),
                 fakes.fake_host('h3', service={'disabled': True})]
        result = handler.get_filtered_hosts(hosts, spec)
        text = explain.explain_filtered(4, 3, result,
                                        instance_index=3, num_instances=4)
        self.assertIn('Placement returned 4 allocation candidates on 3 '
                      'hosts; for instance 4 of 4', text)
        self.assertNotIn('allocation_candidates?', text)
        self.assertIn('for instance 4 of 4', text)
        self.assertIn('filters: ComputeFilter removed 1 of 3 hosts, '
                      'ServerGroupAntiAffinityFilter removed 2 of 2 hosts '
                      '(none left).', text)
        err = explain.no_valid_host(text)
        self.assertIsInstance(err, exception.NoValidHost)
        self.assertIn('ServerGroupAntiAffinityFilter', str(err))

    def test_invalid_request_names_the_key(self):
        err = exception.InvalidSchedulerRequest('resources:VCPU', 'bad')
        self.assertEqual('The request is invalid: resources:VCPU: bad.',
                         explain.explain_invalid_request(err))

    def test_not_enough_hosts(self):
        self.assertIn('3 instances requested, 2 placed',
                      explain.explain_not_enough_hosts(3, 2))

    def test_singular(self):
        step = filters.FilterStep('ComputeFilter', 1, 0)
        self.assertEqual('filters: ComputeFilter removed 1 of 1 host '
                         '(none left)', explain.describe_steps([step]))
