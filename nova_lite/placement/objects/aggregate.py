"""Aggregates of a provider (sets of aggregate uuids), generation-checked
from microversion 1.19.
"""

import dataclasses

from oslo_db import exception as db_exc
import sqlalchemy as sa

from nova_lite.placement.db import api as db_api
from nova_lite.placement.db import models
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
_INSERT = sa.insert(RP_AGG)


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


@common.write_transaction
@db_api.writer
def set_for_provider(context, rp_uuid, uuids, generation=None):
    """Replace a provider's aggregates; with ``generation`` (1.19+) only if
    it still matches, bumping it; without (before 1.19) the generation
    stays, as in Placement. Returns the provider as written (its row is
    not read back: the transaction wrote its generation and stamp)."""
    rp = rp_obj.find(context, rp_uuid)
    ids = _aggregate_ids(context, uuids)
    now = models.utcnow()
    if generation is not None:
        rp = dataclasses.replace(rp, generation=common.increment_generation(
            context, rp.id, rp.uuid, generation, now=now), updated_at=now)
    context.session.execute(_DELETE_OF_PROVIDER, {'rp_id': rp.id})
    if ids:
        context.session.execute(_INSERT, [
            {'resource_provider_id': rp.id, 'aggregate_id': i,
             'created_at': now} for i in ids])
    return rp
