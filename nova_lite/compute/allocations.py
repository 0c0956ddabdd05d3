"""What a compute reads and drops of its instances' allocations.

A compute never claims: the scheduler or a conductor claimed in placement
before the compute was asked to build, unshelve or take over an instance.
The compute reads that claim to give the driver the resources to spawn
with, and drops it when the instance leaves (a failed build, an
offload, a delete). Builds, rebuilds, live migrations, shelving and
deletes share these rules, so they live in one object each of them is
given, not in one of them.
"""

from oslo_log import log as logging

from nova_lite.clients import claim_release
from nova_lite.clients import placement as placement_client
from nova_lite.virt import exception as virt_exc

LOG = logging.getLogger(__name__)


def _resources(allocations):
    return {rp: {'resources': dict(entry['resources'])}
            for rp, entry in allocations.items()}


class InstanceAllocations:
    """The instance consumers' allocations, through the report client."""

    def __init__(self, reportclient):
        self.reportclient = reportclient

    def claimed(self, instance_uuid, node):
        """The claim to spawn ``instance_uuid`` on ``node`` with.

        ``BuildFailed`` (another host may do) when placement cannot be
        read; ``BuildAbort`` when nothing was claimed, since a compute
        never claims by itself.
        """
        try:
            answer = self.reportclient.get_allocations(instance_uuid)
        except placement_client.PlacementClientError as error:
            raise virt_exc.BuildFailed(
                instance_uuid=instance_uuid, node=node,
                reason='allocations unreadable: %s' % error)
        allocations = answer.get('allocations') or {}
        if not allocations:
            raise virt_exc.BuildAbort(
                instance_uuid=instance_uuid, node=node,
                reason='no allocation in placement (computes never claim)')
        return _resources(allocations)

    def held(self, instance_uuid):
        """What the instance holds now ({} when unreadable, logged)."""
        try:
            answer = self.reportclient.get_allocations(instance_uuid)
        except placement_client.PlacementClientError as error:
            LOG.warning('Allocations of %s unreadable: %s', instance_uuid,
                        error)
            return {}
        return _resources(answer.get('allocations') or {})

    def drop(self, instance_uuid):
        """Delete the instance's allocation; when placement cannot take
        the delete now, it is retried in the background
        (:mod:`nova_lite.clients.claim_release`)."""
        claim_release.release(self.reportclient.client, instance_uuid)
