"""A large GET /allocation_candidates answer leaves no work for the cyclic
garbage collector: the collector is paused while the answer is built
(thousands of small acyclic containers), and the answer is freed before
it comes back, so the collection its allocations trigger next does not
walk it (that collection was about a tenth of such a request's time at
1,000 providers)."""

import gc

import webob

from nova_lite.placement.objects import tree_reads
from tests.functional.placement import statement_case


class TestCandidatesCollector(statement_case.PlacementStatementTestCase):

    microversion = '1.36'

    def test_large_answer_triggers_no_collection(self):
        computes = [self._provider('cn%d' % i,
                                   {'VCPU': 8, 'MEMORY_MB': 1024,
                                    'DISK_GB': 100})
                    for i in range(150)]
        path = ('/allocation_candidates?'
                'resources=VCPU:1,MEMORY_MB:64,DISK_GB:1')
        walked = []

        def watch(phase, info):
            # What a collection starting now walks: the young objects.
            if phase == 'start':
                walked.append(sum(
                    isinstance(o, tree_reads.Provider)
                    for o in gc.get_objects(generation=0)))

        # The first request also fills the process's statement caches.
        self.assertEqual(150, len(self._call('GET', path)[
            'allocation_requests']))
        self.assertTrue(gc.isenabled())
        gc.collect()
        gc.callbacks.append(watch)
        try:
            response = webob.Request.blank(
                path, headers=self.headers).get_response(self.app)
        finally:
            gc.callbacks.remove(watch)
        self.assertEqual(200, response.status_int)
        self.assertEqual(set(computes),
                         set(response.json['provider_summaries']))
        self.assertEqual([0] * len(walked), walked)
        self.assertTrue(gc.isenabled())
