"""Consumers (whoever holds allocations), their projects, users and types.

A consumer row exists while it holds allocations; its ``generation``
changes on every write of its allocations, so two writers of the same
consumer cannot both win (1.28+ callers send the generation they saw).
"""

import collections
import dataclasses

from oslo_db import exception as db_exc
import sqlalchemy as sa

from nova_lite.placement.db import models
from nova_lite.placement import exception
from nova_lite.placement.objects import common

CONSUMER = common.CONSUMER
# NOTE(nova_lite): allocations written before 1.8 carry no project or
# user; they are recorded against these placeholders, as Placement does.
INCOMPLETE_PROJECT = '00000000-0000-0000-0000-000000000000'
INCOMPLETE_USER = '00000000-0000-0000-0000-000000000000'
UNSET = object()


@dataclasses.dataclass
class Consumer:
    id: int
    uuid: str
    project_id: str
    user_id: str
    generation: int
    consumer_type: str | None


# The ids of the project and user rows a write names (None: no row yet).
OwnerIds = collections.namedtuple('OwnerIds', 'project_id user_id')


def _build_find():
    ctype = common.CONSUMER_TYPE
    return (sa.select(CONSUMER.c.id, CONSUMER.c.uuid, CONSUMER.c.generation,
                      common.PROJECT.c.external_id.label('project'),
                      common.USER.c.external_id.label('user'),
                      ctype.c.name.label('consumer_type'))
            .select_from(
                CONSUMER.join(common.PROJECT,
                              CONSUMER.c.project_id == common.PROJECT.c.id)
                .join(common.USER, CONSUMER.c.user_id == common.USER.c.id)
                .outerjoin(ctype, CONSUMER.c.consumer_type_id == ctype.c.id))
            .where(CONSUMER.c.uuid == sa.bindparam('uuid')))


def _owner_id(table, name):
    return (sa.select(table.c.id)
            .where(table.c.external_id == sa.bindparam(name))
            .scalar_subquery())


def _build_find_for_write():
    """The consumer (NULLs when there is none) and the ids of the
    project and user a write names (NULL for one not known), one row."""
    found = _build_find().subquery()
    one = sa.select(sa.literal_column('1').label('one')).subquery()
    return (sa.select(found,
                      _owner_id(common.PROJECT, 'project')
                      .label('want_project_id'),
                      _owner_id(common.USER, 'user').label('want_user_id'))
            .select_from(one.outerjoin(found, sa.true())))


# Built once (see common._BUMP).
_FIND = _build_find()
_FIND_FOR_WRITE = _build_find_for_write()
_INSERT = sa.insert(CONSUMER)


def _from_row(row):
    return Consumer(id=row.id, uuid=row.uuid, project_id=row.project,
                    user_id=row.user, generation=row.generation,
                    consumer_type=row.consumer_type)


def find(context, uuid):
    """The consumer ``uuid`` or None, inside a transaction."""
    row = context.session.execute(_FIND, {'uuid': uuid}).first()
    return None if row is None else _from_row(row)


def find_for_write(context, uuid, project_id, user_id):
    """(the consumer ``uuid`` or None, the :class:`OwnerIds` of
    ``project_id`` and ``user_id`` as :func:`upsert` takes them), in one
    read."""
    row = context.session.execute(_FIND_FOR_WRITE, {
        'uuid': uuid, 'project': project_id, 'user': user_id}).one()
    return ((None if row.id is None else _from_row(row)),
            OwnerIds(row.want_project_id, row.want_user_id))


_ID_OF = {table.name: sa.select(table.c.id).where(
    column == sa.bindparam('value')) for table, column in (
        (common.PROJECT, common.PROJECT.c.external_id),
        (common.USER, common.USER.c.external_id),
        (common.CONSUMER_TYPE, common.CONSUMER_TYPE.c.name))}


# The ids of a project and a user in one read (NULL for one not known).
_OWNER_IDS = sa.select(
    sa.select(common.PROJECT.c.id)
    .where(common.PROJECT.c.external_id == sa.bindparam('project'))
    .scalar_subquery().label('project_id'),
    sa.select(common.USER.c.id)
    .where(common.USER.c.external_id == sa.bindparam('user'))
    .scalar_subquery().label('user_id'))


def _ensure_row(context, table, column, value):
    found = context.session.execute(_ID_OF[table.name],
                                    {'value': value}).scalar()
    if found is not None:
        return found
    return _insert_row(context, table, column, value)


def _insert_row(context, table, column, value):
    try:
        result = context.session.execute(sa.insert(table).values(
            {column.name: value, 'created_at': models.utcnow()}))
    except db_exc.DBDuplicateEntry:
        raise common.RetryTransaction()
    return result.inserted_primary_key[0]


def _owner_values(context, project_id, user_id, consumer_type,
                  owners=None):
    """The project, user (and type) ids of a consumer row, the rows
    created when missing; the project and user are one read, none when
    ``owners`` (an :class:`OwnerIds` from :func:`find_for_write`) has
    both ids. One it lacks is read again: a write of several consumers
    may have created it since.
    """
    if owners is None or None in owners:
        owners = OwnerIds._make(context.session.execute(
            _OWNER_IDS, {'project': project_id, 'user': user_id}).one())
    values = {
        'project_id': owners.project_id if owners.project_id is not None
        else _insert_row(context, common.PROJECT,
                         common.PROJECT.c.external_id, project_id),
        'user_id': owners.user_id if owners.user_id is not None
        else _insert_row(context, common.USER, common.USER.c.external_id,
                         user_id)}
    if consumer_type is not None:
        values['consumer_type_id'] = ensure_type(context, consumer_type)
    return values


def ensure_type(context, name):
    return _ensure_row(context, common.CONSUMER_TYPE,
                       common.CONSUMER_TYPE.c.name, name)


def check_generation(uuid, existing, expected):
    """ConsumerGenerationConflict unless ``expected`` (what the client
    sent) matches (1.28+). Placement's words: "expected" is the server's
    generation, "got" the client's."""
    if expected is UNSET:
        return
    if existing is None and expected is not None:
        raise exception.ConsumerGenerationConflict(
            reason='expected null but got %s' % expected)
    if existing is not None and expected != existing.generation:
        raise exception.ConsumerGenerationConflict(
            reason='expected %s but got %s' % (existing.generation,
                                               expected))


def upsert(context, uuid, project_id, user_id, consumer_type, existing,
           owners=None):
    """Create the consumer or update it, bumping its generation."""
    values = _owner_values(context, project_id, user_id, consumer_type,
                           owners)
    now = models.utcnow()
    if existing is None:
        try:
            context.session.execute(_INSERT, dict(
                values, uuid=uuid, generation=1, created_at=now))
        except db_exc.DBDuplicateEntry:
            raise exception.ConsumerGenerationConflict(
                reason='consumer %s was created concurrently.' % uuid)
        return
    result = context.session.execute(
        sa.update(CONSUMER).where(
            CONSUMER.c.id == existing.id,
            CONSUMER.c.generation == existing.generation)
        .values(generation=existing.generation + 1, updated_at=now,
                **values))
    if result.rowcount != 1:
        raise exception.ConsumerGenerationConflict(
            reason='consumer %s was updated concurrently.' % uuid)


def create_empty(context, uuid, project_id, user_id, consumer_type,
                 owners=None):
    """A consumer at generation 0 holding nothing (see
    ``allocation.leave_new_consumers``)."""
    values = _owner_values(context, project_id, user_id, consumer_type,
                           owners)
    context.session.execute(sa.insert(CONSUMER).values(
        uuid=uuid, generation=0, created_at=models.utcnow(), **values))


def delete(context, existing):
    if existing is not None:
        context.session.execute(sa.delete(CONSUMER).where(
            CONSUMER.c.id == existing.id))
