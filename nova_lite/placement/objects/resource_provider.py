"""Resource providers: create, read, update, delete, list with filters.

A provider is the root of its tree or has a parent; ``root_provider_id`` is
kept on every row so a tree is one indexed lookup. Writes that change what
a provider offers bump its ``generation`` (see ``common``).
"""

import dataclasses
import datetime

from oslo_db import exception as db_exc
from oslo_log import log as logging
import sqlalchemy as sa

from nova_lite.placement.db import api as db_api
from nova_lite.placement.db import models
from nova_lite.placement import exception
from nova_lite.placement.objects import common
from nova_lite.placement.objects import provider_filters

LOG = logging.getLogger(__name__)
RP = common.RP


@dataclasses.dataclass
class ResourceProvider:
    id: int
    uuid: str
    name: str
    generation: int
    parent_provider_uuid: str | None
    root_provider_uuid: str
    created_at: datetime.datetime | None = None
    updated_at: datetime.datetime | None = None
    parent_provider_id: int | None = None
    root_provider_id: int | None = None

    @property
    def last_modified(self):
        return self.updated_at or self.created_at


def _build_select():
    parent = RP.alias('parent')
    root = RP.alias('root')
    return sa.select(
        RP.c.id, RP.c.uuid, RP.c.name, RP.c.generation,
        RP.c.created_at, RP.c.updated_at, RP.c.parent_provider_id,
        RP.c.root_provider_id,
        parent.c.uuid.label('parent_provider_uuid'),
        root.c.uuid.label('root_provider_uuid'),
    ).select_from(
        RP.outerjoin(parent, RP.c.parent_provider_id == parent.c.id)
        .outerjoin(root, RP.c.root_provider_id == root.c.id))


# NOTE(nova_lite): statements are immutable; building the aliases and their
# column collections per request cost more than running the query, so it
# is done once.
_SELECT = _build_select()
_FIND = _SELECT.where(RP.c.uuid == sa.bindparam('uuid'))
_INSERT = sa.insert(RP)
_SET_OWN_ROOT = (sa.update(RP).where(RP.c.id == sa.bindparam('rp_id'))
                 .values(root_provider_id=sa.bindparam('rp_id_value')))


def _select():
    return _SELECT


def select_providers():
    """The statement reading providers with their parent and root uuids
    (other objects add their columns and joins to it)."""
    return _SELECT


def from_row(row):
    """A :class:`ResourceProvider` from a row of :func:`select_providers`."""
    return _from_row(row)


def _from_row(row):
    return ResourceProvider(
        id=row.id, uuid=row.uuid, name=row.name, generation=row.generation,
        parent_provider_uuid=row.parent_provider_uuid,
        root_provider_uuid=row.root_provider_uuid or row.uuid,
        created_at=row.created_at, updated_at=row.updated_at,
        parent_provider_id=row.parent_provider_id,
        root_provider_id=row.root_provider_id)


def find(context, uuid):
    """The provider ``uuid`` in the current transaction, or raise 404."""
    row = context.session.execute(_FIND, {'uuid': uuid}).first()
    if row is None:
        raise exception.ResourceProviderNotFound(uuid=uuid)
    return _from_row(row)


@db_api.reader
def get_by_uuid(context, uuid):
    return find(context, uuid)


@db_api.reader
def get_all(context, filters=None):
    """Providers matching ``filters`` (see :mod:`provider_filters`)."""
    query = _select().order_by(RP.c.id)
    ids = provider_filters.matching_ids(context, filters or {})
    if ids is not None:
        if not ids:
            return []
        query = query.where(RP.c.id.in_(ids))
    return [_from_row(r) for r in context.session.execute(query)]


def _insert(context, uuid, name, parent):
    """Insert the row; the provider as :func:`find` would now read it."""
    now = models.utcnow()
    result = context.session.execute(_INSERT, {
        'uuid': uuid, 'name': name, 'generation': 0, 'created_at': now,
        'parent_provider_id': parent.id if parent else None,
        'root_provider_id': parent.root_provider_id if parent else None})
    rp_id = result.inserted_primary_key[0]
    if parent is None:
        context.session.execute(_SET_OWN_ROOT,
                                {'rp_id': rp_id, 'rp_id_value': rp_id})
    return ResourceProvider(
        id=rp_id, uuid=uuid, name=name, generation=0,
        parent_provider_uuid=parent.uuid if parent else None,
        root_provider_uuid=parent.root_provider_uuid if parent else uuid,
        created_at=now, updated_at=None,
        parent_provider_id=parent.id if parent else None,
        root_provider_id=parent.root_provider_id if parent else rp_id)


def _parent_or_400(context, parent_uuid):
    try:
        return find(context, parent_uuid)
    except exception.ResourceProviderNotFound:
        raise exception.InvalidParent(
            reason='parent provider UUID does not exist.')


@common.write_transaction
@db_api.writer
def _create_in_db(context, uuid, name, parent_uuid):
    if parent_uuid is not None and parent_uuid == uuid:
        raise exception.InvalidParent(
            reason='parent provider UUID cannot be same as UUID. Please set '
                   'parent provider UUID to None if there is no parent.')
    parent = _parent_or_400(context, parent_uuid) if parent_uuid else None
    return _insert(context, uuid, name, parent)


def _duplicate(context, uuid, name):
    what = 'Conflicting resource provider name: %s' % name
    if uuid is not None:
        try:
            get_by_uuid(context, uuid)
            what = 'Conflicting resource provider uuid: %s' % uuid
        except exception.ResourceProviderNotFound:
            pass
    return exception.Exists(message=what + ' already exists.')


def create(context, uuid, name, parent_uuid=None):
    """Create a provider; Exists on a taken name or uuid."""
    try:
        rp = _create_in_db(context, uuid, name, parent_uuid)
    except db_exc.DBDuplicateEntry:
        raise _duplicate(context, uuid, name)
    LOG.info('Created resource provider %s (%s)', rp.uuid, rp.name)
    return rp


def _descendant_ids(context, rp_id):
    found, frontier = set(), {rp_id}
    while frontier:
        rows = context.session.execute(sa.select(RP.c.id).where(
            RP.c.parent_provider_id.in_(frontier))).all()
        frontier = {r.id for r in rows} - found
        found |= frontier
    return found


def _reparent(context, rp, parent_uuid, allow_reparent):
    if parent_uuid == rp.parent_provider_uuid:
        return
    # NOTE(nova_lite): as in Placement, a root may be given a parent at
    # any microversion; changing or removing a parent needs 1.37.
    if not allow_reparent and rp.parent_provider_uuid is not None:
        if parent_uuid is None:
            reason = 'un-parenting a provider is not currently allowed.'
        else:
            reason = 're-parenting a provider is not currently allowed.'
        raise exception.InvalidParent(reason=reason)
    if parent_uuid is None:
        new_parent_id, new_root = None, rp.id
    else:
        parent = _parent_or_400(context, parent_uuid)
        if parent.id == rp.id or parent.id in _descendant_ids(context, rp.id):
            raise exception.InvalidParent(
                reason='creating loop in the provider tree is not allowed.')
        new_parent_id, new_root = parent.id, parent.root_provider_id
    subtree = _descendant_ids(context, rp.id) | {rp.id}
    context.session.execute(sa.update(RP).where(RP.c.id == rp.id).values(
        parent_provider_id=new_parent_id))
    context.session.execute(sa.update(RP).where(RP.c.id.in_(subtree))
                            .values(root_provider_id=new_root))


@common.write_transaction
@db_api.writer
def _update_in_db(context, uuid, name, parent_uuid, allow_reparent):
    rp = find(context, uuid)
    context.session.execute(sa.update(RP).where(RP.c.id == rp.id).values(
        name=name, updated_at=models.utcnow()))
    if parent_uuid is not _UNSET:
        _reparent(context, rp, parent_uuid, allow_reparent)
    return find(context, uuid), rp.updated_at


_UNSET = object()


def update(context, uuid, name, parent_uuid=_UNSET, allow_reparent=False):
    """Rename (and maybe re-parent, 1.37+) a provider: (the provider, its
    ``updated_at`` before this write, which Placement's answer carries as
    last-modified)."""
    try:
        return _update_in_db(context, uuid, name, parent_uuid,
                             allow_reparent)
    except db_exc.DBDuplicateEntry:
        raise exception.Exists(
            message='Conflicting resource provider name: %s already exists.'
            % name)


@common.write_transaction
@db_api.writer
def destroy(context, uuid):
    """Delete a provider with no allocations and no children."""
    rp = find(context, uuid)
    session = context.session
    # Children first, then allocations: Placement's order of refusals.
    children = session.execute(sa.select(sa.func.count()).select_from(RP)
                               .where(RP.c.parent_provider_id == rp.id)
                               ).scalar()
    if children:
        raise exception.CannotDeleteParentProvider(uuid=uuid)
    used = session.execute(sa.select(sa.func.count()).select_from(
        common.ALLOC).where(common.ALLOC.c.resource_provider_id == rp.id)
    ).scalar()
    if used:
        raise exception.ResourceProviderInUse(uuid=uuid)
    for table in (common.INV, common.RP_TRAIT, common.RP_AGG):
        session.execute(sa.delete(table).where(
            table.c.resource_provider_id == rp.id))
    session.execute(sa.update(RP).where(RP.c.id == rp.id).values(
        root_provider_id=None))
    session.execute(sa.delete(RP).where(RP.c.id == rp.id))
    LOG.info('Deleted resource provider %s (%s)', rp.uuid, rp.name)
