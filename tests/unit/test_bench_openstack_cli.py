"""How the benches read ``openstack hypervisor list``: its table, the
py-spy shares of its CPU, the requests it sent and the lab's CPU."""

import testtools

from tests.bench import hypervisor_list
from tests.bench import lab_scale
from tests.bench import openstack_cli

TABLE = """\
+--------------------------------------+---------------------+-------+
| ID                                   | Hypervisor Hostname | State |
+--------------------------------------+---------------------+-------+
| a7c3983f-1224-40f5-a56e-416c183880a4 | compute1            | up    |
| 297bcb72-81b3-4c5b-85d3-42f9f8620581 | compute2            | up    |
+--------------------------------------+---------------------+-------+
"""


class TestTable(testtools.TestCase):
    def test_ids_of_the_rows_without_header_or_rules(self):
        self.assertEqual(['a7c3983f-1224-40f5-a56e-416c183880a4',
                          '297bcb72-81b3-4c5b-85d3-42f9f8620581'],
                         openstack_cli.table_ids(TABLE))

    def test_no_table_no_ids(self):
        self.assertEqual([], openstack_cli.table_ids(''))


class TestPerRow(testtools.TestCase):
    def test_cpu_past_the_start_up_run_shared_by_the_other_rows(self):
        self.assertEqual(0.5, openstack_cli.per_row_ms(5.7, 0.7, 10001))

    def test_too_few_rows_give_no_per_row_cost(self):
        # The start-up run cost more than the whole 2-row listing.
        self.assertIsNone(openstack_cli.per_row_ms(0.93, 1.12, 2))


class TestShares(testtools.TestCase):
    def test_first_share_found_in_a_stack_names_it(self):
        raw = [
            '<module> (openstack:8);TableFormatter.emit_list (cliff/f.py:1);'
            'Resource.list (openstack/resource.py:2);'
            'Session.request (keystoneauth1/session.py:3);'
            'JSONDecoder.raw_decode (json/decoder.py:4) 2\n',
            '<module> (openstack:8);TableFormatter.emit_list (cliff/f.py:1);'
            'Resource.existing (openstack/resource.py:5) 5\n',
            '<module> (openstack:8);TableFormatter.emit_list (cliff/f.py:1)'
            ' 1\n',
            '<module> (openstack:8);_find_and_load (<frozen>:1) 1\n',
            '<module> (openstack:8) 1\n',
            '\n',
        ]
        self.assertEqual({'sdk_resources': 50.0, 'json_decode': 20.0,
                          'table_output': 10.0, 'imports': 10.0,
                          'other': 10.0},
                         openstack_cli.shares(raw))


class TestRequestCounts(testtools.TestCase):
    def test_pages_apart_from_version_discovery(self):
        paths = ['/v2.1', '/v2.1/os-hypervisors/detail',
                 '/v2.1/os-hypervisors/detail?marker=a']
        self.assertEqual({'http_requests': 3, 'pages': 2,
                          'other_requests': ['/v2.1']},
                         hypervisor_list._request_counts(paths))


class TestLabCpu(testtools.TestCase):
    def test_delta_by_kind_scaled(self):
        first = {'compute': {'cpu_s': 1.0}}
        second = {'compute': {'cpu_s': 1.5}, 'api': {'cpu_s': 0.25}}
        self.assertEqual({'compute': 1.0, 'api': 0.5},
                         lab_scale._cpu_delta(first, second, 2.0))
