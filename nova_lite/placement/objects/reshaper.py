"""Reshape: replace the inventories of several providers and the
allocations of several consumers in one transaction.

Used when inventory moves inside a tree (a root's VGPU to new child
providers) while it is in use. The order inside the transaction matters:

1. the provider generations the caller sent are checked and bumped (any
   mismatch is a 409 and nothing is written);
2. the old allocations of every consumer named go, so inventory they used
   may be removed;
3. the new inventories are written (still refusing to drop or shrink
   below what other consumers use);
4. the new allocations are written with their consumer generation and
   capacity checks, and every other provider touched gets its generation
   bumped, so a claim racing with the reshape is retried on the new shape.
"""

from oslo_log import log as logging
import sqlalchemy as sa

from nova_lite.placement.db import api as db_api
from nova_lite.placement.objects import allocation as alloc_obj
from nova_lite.placement.objects import common
from nova_lite.placement.objects import consumer as consumer_obj
from nova_lite.placement.objects import inventory as inv_obj

LOG = logging.getLogger(__name__)


def _touched(context, inventories, specs):
    touched = set(inventories)
    for spec in specs:
        touched |= set(spec.allocations)
        touched |= alloc_obj._old_provider_uuids(context, spec.consumer_uuid)
    return touched


def _drop_old_allocations(context, specs):
    for spec in specs:
        existing = consumer_obj.find(context, spec.consumer_uuid)
        consumer_obj.check_generation(spec.consumer_uuid, existing,
                                      spec.consumer_generation)
        context.session.execute(sa.delete(common.ALLOC).where(
            common.ALLOC.c.consumer_id == spec.consumer_uuid))


@common.write_transaction
@db_api.writer
def reshape(context, inventories, specs):
    """Apply a reshape atomically.

    :param inventories: {rp uuid: (generation, {rc: inventory dict})}
    :param specs: [allocation.ConsumerAllocations]
    :raises ConcurrentUpdateDetected: a provider generation differs.
    """
    providers = alloc_obj._providers(context,
                                     _touched(context, inventories, specs))
    for rp_uuid, (generation, _) in sorted(inventories.items()):
        rp = providers[rp_uuid]
        common.increment_generation(context, rp.id, rp_uuid, generation)
    _drop_old_allocations(context, specs)
    for rp_uuid, (_, wanted) in sorted(inventories.items()):
        inv_obj._write(context, providers[rp_uuid], wanted, replace_all=True)
    rc_ids = common.rc_ids(context, {
        rc for spec in specs for res in spec.allocations.values()
        for rc in res})
    for spec in specs:
        alloc_obj._write_consumer(context, spec, providers, rc_ids)
    alloc_obj._check_capacity(context, providers, specs)
    for rp_uuid in sorted(set(providers) - set(inventories)):
        rp = providers[rp_uuid]
        common.bump_internal(context, rp.id, rp.uuid, rp.generation)
    LOG.info('Reshaped inventories of %d providers and allocations of %d '
             'consumers', len(inventories), len(specs))
