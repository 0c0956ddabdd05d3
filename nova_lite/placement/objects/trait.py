"""Traits (standard from os-traits, ``CUSTOM_*`` from users) and the
traits of providers, whose writes bump the provider generation.
"""

import dataclasses
import datetime

from oslo_db import exception as db_exc
import sqlalchemy as sa

from nova_lite.placement.db import api as db_api
from nova_lite.placement.db import models
from nova_lite.placement import exception
from nova_lite.placement.objects import common
from nova_lite.placement.objects import resource_provider as rp_obj

TRAIT = common.TRAIT
RP_TRAIT = common.RP_TRAIT
CUSTOM_PREFIX = 'CUSTOM_'


@dataclasses.dataclass
class Trait:
    id: int
    name: str
    created_at: datetime.datetime | None = None
    updated_at: datetime.datetime | None = None

    @property
    def last_modified(self):
        return self.updated_at or self.created_at


def _from_row(row):
    return Trait(id=row.id, name=row.name, created_at=row.created_at,
                 updated_at=row.updated_at)


@db_api.reader
def get_all(context, names=None, prefix=None, associated=None):
    """Traits, optionally only ``names``, a name ``prefix``, or those
    (not) associated with any provider."""
    query = sa.select(TRAIT).order_by(TRAIT.c.name)
    if names is not None:
        query = query.where(TRAIT.c.name.in_(names))
    if prefix is not None:
        query = query.where(TRAIT.c.name.startswith(prefix, autoescape=True))
    if associated is not None:
        used = sa.select(RP_TRAIT.c.trait_id)
        query = query.where(TRAIT.c.id.in_(used) if associated
                            else TRAIT.c.id.not_in(used))
    return [_from_row(r) for r in context.session.execute(query)]


def _find(context, name):
    row = context.session.execute(
        sa.select(TRAIT).where(TRAIT.c.name == name)).first()
    if row is None:
        raise exception.TraitNotFound(names=name)
    return _from_row(row)


@db_api.reader
def get_by_name(context, name):
    return _find(context, name)


@db_api.writer
def _create_in_db(context, name):
    context.session.execute(sa.insert(TRAIT).values(
        name=name, created_at=models.utcnow()))


def ensure(context, name):
    """Create custom trait ``name``; True if created, False if existed."""
    try:
        get_by_name(context, name)
        return False
    except exception.TraitNotFound:
        pass
    try:
        _create_in_db(context, name)
        return True
    except db_exc.DBDuplicateEntry:
        return False


@common.write_transaction
@db_api.writer
def destroy(context, name):
    trait = _find(context, name)
    if not name.startswith(CUSTOM_PREFIX):
        raise exception.NotCustom(
            message='Cannot delete standard trait %s.' % name)
    used = context.session.execute(sa.select(sa.func.count()).select_from(
        RP_TRAIT).where(RP_TRAIT.c.trait_id == trait.id)).scalar()
    if used:
        raise exception.TraitInUse(name=name)
    context.session.execute(sa.delete(TRAIT).where(TRAIT.c.id == trait.id))


def _provider_traits(context, rp_id):
    rows = context.session.execute(
        sa.select(TRAIT.c.name, RP_TRAIT.c.created_at)
        .select_from(RP_TRAIT.join(TRAIT, RP_TRAIT.c.trait_id == TRAIT.c.id))
        .where(RP_TRAIT.c.resource_provider_id == rp_id)
        .order_by(TRAIT.c.name)).all()
    return [r.name for r in rows]


@db_api.reader
def get_for_provider(context, rp_uuid):
    """(provider, [trait names])."""
    rp = rp_obj.find(context, rp_uuid)
    return rp, _provider_traits(context, rp.id)


def _provider_traits_ids(context, rp_id):
    return context.session.execute(
        sa.select(RP_TRAIT.c.trait_id).where(
            RP_TRAIT.c.resource_provider_id == rp_id)).scalars().all()


def _missing(context, names):
    """The names of ``names`` that are no trait."""
    found = context.session.execute(sa.select(TRAIT.c.name).where(
        TRAIT.c.name.in_(names))).scalars().all()
    return set(names) - set(found)


# NOTE(nova_lite): the provider and its current traits in one statement
# (a row per trait, one with NULLs when it has none).
_WITH_TRAITS = (rp_obj.select_providers()
                .add_columns(TRAIT.c.id.label('trait_id'),
                             TRAIT.c.name.label('trait_name'))
                .outerjoin(RP_TRAIT,
                           RP_TRAIT.c.resource_provider_id == rp_obj.RP.c.id)
                .outerjoin(TRAIT, TRAIT.c.id == RP_TRAIT.c.trait_id))


_FIND_WITH_TRAITS = _WITH_TRAITS.where(
    rp_obj.RP.c.uuid == sa.bindparam('uuid'))


def _find_with_traits(context, rp_uuid):
    """(provider, {trait name: id}) in one read, or raise 404."""
    rows = context.session.execute(_FIND_WITH_TRAITS,
                                   {'uuid': rp_uuid}).all()
    if not rows:
        raise exception.ResourceProviderNotFound(uuid=rp_uuid)
    current = {r.trait_name: r.trait_id for r in rows
               if r.trait_id is not None}
    return rp_obj.from_row(rows[0]), current


_INSERT_BY_NAME = sa.insert(RP_TRAIT).from_select(
    ['resource_provider_id', 'trait_id', 'created_at'],
    sa.select(sa.bindparam('rp_id', type_=sa.Integer), TRAIT.c.id,
              sa.bindparam('now', type_=sa.DateTime))
    .where(TRAIT.c.name.in_(sa.bindparam('names', expanding=True)))
    .order_by(TRAIT.c.id))


def _insert_by_name(context, rp_id, names, now):
    """Associate the traits ``names`` with provider ``rp_id`` in one
    ``INSERT ... SELECT``; TraitNotFound (the transaction is then rolled
    back) when some name is no trait."""
    result = context.session.execute(_INSERT_BY_NAME, {
        'rp_id': rp_id, 'now': now, 'names': sorted(names)})
    if result.rowcount != len(names):
        raise exception.TraitNotFound(
            names=', '.join(sorted(_missing(context, names))))


@common.write_transaction
@db_api.writer
def set_for_provider(context, rp_uuid, generation, names):
    """Replace a provider's traits if its generation is ``generation``.

    Three statements for a new provider (read it with its traits, bump
    its generation, insert the traits by name), five before: a compute
    registering many nodes sends one such request per node.
    """
    rp, current = _find_with_traits(context, rp_uuid)
    if generation != rp.generation:
        # A stale generation is a 409 before unknown traits are a 400, as
        # in Placement.
        raise exception.ConcurrentUpdateDetected(uuid=rp_uuid)
    wanted = set(names)
    # NOTE(nova_lite): as Placement, the same set again changes nothing,
    # the generation included.
    if wanted == set(current):
        return rp, sorted(wanted)
    added = wanted - set(current)
    now = models.utcnow()
    new_generation = common.increment_generation(context, rp.id, rp.uuid,
                                                 generation, now=now)
    # NOTE(nova_lite): only the difference is written (a new provider,
    # as a compute registering its nodes sends, has nothing to delete);
    # Placement replaces every row, with the same result.
    gone = sorted(current[n] for n in set(current) - wanted)
    if gone:
        context.session.execute(sa.delete(RP_TRAIT).where(
            RP_TRAIT.c.resource_provider_id == rp.id,
            RP_TRAIT.c.trait_id.in_(gone)))
    if added:
        _insert_by_name(context, rp.id, added, now)
    # NOTE(nova_lite): the row as it now is, without reading it back.
    return (dataclasses.replace(rp, generation=new_generation,
                                updated_at=now), sorted(wanted))


@common.write_transaction
@db_api.writer
def delete_for_provider(context, rp_uuid):
    rp = rp_obj.find(context, rp_uuid)
    if not _provider_traits_ids(context, rp.id):
        return  # nothing to delete: no generation bump, as in Placement
    common.increment_generation(context, rp.id, rp.uuid, rp.generation)
    context.session.execute(sa.delete(RP_TRAIT).where(
        RP_TRAIT.c.resource_provider_id == rp.id))
