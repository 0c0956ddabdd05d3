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


# Built once (see common._BUMP).
_KNOWN = sa.select(AGG.c.uuid, AGG.c.id).where(
    AGG.c.uuid.in_(sa.bindparam('uuids', expanding=True)))
_DELETE_OF_PROVIDER = sa.delete(RP_AGG).where(
    RP_AGG.c.resource_provider_id == sa.bindparam('rp_id'))


def _aggregate_ids(context, uuids):
    if not uuids:
        return []
    existing = {r.uuid: r.id for r in context.session.execute(
        _KNOWN, {'uuids': sorted(set(uuids))})}
    now = models.utcnow()
    for uuid in sorted(set(uuids) - set(existing)):
        try:
            result = context.session.execute(
                sa.insert(AGG).values(uuid=uuid, created_at=now))
        except db_exc.DBDuplicateEntry:
            raise common.RetryTransaction()
        existing[uuid] = result.inserted_primary_key[0]
    return [existing[u] for u in set(uuids)]


_BUMP_BY_UUID = (sa.update(common.RP)
                 .where(common.RP.c.uuid == sa.bindparam('rp_uuid'),
                        common.RP.c.generation == sa.bindparam('expected'))
                 .values(generation=sa.bindparam('new_generation'),
                         updated_at=sa.bindparam('now')))
_RP_ID = (sa.select(common.RP.c.id)
          .where(common.RP.c.uuid == sa.bindparam('rp_uuid'))
          .scalar_subquery())
_DELETE_BY_UUID = sa.delete(RP_AGG).where(
    RP_AGG.c.resource_provider_id == _RP_ID)


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
    modification as written (nothing is read back: with a generation the
    provider is named by its uuid in every statement)."""
    now = models.utcnow()
    if generation is None:
        rp = rp_obj.find(context, rp_uuid)
        ids = _aggregate_ids(context, uuids)
        context.session.execute(_DELETE_OF_PROVIDER, {'rp_id': rp.id})
        _insert_links(context, sa.literal(rp.id), ids, now, {})
        return rp.generation, rp.last_modified
    generation = _bump_by_uuid(context, rp_uuid, generation, now)
    ids = _aggregate_ids(context, uuids)
    context.session.execute(_DELETE_BY_UUID, {'rp_uuid': rp_uuid})
    _insert_links(context, _RP_ID, ids, now, {'rp_uuid': rp_uuid})
    return generation, now


def _insert_links(context, rp_id, ids, now, params):
    """Link the provider ``rp_id`` (an SQL expression, its bind values in
    ``params``) to the aggregates ``ids`` in one INSERT ... SELECT."""
    if not ids:
        return
    context.session.execute(
        sa.insert(RP_AGG).from_select(
            ['resource_provider_id', 'aggregate_id', 'created_at'],
            sa.select(rp_id, AGG.c.id, sa.literal(now, sa.DateTime))
            .where(AGG.c.id.in_(sorted(ids)))), params)
