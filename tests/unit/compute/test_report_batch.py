"""Many provider trees flushed at once (``ReportClient.flush_many``).

Against an in-process placement: every request is recorded, so each test
states how many round trips a batch took, and then reads placement back.
"""

import fixtures
import testtools

from nova_lite.clients import placement as placement_client
from nova_lite.clients import report
from nova_lite.clients import report_batch
from nova_lite.provider_tree import diff
from nova_lite.provider_tree import tree as pt
from nova_lite.testing import placement_fixture
from nova_lite import testing
from tests.functional.compute import base
from tests.unit.compute import test_report_client as helpers


def _uuid(i):
    return '3c1e0a2b-6a1c-4d47-9a57-0b3f4a1c%04d' % i


def wanted(i, vcpus=8, child=False):
    tree = pt.ProviderTree()
    tree.new_root('node%d' % i, _uuid(i))
    tree.update_inventory(_uuid(i), {'VCPU': helpers.record(vcpus),
                                     'MEMORY_MB': helpers.record(4096, 512)})
    tree.update_traits(_uuid(i), {'COMPUTE_NODE'})
    if child:
        tree.new_child('node%d_pgpu0' % i, _uuid(i), uuid=_uuid(1000 + i))
        tree.update_inventory(_uuid(1000 + i), {'VGPU': helpers.record(4)})
    return tree


class FlushManyTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(testing.ConfFixture())
        self.placement = self.useFixture(placement_fixture.PlacementFixture())
        self.client = self.placement.client
        self.other = self.placement.client_for('admin')
        self.log = base.RequestLog(self.client)
        self.report = report.ReportClient(self.client, concurrency=4)

    def _jobs(self, count, **kwargs):
        return [report_batch.FlushJob(i, pt.ProviderTree(), wanted(i,
                                                                   **kwargs))
                for i in range(count)]

    def _registered(self, count):
        jobs = self._jobs(count)
        self.report.flush_many(jobs)
        self.log.clear()
        return jobs

    def _assert_placement_holds(self, jobs):
        for job in jobs:
            self.assertIsNone(job.error)
            read_back = self.report.read_tree(_uuid(job.key))
            self.assertTrue(diff.diff_trees(read_back, job.wanted).is_empty,
                            job.key)
            # The flushed tree says what placement holds, generations too.
            self.assertTrue(diff.diff_trees(job.flushed, job.wanted).is_empty)
            for rp_uuid in read_back.get_provider_uuids():
                self.assertEqual(read_back.data(rp_uuid).generation,
                                 job.flushed.data(rp_uuid).generation)

    def test_new_trees_take_two_requests_per_node_and_one_batch(self):
        jobs = self._jobs(10)
        writes = self.report.flush_many(jobs)
        self.assertEqual(10, self.log.writes.count(
            ('POST', '/resource_providers')))
        self.assertEqual(1, self.log.writes.count(('POST', '/reshaper')))
        traits = [w for w in self.log.writes if w[1].endswith('/traits')]
        self.assertEqual(10, len(traits))
        self.assertEqual(21, len(self.log.writes))
        self.assertEqual(21, writes)
        # One listing learns the generations the batch left.
        self.assertEqual([('GET', '/resource_providers')], self.log.reads)
        body = self.log.bodies[self.log.writes.index(('POST', '/reshaper'))]
        self.assertEqual({_uuid(i) for i in range(10)},
                         set(body['inventories']))
        self.assertEqual({}, body['allocations'])
        self._assert_placement_holds(jobs)

    def test_unchanged_trees_send_nothing(self):
        jobs = self._registered(5)
        again = [report_batch.FlushJob(j.key, j.flushed, wanted(j.key))
                 for j in jobs]
        self.assertEqual(0, self.report.flush_many(again))
        self.assertEqual([], self.log.requests)

    def test_children_are_created_after_their_parent(self):
        jobs = self._jobs(4, child=True)
        self.report.flush_many(jobs)
        self._assert_placement_holds(jobs)
        body = self.log.bodies[self.log.writes.index(('POST', '/reshaper'))]
        self.assertEqual(8, len(body['inventories']))

    def test_batches_are_bounded(self):
        self.useFixture(fixtures.MockPatchObject(report_batch,
                                                 'RESHAPE_BATCH', 4))
        jobs = self._registered(10)
        changed = [report_batch.FlushJob(j.key, j.flushed,
                                         wanted(j.key, vcpus=16))
                   for j in jobs]
        self.assertEqual(3, self.report.flush_many(changed))
        self.assertEqual([('POST', '/reshaper')] * 3, self.log.writes)
        self.assertEqual(1, len(self.log.reads))
        self._assert_placement_holds(changed)

    def test_few_inventory_changes_are_written_one_by_one(self):
        jobs = self._registered(5)
        changed = [report_batch.FlushJob(j.key, j.flushed,
                                         wanted(j.key, vcpus=16))
                   for j in jobs[:2]]
        self.assertEqual(2, self.report.flush_many(changed))
        self.assertEqual(
            sorted(('PUT', '/resource_providers/%s/inventories' % _uuid(i))
                   for i in range(2)), sorted(self.log.requests))
        self._assert_placement_holds(changed)

    def test_refused_batch_falls_back_per_provider(self):
        jobs = self._registered(5)
        # An operator's trait moves the generation of node 3 behind the
        # compute's back: the batch is refused as a whole (409), each
        # provider is then written on its own, node 3 after a re-read
        # that keeps the operator's trait.
        self.other.ensure_trait('CUSTOM_OPERATOR')
        current = self.other.get_traits(_uuid(3))
        self.other.set_traits(_uuid(3),
                              current['resource_provider_generation'],
                              current['traits'] + ['CUSTOM_OPERATOR'])

        def rebuild_for(key):
            def rebuild(fresh):
                tree = fresh.copy()
                tree.update_inventory(_uuid(key), wanted(
                    key, vcpus=16).data(_uuid(key)).inventory)
                return tree
            return rebuild

        changed = []
        for job in jobs:
            rebuild = rebuild_for(job.key)
            changed.append(report_batch.FlushJob(
                job.key, job.flushed, rebuild(job.flushed), rebuild))
        self.report.flush_many(changed)
        self.assertEqual(1, self.log.writes.count(('POST', '/reshaper')))
        puts = [w for w in self.log.writes if w[1].endswith('/inventories')]
        self.assertEqual(6, len(puts))
        for job in changed:
            self.assertIsNone(job.error)
            self.assertEqual(16, self.client.get_inventories(
                _uuid(job.key))['inventories']['VCPU']['total'])
        self.assertIn('CUSTOM_OPERATOR',
                      self.client.get_traits(_uuid(3))['traits'])

    def test_provider_changed_after_the_batch_is_reread(self):
        jobs = self._registered(4)
        changed = [report_batch.FlushJob(j.key, j.flushed,
                                         wanted(j.key, vcpus=16))
                   for j in jobs]
        real_request = self.client.request

        def listing_after_an_operator(method, path, *args, **kwargs):
            if (method, path) == ('GET', '/resource_providers'):
                self.other.set_aggregates(
                    _uuid(2), self.other.get_provider(
                        _uuid(2))['generation'], [helpers.AGG])
            return real_request(method, path, *args, **kwargs)
        self.client.request = listing_after_an_operator
        self.report.flush_many(changed)
        self.client.request = real_request
        # Node 2's generation was not the one the batch left: it was
        # re-read (the operator's aggregate seen), and the same flush
        # then removed that aggregate, which this compute does not want.
        self.assertIn(('GET', '/resource_providers/%s/aggregates' % _uuid(2)),
                      self.log.reads)
        self.assertNotIn(
            ('GET', '/resource_providers/%s/aggregates' % _uuid(1)),
            self.log.reads)
        self.assertEqual(
            [('POST', '/reshaper'),
             ('PUT', '/resource_providers/%s/aggregates' % _uuid(2))],
            self.log.writes)
        self._assert_placement_holds(changed)

    def test_outage_stops_the_jobs_not_started(self):
        self.client.session.mount('http://', base.DeadAdapter())
        self.client.connect_retries = 0
        jobs = self._jobs(20)
        self.assertEqual(0, self.report.flush_many(jobs))
        for job in jobs:
            self.assertIsInstance(job.error,
                                  placement_client.PlacementUnreachable)
        # At most one attempt per worker, not one per node.
        self.assertLessEqual(len(self.log.requests), 4)

    def test_a_bad_tree_fails_alone(self):
        jobs = self._registered(4)
        changed = [report_batch.FlushJob(j.key, j.flushed,
                                         wanted(j.key, vcpus=16))
                   for j in jobs]
        # Reserved above total: placement refuses that node's inventory
        # (the batch first, then the node's own write), not the others'.
        bad = changed[1].wanted
        bad.update_inventory(_uuid(1), {'VCPU': helpers.record(4, 8)})
        self.report.flush_many(changed)
        self.assertIsInstance(changed[1].error,
                              placement_client.PlacementError)
        for job in changed[:1] + changed[2:]:
            self.assertIsNone(job.error)
            self.assertEqual(16, self.client.get_inventories(
                _uuid(job.key))['inventories']['VCPU']['total'])
