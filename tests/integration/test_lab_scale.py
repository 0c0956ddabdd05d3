"""A lab of hundreds of fake nodes: stack.sh returns when all are registered.

2 cells x 2 computes x 100 nodes on MariaDB and RabbitMQ: stack.sh waits
until every node has its compute_nodes row and its placement inventory
(``NOVA_LITE_WAIT_NODES``), says the seconds of each step, and shares
``NOVA_LITE_PLACEMENT_INFLIGHT`` among the computes. The 10,000-node form
of this lab is ``tox -e bench -- lab_scale`` (doc/benchmarks.md).
"""

import configparser
import os

from tests.bench import lab_scale
from tests.integration import lab as lab_mod

NODES_PER_COMPUTE = 100


class LabScaleTest(lab_mod.LabTestCase):

    LAB_KWARGS = dict(cells=2, computes_per_cell=2,
                      nodes_per_compute=NODES_PER_COMPUTE,
                      database='mysql', name_prefix='nl_scale')

    @classmethod
    def prepare_lab(cls, lab):
        lab.env.update(NOVA_LITE_PLACEMENT_INFLIGHT='10',
                       NOVA_LITE_PLACEMENT_TIMEOUT='90')
        cls.stack_result = None
        cls._real_stack = lab.stack

        def stack():
            cls.stack_result = cls._real_stack()
            return cls.stack_result
        lab.stack = stack

    def test_every_node_registered_when_stack_returns(self):
        out = self.stack_result.stdout
        self.assertIn('all 400 nodes registered', out)
        # Nothing waited for here: the rows and inventories are there.
        listed, pages = lab_scale.count_hypervisors(self.lab)
        self.assertEqual((400, 1), (listed, pages))
        providers = self.lab.providers()
        self.assertEqual(400, len(providers))
        for rp in providers[:: 37]:
            inventories = self.lab.placement_get(
                '/resource_providers/%s/inventories' % rp['uuid'])
            self.assertIn('VCPU', inventories['inventories'])

    def test_seconds_per_step_are_reported(self):
        steps = dict(lab_scale.phases(self.stack_result.stdout))
        for step in ('schemas and cell mappings', 'starting services',
                     'waiting for every node to register (rows and '
                     'placement inventories)'):
            self.assertIn(step, steps)
        self.assertTrue(all(seconds >= 0 for seconds in steps.values()))

    def test_computes_share_the_placement_requests_in_flight(self):
        for hosts in self.lab.computes.values():
            for host in hosts:
                conf = configparser.ConfigParser(strict=False,
                                                 interpolation=None)
                conf.read(os.path.join(self.lab.state, 'etc',
                                       host + '.conf'))
                # 10 in flight over 4 computes: 2 each.
                self.assertEqual('2', conf['placement'][
                    'max_parallel_requests'])
                self.assertEqual('90', conf['placement']['timeout'])
