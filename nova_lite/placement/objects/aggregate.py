"""Aggregates of a provider (sets of aggregate uuids), generation-checked
from microversion 1.19.
"""

from oslo_db import exception as db_exc
import sqlalchemy as sa

from nova_lite.placement.db import api as db_api
from nova_lite.placement.db import models
from nova_lite.placement import exception
from nova_lite.placement.objects import common
from nova_lite.placement.objects import resource_provider as rp_obj

AGG = common.AGG
RP_AGG = common.RP_AGG


def _provider_aggregates(context, rp_id):
    rows = context.session.execute(
        sa.select(AGG.c.uuid)
        .select_from(RP_AGG.join(AGG, RP_AGG.c.aggregate_id == AGG.c.id))
        .where(RP_AGG.c.resource_provider_id == rp_id)
        .order_by(AGG.c.uuid)).all()
    return [r.uuid for r in rows]


@db_api.reader
def get_for_provider(context, rp_uuid):
    """(provider, [aggregate uuids])."""
    rp = rp_obj.find(context, rp_uuid)
    return rp, _provider_aggregates(context, rp.id)


# Built once (see common._BUMP). What a write needs to know, in one
# statement: the provider's id, the aggregates it is linked to, and the ids
# of the aggregates named (rows of kind, id, uuid).
_PROVIDER, _LINKED, _NAMED = 0, 1, 2
_STATE = sa.union_all(
    sa.select(sa.literal(_PROVIDER).label('kind'), common.RP.c.id,
              sa.null().label('uuid'))
    .where(common.RP.c.uuid == sa.bindparam('rp_uuid')),
    sa.select(sa.literal(_LINKED), RP_AGG.c.aggregate_id, sa.null())
    .select_from(RP_AGG.join(
        common.RP, common.RP.c.id == RP_AGG.c.resource_provider_id))
    .where(common.RP.c.uuid == sa.bindparam('rp_uuid')),
    sa.select(sa.literal(_NAMED), AGG.c.id, AGG.c.uuid)
    .where(AGG.c.uuid.in_(sa.bindparam('uuids', expanding=True))))
_LOCK_PROVIDER = (sa.select(common.RP.c.id)
                  .where(common.RP.c.uuid == sa.bindparam('rp_uuid'))
                  .with_for_update())
_INSERT_LINK = sa.insert(RP_AGG)
_DELETE_LINKS = sa.delete(RP_AGG).where(
    RP_AGG.c.resource_provider_id == sa.bindparam('rp_id'),
    RP_AGG.c.aggregate_id.in_(sa.bindparam('ids', expanding=True)))


def _new_aggregate_ids(context, uuids, now):
    """Ids of aggregates no provider named before, inserted; another
    writer inserting one meanwhile runs the transaction again."""
    ids = {}
    for uuid in sorted(uuids):
        try:
            result = context.session.execute(
                sa.insert(AGG).values(uuid=uuid, created_at=now))
        except db_exc.DBDuplicateEntry:
            raise common.RetryTransaction()
        ids[uuid] = result.inserted_primary_key[0]
    return ids


_BUMP_BY_UUID = (sa.update(common.RP)
                 .where(common.RP.c.uuid == sa.bindparam('rp_uuid'),
                        common.RP.c.generation == sa.bindparam('expected'))
                 .values(generation=sa.bindparam('new_generation'),
                         updated_at=sa.bindparam('now')))


def _bump_by_uuid(context, rp_uuid, expected, now):
    """The provider's generation after ``expected``, bumped by uuid with
    no read first; a provider not found is a 404, one at another
    generation a 409 (:func:`common.increment_generation`'s answers)."""
    if 0 <= expected < common.MAX_GENERATION:
        result = context.session.execute(_BUMP_BY_UUID, {
            'rp_uuid': rp_uuid, 'expected': expected,
            'new_generation': expected + 1, 'now': now})
        if result.rowcount == 1:
            return expected + 1
    rp_obj.find(context, rp_uuid)
    raise exception.ConcurrentUpdateDetected(uuid=rp_uuid)


@common.write_transaction
@db_api.writer
def set_for_provider(context, rp_uuid, uuids, generation=None):
    """Replace a provider's aggregates; with ``generation`` (1.19+) only if
    it still matches, bumping it; without (before 1.19) the generation
    stays, as in Placement. Returns the provider's generation and last
    modification as written (nothing is read back).

    Either way the provider's row is locked first (the bump, or a locking
    read), so two writers of one provider's aggregates take turns, and the
    links are then read and only the difference written.
    """
    now = models.utcnow()
    if generation is None:
        # locked before the first plain read, which fixes the snapshot
        context.session.execute(_LOCK_PROVIDER, {'rp_uuid': rp_uuid})
        rp = rp_obj.find(context, rp_uuid)
        generation, modified = rp.generation, rp.last_modified
    else:
        generation = _bump_by_uuid(context, rp_uuid, generation, now)
        modified = now
    _replace_links(context, rp_uuid, set(uuids), now)
    return generation, modified


def _replace_links(context, rp_uuid, uuids, now):
    """Link the provider to exactly the aggregates ``uuids``, writing only
    what changes.

    NOTE(nova_lite): no DELETE of the provider's links when none goes: on
    InnoDB a DELETE matching no row locks the gap where the rows would
    be, and for new providers (the highest ids) that is one gap, the
    end of the index: parallel loaders' INSERTs into it deadlocked each
    other (1 in 10 aggregate writes with 4 threads), each deadlock a
    retry after a pause.
    """
    rp_id, linked, known = None, set(), {}
    for row in context.session.execute(
            _STATE, {'rp_uuid': rp_uuid, 'uuids': sorted(uuids)}):
        if row.kind == _PROVIDER:
            rp_id = row.id
        elif row.kind == _LINKED:
            linked.add(row.id)
        else:
            known[row.uuid] = row.id
    known.update(_new_aggregate_ids(context, uuids - set(known), now))
    wanted = set(known.values())
    gone = linked - wanted
    if gone:
        context.session.execute(_DELETE_LINKS,
                                {'rp_id': rp_id, 'ids': sorted(gone)})
    added = wanted - linked
    if added:
        context.session.execute(_INSERT_LINK, [
            {'resource_provider_id': rp_id, 'aggregate_id': agg_id,
             'created_at': now} for agg_id in sorted(added)])
