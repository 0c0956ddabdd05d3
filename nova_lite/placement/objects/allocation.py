"""Allocations: what consumers hold on providers, and the capacity check.

A write replaces every allocation of each consumer it names, in one
transaction: consumer generations are checked (1.28+), old allocations go,
new ones are checked against ``(total - reserved) * allocation_ratio``,
``min_unit``, ``max_unit`` and ``step_size``, and the generation of every
provider allocated from is bumped with a conditional UPDATE. A concurrent
writer on the same provider makes that UPDATE miss; the whole transaction
then runs again on a fresh snapshot (``common.write_transaction``), so capacity
is never over-committed and callers only see 409s that mean something.
"""

import dataclasses

from oslo_log import log as logging
import sqlalchemy as sa

from nova_lite.placement.db import api as db_api
from nova_lite.placement.db import models
from nova_lite.placement import exception
from nova_lite.placement.objects import common
from nova_lite.placement.objects import consumer as consumer_obj
from nova_lite.placement.objects import inventory as inv_obj
from nova_lite.placement.objects import resource_provider as rp_obj

LOG = logging.getLogger(__name__)

ALLOC = common.ALLOC
RP = common.RP
CONSUMER = common.CONSUMER


@dataclasses.dataclass
class ConsumerAllocations:
    """The wanted allocations of one consumer ({rp uuid: {rc: amount}})."""
    consumer_uuid: str
    allocations: dict
    project_id: str = consumer_obj.INCOMPLETE_PROJECT
    user_id: str = consumer_obj.INCOMPLETE_USER
    consumer_generation: object = consumer_obj.UNSET
    consumer_type: str | None = None


def _rows_for(context, where):
    return context.session.execute(
        sa.select(ALLOC.c.consumer_id, ALLOC.c.used, ALLOC.c.created_at,
                  ALLOC.c.updated_at, RP.c.uuid.label('rp_uuid'),
                  RP.c.generation, common.RC.c.name.label('rc_name'))
        .select_from(ALLOC.join(RP, ALLOC.c.resource_provider_id == RP.c.id)
                     .join(common.RC,
                           ALLOC.c.resource_class_id == common.RC.c.id))
        .where(where)).all()


def _latest(rows):
    stamps = [r.updated_at or r.created_at for r in rows]
    stamps = [s for s in stamps if s is not None]
    return max(stamps) if stamps else None


@db_api.reader
def get_for_consumer(context, consumer_uuid):
    """(consumer or None, {rp uuid: {generation, resources}}, modified)."""
    rows = _rows_for(context, ALLOC.c.consumer_id == consumer_uuid)
    result = {}
    for row in rows:
        entry = result.setdefault(row.rp_uuid, {
            'generation': row.generation, 'resources': {}})
        entry['resources'][row.rc_name] = row.used
    return consumer_obj.find(context, consumer_uuid), result, _latest(rows)


@db_api.reader
def get_for_provider(context, rp_uuid):
    """(provider, {consumer uuid: {resources, consumer_generation}},
    modified)."""
    rp = rp_obj.find(context, rp_uuid)
    rows = _rows_for(context, ALLOC.c.resource_provider_id == rp.id)
    result = {}
    for row in rows:
        entry = result.setdefault(row.consumer_id, {'resources': {}})
        entry['resources'][row.rc_name] = row.used
    generations = dict(context.session.execute(
        sa.select(CONSUMER.c.uuid, CONSUMER.c.generation).where(
            CONSUMER.c.uuid.in_(list(result)))).all()) if result else {}
    for consumer_uuid, entry in result.items():
        entry['consumer_generation'] = generations.get(consumer_uuid)
    return rp, result, _latest(rows)


# Built once (see common._BUMP).
_PROVIDERS = sa.select(RP.c.id, RP.c.uuid, RP.c.generation).where(
    RP.c.uuid.in_(sa.bindparam('uuids', expanding=True)))
_DELETE_OF_CONSUMER = sa.delete(ALLOC).where(
    ALLOC.c.consumer_id == sa.bindparam('consumer_uuid'))
_INSERT = sa.insert(ALLOC)


def _providers(context, uuids, order=None):
    """{uuid: row}; a missing one is NotFound: all of them, or with
    ``order`` the first in it (Placement names the first of the body)."""
    rows = context.session.execute(_PROVIDERS,
                                   {'uuids': sorted(uuids)}).all()
    found = {r.uuid: r for r in rows}
    missing = set(uuids) - set(found)
    if missing:
        first = [u for u in order or () if u in missing][:1]
        raise exception.ResourceProviderNotFound(
            uuid=', '.join(first or sorted(missing)))
    return found


def _check_constraints(rp_uuid, rc, amount, inventories):
    if rc not in inventories:
        raise exception.InvalidInventory(
            reason="Inventory for '%s' on resource provider '%s' invalid."
                   % (rc, rp_uuid),
            message="Unable to allocate inventory: Inventory for '%s' on "
                    "resource provider '%s' invalid." % (rc, rp_uuid))
    inv = inventories[rc]
    if amount < inv['min_unit'] or amount > inv['max_unit'] or (
            amount % inv['step_size']):
        # Placement's words; which bound is broken it leaves to the log.
        LOG.debug('Amount %d of %s on %s violates min_unit %d, max_unit %d '
                  'or step_size %d.', amount, rc, rp_uuid, inv['min_unit'],
                  inv['max_unit'], inv['step_size'])
        raise exception.AllocationConstraintsViolated(
            reason="Unable to create allocation for '%s' on resource "
                   "provider '%s'. The requested amount would violate "
                   "inventory constraints." % (rc, rp_uuid))


def _check_capacity(context, providers, specs):
    """Check the new allocations (the old ones of the consumers written
    are already replaced) one by one in the body's order, as Placement
    does, so the first one refused is the one it names: its unit
    constraints, then the capacity against the usage before the write plus
    what the body asked of that class so far."""
    by_id = inv_obj.inventories_and_usage(
        context, [rp.id for rp in providers.values()])
    inventories = {u: by_id[rp.id][0] for u, rp in providers.items()}
    usage = {u: by_id[rp.id][1] for u, rp in providers.items()}
    wanted = _sum_by_provider(specs)
    asked = {}
    for spec in specs:
        for rp_uuid, resources in spec.allocations.items():
            for rc, amount in resources.items():
                _check_constraints(rp_uuid, rc, amount, inventories[rp_uuid])
                asked[rp_uuid, rc] = asked.get((rp_uuid, rc), 0) + amount
                before = usage[rp_uuid].get(rc, 0) - wanted[rp_uuid][rc]
                inv = inventories[rp_uuid][rc]
                if before + asked[rp_uuid, rc] > inv_obj.capacity(inv):
                    raise exception.CapacityExceeded(
                        requested=amount, resource_class=rc, uuid=rp_uuid)


def _old_provider_uuids(context, consumer_uuid):
    rows = context.session.execute(
        sa.select(RP.c.uuid).select_from(
            ALLOC.join(RP, ALLOC.c.resource_provider_id == RP.c.id))
        .where(ALLOC.c.consumer_id == consumer_uuid).distinct()).all()
    return {r.uuid for r in rows}


def _insert_allocations(context, spec, providers, rc_ids):
    now = models.utcnow()
    values = [{'resource_provider_id': providers[rp_uuid].id,
               'consumer_id': spec.consumer_uuid,
               'resource_class_id': rc_ids[rc], 'used': amount,
               'created_at': now}
              for rp_uuid, resources in spec.allocations.items()
              for rc, amount in resources.items() if amount]
    if values:
        context.session.execute(_INSERT, values)
    return bool(values)


def checked_consumer(context, spec):
    """(the consumer of ``spec`` or None, the ids of its project and user)
    once its generation is checked: read once per write, in one
    statement, and handed to :func:`_write_consumer`."""
    existing, owners = consumer_obj.find_for_write(
        context, spec.consumer_uuid, spec.project_id, spec.user_id)
    consumer_obj.check_generation(spec.consumer_uuid, existing,
                                  spec.consumer_generation)
    return existing, owners


def _write_consumer(context, spec, providers, rc_ids, checked):
    """Replace the allocations of one consumer (``checked``: what
    :func:`checked_consumer` read in this transaction).

    A consumer row exists while it holds allocations, so a new one has
    none to delete. Two writers of the same new consumer both insert its
    row: the second one's INSERT is a conflict, its allocations go with
    its transaction.
    """
    existing, owners = checked
    if existing is not None:
        context.session.execute(_DELETE_OF_CONSUMER,
                                {'consumer_uuid': spec.consumer_uuid})
    if _insert_allocations(context, spec, providers, rc_ids):
        consumer_obj.upsert(context, spec.consumer_uuid, spec.project_id,
                            spec.user_id, spec.consumer_type, existing,
                            owners)
    elif existing is None:
        # As in Placement 16: a new consumer written with no allocations
        # is kept, at generation 0 and holding nothing (see
        # leave_new_consumers).
        consumer_obj.create_empty(context, spec.consumer_uuid,
                                  spec.project_id, spec.user_id,
                                  spec.consumer_type, owners)
    else:
        consumer_obj.delete(context, existing)


def _sum_by_provider(specs):
    wanted = {}
    for spec in specs:
        for rp_uuid, resources in spec.allocations.items():
            target = wanted.setdefault(rp_uuid, {})
            for rc, amount in resources.items():
                target[rc] = target.get(rc, 0) + amount
    return wanted


@common.write_transaction
@db_api.writer
def replace_all(context, specs):
    """Write the allocations of every consumer in ``specs`` atomically.

    As in Placement, the generations bumped are those of the providers the
    new allocations name, or, for a consumer whose allocations are emptied,
    those it held: a provider an allocation merely leaves only gains free
    capacity, which no concurrent writer needs guarding against.
    """
    # Every consumer's generation first, then providers, classes and
    # amounts: Placement's order of refusals.
    consumers = {spec.consumer_uuid: checked_consumer(context, spec)
                 for spec in specs}
    touched = set()
    for spec in specs:
        touched |= (set(spec.allocations) if spec.allocations
                    else _old_provider_uuids(context, spec.consumer_uuid))
    providers = _providers(context, touched, order=[
        uuid for spec in specs for uuid in spec.allocations])
    rc_ids = common.rc_ids(context, {
        rc for spec in specs for res in spec.allocations.values()
        for rc in res})
    for spec in specs:
        _write_consumer(context, spec, providers, rc_ids,
                        consumers[spec.consumer_uuid])
    _check_capacity(context, providers, specs)
    for rp_uuid in sorted(touched):
        rp = providers[rp_uuid]
        common.bump_internal(context, rp.id, rp.uuid, rp.generation)


@common.write_transaction
@db_api.writer
def leave_new_consumers(context, specs):
    """Create, at generation 0 and holding nothing, the consumers of
    ``specs`` that do not exist: what Placement 16 leaves behind when a
    write names a provider that does not exist.

    Placement creates the consumers of a write first, in their own
    transactions, and removes the new ones only when the allocation write
    itself fails; a 400 for an unknown provider comes in between, so they
    stay, and a later write for one of them with ``consumer_generation:
    null`` is a generation conflict ("expected 0 but got None"). Clients
    and the differential check see that, so nova_lite does the same
    (doc/placement-compat.md).
    """
    for spec in specs:
        if consumer_obj.find(context, spec.consumer_uuid) is None:
            consumer_obj.create_empty(
                context, spec.consumer_uuid, spec.project_id, spec.user_id,
                spec.consumer_type)


@common.write_transaction
@db_api.writer
def delete_for_consumer(context, consumer_uuid):
    """Remove every allocation of a consumer, and the consumer.

    No provider generation changes, as in Placement: freeing capacity
    cannot over-commit anything."""
    deleted = context.session.execute(sa.delete(ALLOC).where(
        ALLOC.c.consumer_id == consumer_uuid)).rowcount
    if not deleted:
        raise exception.ConsumerNotFound(uuid=consumer_uuid)
    consumer_obj.delete(context, consumer_obj.find(context, consumer_uuid))
