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


def _base_query(project_id, user_id):
    joined = (ALLOC.join(CONSUMER, ALLOC.c.consumer_id == CONSUMER.c.uuid)
              .join(common.PROJECT,
                    CONSUMER.c.project_id == common.PROJECT.c.id)
              .join(common.USER, CONSUMER.c.user_id == common.USER.c.id)
              .join(common.RC, ALLOC.c.resource_class_id == common.RC.c.id)
              .outerjoin(common.CONSUMER_TYPE,
                         CONSUMER.c.consumer_type_id ==
                         common.CONSUMER_TYPE.c.id))
    query = sa.select(
        common.RC.c.name.label('rc_name'),
        common.CONSUMER_TYPE.c.name.label('type_name'),
        ALLOC.c.consumer_id, ALLOC.c.used).select_from(joined).where(
            common.PROJECT.c.external_id == project_id)
    if user_id is not None:
        query = query.where(common.USER.c.external_id == user_id)
    return query


@db_api.reader
def get_for_project(context, project_id, user_id=None):
    """{rc: used} of a project (and user)."""
    totals = {}
    for row in context.session.execute(_base_query(project_id, user_id)):
        totals[row.rc_name] = totals.get(row.rc_name, 0) + row.used
    return totals


@db_api.reader
def get_for_project_by_type(context, project_id, user_id=None,
                            consumer_type=None):
    """1.38 shape: {type: {'consumer_count': n, rc: used}}.

    ``consumer_type`` ``all`` sums every type under ``all``; ``unknown``
    is the group of consumers written without a type.
    """
    groups, consumers = {}, {}
    for row in context.session.execute(_base_query(project_id, user_id)):
        group = row.type_name or UNKNOWN_TYPE
        if consumer_type == ALL_TYPES:
            group = ALL_TYPES
        elif consumer_type is not None and group != consumer_type:
            continue
        usage = groups.setdefault(group, {})
        usage[row.rc_name] = usage.get(row.rc_name, 0) + row.used
        consumers.setdefault(group, set()).add(row.consumer_id)
    for group, usage in groups.items():
        usage['consumer_count'] = len(consumers[group])
    return groups
