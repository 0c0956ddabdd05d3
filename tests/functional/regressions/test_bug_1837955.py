"""Bug 1837955: the claim on the alternate host fails during a reschedule.

The first host's build fails; when the cell conductor claims the
alternate, another consumer has taken its room. The server must end in
ERROR with a fault that says the retries ran out and keeps why the build
failed, and nothing may stay allocated once it is deleted
(NOVA_FACTS §8.3 scenarios 5 and 7).
"""

import fixtures

from nova_lite.conductor.tasks import common as task_common
from tests.functional import test_servers


class BuildRescheduleClaimFailsTestCase(test_servers.ServersTestBase):

    def test_build_reschedule_alt_host_alloc_fails(self):
        """5/7: the alternate is full when the cell conductor claims it:
        ERROR, the fault keeps why, nothing leaked after the delete."""
        self.fail_first_spawn()
        real_claim = task_common.claim_alternate
        fillers = []

        def fill_then_claim(placement, instance_uuid, selection, *args):
            fillers.extend(test_servers.fill_provider(placement,
                                         selection.compute_node_uuid))
            return real_claim(placement, instance_uuid, selection, *args)

        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.conductor.tasks.common.claim_alternate',
            fill_then_claim))
        server = self.boot('ERROR')
        message = server['fault']['message']
        self.assertIn('Exceeded maximum number of retries', message)
        self.assertIn('first spawn fails', message)
        self.assertTrue(fillers)
        self.delete_and_check_no_allocations(server['id'])
        for filler in fillers:
            self.cloud.placement.client.delete_allocations(filler)
        for node in ('host1-node-0', 'host2-node-0'):
            self.assertEqual(test_servers.ZERO, self.usage(node))
