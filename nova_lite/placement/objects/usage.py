"""Usages: what is allocated, per provider or per project/user."""

import sqlalchemy as sa

from nova_lite.placement.db import api as db_api
from nova_lite.placement.objects import common
from nova_lite.placement.objects import inventory as inv_obj
from nova_lite.placement.objects import resource_provider as rp_obj

ALLOC = common.ALLOC
CONSUMER = common.CONSUMER
UNKNOWN_TYPE = 'unknown'
ALL_TYPES = 'all'


@db_api.reader
def get_for_provider(context, rp_uuid):
    """(provider, {rc: used}) with 0 for inventoried classes not used."""
    rp = rp_obj.find(context, rp_uuid)
    usages = {rc: 0 for rc in inv_obj.provider_inventories(context, rp.id)}
    usages.update(inv_obj.usage_by_class(context, rp.id))
    return rp, usages


def _joined(project_id, user_id, consumer_type):
    """The project's (user's) allocations with their consumer's type,
    as a FROM clause and its conditions; ``consumer_type`` as in
    :func:`get_for_project_by_type` (None and ``all``: every type)."""
    joined = (ALLOC.join(CONSUMER, ALLOC.c.consumer_id == CONSUMER.c.uuid)
              .join(common.PROJECT,
                    CONSUMER.c.project_id == common.PROJECT.c.id)
              .outerjoin(common.CONSUMER_TYPE,
                         CONSUMER.c.consumer_type_id ==
                         common.CONSUMER_TYPE.c.id))
    where = [common.PROJECT.c.external_id == project_id]
    if user_id is not None:
        joined = joined.join(common.USER,
                             CONSUMER.c.user_id == common.USER.c.id)
        where.append(common.USER.c.external_id == user_id)
    if consumer_type == UNKNOWN_TYPE:
        where.append(CONSUMER.c.consumer_type_id.is_(None))
    elif consumer_type not in (None, ALL_TYPES):
        where.append(common.CONSUMER_TYPE.c.name == consumer_type)
    return joined, where


def _type_column(by_type):
    """The consumer type's name, or a constant when types are not told
    apart (``consumer_type=all``)."""
    return (common.CONSUMER_TYPE.c.name if by_type
            else sa.literal(None, sa.String))


def _group(type_name, by_type):
    return type_name or UNKNOWN_TYPE if by_type else ALL_TYPES


def _sums(context, project_id, user_id, consumer_type=None, by_type=False):
    """[(type name or None, class name, used)], summed by the database:
    a project of 100,000 servers is 300,000 allocation rows, which
    Python summing them one by one took seconds to read."""
    joined, where = _joined(project_id, user_id, consumer_type)
    type_name = _type_column(by_type)
    sums = sa.select(
        type_name.label('type_name'), ALLOC.c.resource_class_id,
        sa.func.sum(ALLOC.c.used).label('used')).select_from(joined).where(
        *where).group_by(*([type_name] if by_type else []),
                         ALLOC.c.resource_class_id).subquery()
    query = sa.select(sums.c.type_name, common.RC.c.name,
                      sa.cast(sums.c.used, sa.BigInteger)).join_from(
        sums, common.RC, common.RC.c.id == sums.c.resource_class_id)
    return context.session.execute(query).all()


@db_api.reader
def get_for_project(context, project_id, user_id=None):
    """{rc: used} of a project (and user)."""
    return {rc: int(used) for _type, rc, used in _sums(
        context, project_id, user_id)}


@db_api.reader
def get_for_project_by_type(context, project_id, user_id=None,
                            consumer_type=None):
    """1.38 shape: {type: {'consumer_count': n, rc: used}}.

    ``consumer_type`` ``all`` sums every type under ``all``; ``unknown``
    is the group of consumers written without a type.
    """
    by_type = consumer_type != ALL_TYPES
    groups = {}
    for type_name, rc, used in _sums(context, project_id, user_id,
                                     consumer_type, by_type):
        groups.setdefault(_group(type_name, by_type), {})[rc] = int(used)
    joined, where = _joined(project_id, user_id, consumer_type)
    type_name = _type_column(by_type)
    counts = sa.select(
        type_name, sa.func.count(sa.distinct(ALLOC.c.consumer_id))
    ).select_from(joined).where(*where)
    if by_type:
        counts = counts.group_by(type_name)
    for name, count in context.session.execute(counts).all():
        group = _group(name, by_type)
        if group in groups:
            groups[group]['consumer_count'] = int(count)
    return groups
