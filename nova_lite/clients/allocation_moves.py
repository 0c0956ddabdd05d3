"""Moving allocations between consumers, as move operations need them.

During a cold migrate, resize or live migration the *migration* record's
uuid is a placement consumer that holds the instance's source allocation,
while the instance consumer claims the destination (see
../shared/ARCHITECTURE.md "Move operations"). Every step here is one
placement write checked by consumer generations, so two services racing on
one consumer cannot both win:

* :func:`move_allocations` replaces the target consumer's allocations with
  the source consumer's and empties the source, in one ``POST
  /allocations`` (migration <- instance before a move, instance <-
  migration on revert or on a failed move);
* :func:`remove_providers_from_allocation` drops the part of a consumer's
  allocation on some providers (an evacuated instance's source node, a
  rejected live-migration destination);
* :func:`add_allocation` merges more resources into a consumer's
  allocation (a forced evacuation destination, heal_allocations).

A 409 about a consumer generation is re-read and retried a few times; a
409 about capacity is raised, nothing having been written.
"""

from oslo_log import log as logging

from nova_lite.clients import placement as placement_client

LOG = logging.getLogger(__name__)

CONSUMER_RETRIES = 4
MIGRATION = 'MIGRATION'
INSTANCE = 'INSTANCE'


class ConsumerAllocation:
    """What placement holds for one consumer (empty when unknown)."""

    def __init__(self, uuid, body):
        body = body or {}
        self.uuid = uuid
        self.allocations = {
            rp: {'resources': dict(entry.get('resources') or {})}
            for rp, entry in (body.get('allocations') or {}).items()}
        self.generation = body.get('consumer_generation')
        self.project_id = body.get('project_id')
        self.user_id = body.get('user_id')
        self.consumer_type = body.get('consumer_type')

    @property
    def exists(self):
        return bool(self.allocations)

    def body(self, allocations, project_id=None, user_id=None,
             consumer_type=None):
        """A ``POST /allocations`` entry writing ``allocations``."""
        return {'allocations': allocations,
                'project_id': project_id or self.project_id,
                'user_id': user_id or self.user_id,
                'consumer_generation': self.generation,
                'consumer_type': consumer_type or self.consumer_type or
                INSTANCE}


def read(client, consumer_uuid):
    """The :class:`ConsumerAllocation` of ``consumer_uuid``."""
    return ConsumerAllocation(consumer_uuid,
                              client.get_allocations(consumer_uuid))


def _is_consumer_race(error):
    return 'consumer generation' in str(error.detail or '').lower() or (
        'consumer' in str(error.detail or '').lower() and
        error.code == 'placement.concurrent_update')


def _retrying(what, write):
    """Run ``write()`` again while it loses a consumer-generation race."""
    for attempt in range(CONSUMER_RETRIES + 1):
        try:
            return write()
        except placement_client.PlacementConflict as error:
            if not _is_consumer_race(error) or attempt == CONSUMER_RETRIES:
                raise
            LOG.debug('%s raced another writer, retry %d: %s', what,
                      attempt + 1, error.detail)
    return None


def move_allocations(client, source_uuid, target_uuid, target_type=None,
                     project_id=None, user_id=None):
    """Give ``target_uuid`` the allocation of ``source_uuid``; True when
    there was something to move.

    The target's own allocation, if any, is replaced (a revert overwrites
    the instance's destination claim with its source allocation). The
    source ends with no allocation. ``target_type`` is the consumer type
    of the target (``MIGRATION`` when a migration takes the source over).
    """
    def write():
        source = read(client, source_uuid)
        if not source.exists:
            return False
        target = read(client, target_uuid)
        body = {
            source_uuid: source.body({}),
            target_uuid: target.body(
                source.allocations,
                project_id=project_id or source.project_id,
                user_id=user_id or source.user_id,
                consumer_type=target_type or target.consumer_type),
        }
        client.post_allocations(body)
        return True

    moved = _retrying('Moving allocations %s -> %s' % (source_uuid,
                                                       target_uuid), write)
    if moved:
        LOG.info('Moved the allocation of consumer %s to %s', source_uuid,
                 target_uuid)
    else:
        LOG.info('Consumer %s has no allocation to move to %s',
                 source_uuid, target_uuid)
    return moved


def remove_providers_from_allocation(client, consumer_uuid,
                                     provider_uuids):
    """Drop what ``consumer_uuid`` holds on ``provider_uuids``; True when
    something was removed. The consumer's other allocations stay."""
    drop = set(provider_uuids)

    def write():
        current = read(client, consumer_uuid)
        keep = {rp: entry for rp, entry in current.allocations.items()
                if rp not in drop}
        if len(keep) == len(current.allocations):
            return False
        client.post_allocations({consumer_uuid: current.body(keep)})
        return True

    removed = _retrying('Trimming allocations of %s' % consumer_uuid,
                        write)
    if removed:
        LOG.info('Removed the allocation of consumer %s on %s',
                 consumer_uuid, ', '.join(sorted(drop)))
    return removed


def add_allocation(client, consumer_uuid, allocations, project_id,
                   user_id, consumer_type=INSTANCE):
    """Merge ``allocations`` ({rp: {'resources': {...}}}) into what the
    consumer holds (amounts on a provider it already uses are added)."""
    def write():
        current = read(client, consumer_uuid)
        merged = {rp: {'resources': dict(entry['resources'])}
                  for rp, entry in current.allocations.items()}
        for rp, entry in allocations.items():
            resources = merged.setdefault(rp, {'resources': {}})[
                'resources']
            for rc, amount in entry['resources'].items():
                resources[rc] = resources.get(rc, 0) + amount
        client.post_allocations({consumer_uuid: current.body(
            merged, project_id=project_id, user_id=user_id,
            consumer_type=consumer_type)})

    _retrying('Adding to the allocation of %s' % consumer_uuid, write)
    LOG.info('Added to the allocation of consumer %s on %s', consumer_uuid,
             ', '.join(sorted(allocations)))


def give_back_source(client, migration_uuid, instance_uuid,
                     instance_gone=False):
    """End a failed or reverted move: the migration's source allocation
    returns to the instance (replacing any destination claim); True when
    placement now matches. When the instance was deleted meanwhile
    (``instance_gone``) the migration's allocation is deleted instead, so
    a rollback never re-creates an allocation for a deleted instance.
    Failures are logged, not raised: the caller is already on an error
    path."""
    try:
        if instance_gone:
            delete_allocation(client, migration_uuid)
            delete_allocation(client, instance_uuid)
        else:
            move_allocations(client, migration_uuid, instance_uuid,
                             target_type=INSTANCE)
    except placement_client.PlacementClientError as error:
        LOG.error('Allocation of migration %s not given back to instance '
                  '%s: %s', migration_uuid, instance_uuid, error)
        return False
    return True


def delete_allocation(client, consumer_uuid):
    """Remove every allocation of the consumer; False when it had none."""
    try:
        client.delete_allocations(consumer_uuid)
    except placement_client.PlacementNotFound:
        return False
    LOG.info('Deleted the allocation of consumer %s', consumer_uuid)
    return True
