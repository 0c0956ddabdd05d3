"""Claiming a host's resources in placement for a new instance.

The scheduler claims with ``PUT /allocations/{instance}`` and consumer
generation ``None`` ("this consumer is new"), so two schedulers that picked
the same host for different instances cannot both take the last room:
placement checks capacity and provider generations in one transaction and
answers 409 to the loser. What a 409 means decides what comes next:

- the provider changed under the claim (``placement.concurrent_update``,
  not about the consumer): retry the same candidate a few times
  (``[scheduler] claim_retries``) after a short random pause;
- not enough room any more (another claim won): give up on this host; the
  manager moves on to the next weighed host;
- the consumer already exists (another scheduler claimed for the same
  instance): give up on the instance, moving on cannot help.
"""

import random
import time

from oslo_log import log as logging

from nova_lite.clients import placement as placement_client
from nova_lite import conf as nl_conf

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

# Outcomes of a claim.
CLAIMED = 'claimed'
NO_ROOM = 'no-room'
CONSUMER_EXISTS = 'consumer-exists'


class ClaimStats:
    """Counters of one scheduler's claims (the benchmark reports them)."""

    def __init__(self):
        self.claims = 0
        self.retries = 0
        self.conflicts = 0

    def as_dict(self):
        return {'claims': self.claims, 'retries': self.retries,
                'conflicts': self.conflicts}


def _is_consumer_conflict(error):
    return 'consumer generation' in str(error.detail or '').lower()


def _is_provider_race(error):
    return error.is_generation_conflict and not _is_consumer_conflict(error)


def claim_resources(client, instance_uuid, allocation_request, project_id,
                    user_id, stats=None, retries=None):
    """Claim ``allocation_request`` for ``instance_uuid``; an outcome.

    :param allocation_request: one of placement's candidates, a dict with
        ``allocations`` ({provider uuid: {'resources': {...}}}).
    :returns: :data:`CLAIMED`, :data:`NO_ROOM` or :data:`CONSUMER_EXISTS`.
    :raises PlacementUnreachable: placement does not answer.
    """
    stats = stats or ClaimStats()
    if retries is None:
        retries = CONF.scheduler.claim_retries
    allocations = allocation_request['allocations']
    for attempt in range(retries + 1):
        try:
            client.put_allocations(instance_uuid, allocations, project_id,
                                   user_id, consumer_generation=None)
        except placement_client.PlacementConflict as err:
            stats.conflicts += 1
            if _is_provider_race(err) and attempt < retries:
                stats.retries += 1
                LOG.debug('Claim for %s raced another write, retry %d: %s',
                          instance_uuid, attempt + 1, err.detail)
                time.sleep(random.uniform(0, 0.01 * (attempt + 1)))
                continue
            if _is_consumer_conflict(err):
                LOG.warning('Instance %s already has allocations (claimed by '
                            'another scheduler?): %s', instance_uuid,
                            err.detail)
                return CONSUMER_EXISTS
            LOG.info('Claim for %s refused by placement: %s', instance_uuid,
                     err.detail)
            return NO_ROOM
        except placement_client.PlacementError as err:
            # NOTE(nova_lite): a 400 (provider or class gone meanwhile) is a
            # host that cannot be claimed; try the next one.
            stats.conflicts += 1
            LOG.info('Claim for %s refused by placement: %s', instance_uuid,
                     err)
            return NO_ROOM
        stats.claims += 1
        return CLAIMED
    return NO_ROOM


def claim_on_top_of_existing(client, instance_uuid, allocation_request,
                             project_id, user_id, stats=None, retries=None):
    """Claim ``allocation_request`` *in addition to* what the instance holds.

    An evacuation keeps the instance's allocation on its (dead) source
    while it claims the destination, so the instance consumer holds both
    until the source compute comes back and cleans up (NOVA_FACTS 5.3).
    The consumer exists already: its current allocations and generation
    are read and the merged allocations written with that generation; a
    concurrent write to the same consumer is re-read and retried.

    :returns: :data:`CLAIMED` or :data:`NO_ROOM`.
    """
    stats = stats or ClaimStats()
    if retries is None:
        retries = CONF.scheduler.claim_retries
    for attempt in range(retries + 1):
        current = client.get_allocations(instance_uuid) or {}
        merged = {rp: {'resources': dict(entry.get('resources') or {})}
                  for rp, entry in (current.get('allocations') or
                                    {}).items()}
        for rp, entry in allocation_request['allocations'].items():
            resources = merged.setdefault(rp, {'resources': {}})['resources']
            for rc, amount in entry['resources'].items():
                resources[rc] = resources.get(rc, 0) + amount
        try:
            client.put_allocations(
                instance_uuid, merged, current.get('project_id') or
                project_id, current.get('user_id') or user_id,
                consumer_generation=current.get('consumer_generation'))
        except placement_client.PlacementConflict as err:
            stats.conflicts += 1
            if err.is_generation_conflict and attempt < retries:
                stats.retries += 1
                LOG.debug('Evacuation claim for %s raced another write, '
                          'retry %d: %s', instance_uuid, attempt + 1,
                          err.detail)
                continue
            LOG.info('Evacuation claim for %s refused by placement: %s',
                     instance_uuid, err.detail)
            return NO_ROOM
        except placement_client.PlacementError as err:
            stats.conflicts += 1
            LOG.info('Evacuation claim for %s refused by placement: %s',
                     instance_uuid, err)
            return NO_ROOM
        stats.claims += 1
        LOG.info('Claimed the evacuation destination of %s on top of its '
                 'source allocation', instance_uuid)
        return CLAIMED
    return NO_ROOM


def release(client, instance_uuids):
    """Delete the claims of ``instance_uuids`` (best effort, logged)."""
    for instance_uuid in instance_uuids:
        try:
            client.delete_allocations(instance_uuid)
            LOG.info('Released the claim of instance %s', instance_uuid)
        except placement_client.PlacementNotFound:
            pass
        except placement_client.PlacementClientError as err:
            LOG.warning('Could not release the claim of instance %s: %s',
                        instance_uuid, err)
