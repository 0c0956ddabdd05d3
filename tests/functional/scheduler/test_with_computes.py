"""select_destinations over hosts reported by real computes.

Two cells, each with its cell conductor and one compute running the fake
driver (two nodes, the first with a physical GPU child provider carrying
VGPU), all in one process on ``fake://`` with placement in-process. The
computes write their ``services``/``compute_nodes`` rows through their
conductor and their provider trees to placement, as in a real cloud; the
scheduler only reads them.
"""

import uuid

from nova_lite import exception
from nova_lite import testing
from tests.functional.scheduler import test_select_destinations as base


class WithComputesTestCase(base.SchedulerFunctionalBase):

    def setUp(self):
        super().setUp()
        self.conf.flags(compute_driver='fake.FakeDriver')
        self.conf.flags(connect_retries=0, group='placement')
        self.conf.flags(nodes='2', nested_nodes='1', pgpus=1,
                        vgpus_per_pgpu=2, vgpu_on_children=True,
                        group='fake_driver')
        for cell_name, host in (('cell1', 'cmp1'), ('cell2', 'cmp2')):
            cell = self.dbs.cells[cell_name]
            testing.start_service(self, 'conductor', host='cond-' + host,
                                  cell=cell)
            service = testing.make_service('compute', host=host, cell=cell)
            # NOTE(sched): the compute's in-process placement client
            # (set under both attribute names; both are harmless).
            service.manager.placement_client = self.placement
            service.manager._placement = self.placement
            service.start()
            self.addCleanup(service.stop)

    def test_claims_and_alternates_on_reported_nodes(self):
        insts = [str(uuid.uuid4()), str(uuid.uuid4())]
        result = self.select(self.spec(), insts)
        for inst, sels in zip(insts, result, strict=True):
            self.assertEqual(
                {sels[0].compute_node_uuid},
                set(self.allocations(inst)))
            self.assertEqual(1, len({s.cell_uuid for s in sels}))
            self.assertIn(sels[0].service_host, ('cmp1', 'cmp2'))
            self.assertTrue(sels[0].nodename.startswith(
                sels[0].service_host + '-node-'))

    def test_vgpu_goes_to_the_gpu_child_of_node_0(self):
        inst = str(uuid.uuid4())
        (sels,) = self.select(self.spec({'resources:VGPU': '1'}), [inst])
        self.assertTrue(sels[0].nodename.endswith('-node-0'))
        allocs = self.allocations(inst)
        (child,) = [rp for rp in allocs if rp != sels[0].compute_node_uuid]
        self.assertEqual({'VGPU': 1}, allocs[child]['resources'])
        self.assertEqual(sels[0].compute_node_uuid,
                         self.placement.get_provider(child)[
                             'root_provider_uuid'])

    def test_more_vgpus_than_any_gpu_has(self):
        err = self.assertRaises(exception.NoValidHost, self.select,
                                self.spec({'resources:VGPU': '3'}),
                                [str(uuid.uuid4())])
        self.assertIn('VGPU:3', err.kwargs['placement_query'])
