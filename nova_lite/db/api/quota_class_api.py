"""Quota class limits in the API database (Nova's ``quota_classes``)."""

import sqlalchemy as sa

from nova_lite.db.api import api as api_db
from nova_lite.db.api import models
from nova_lite.db import session

_writer = api_db._writer
_reader = api_db._reader


def quota_class_get_all_by_name(context, class_name):
    """{resource: hard_limit} of the class."""
    with _reader(context) as s:
        return dict(s.execute(sa.select(
            models.QuotaClass.resource, models.QuotaClass.hard_limit).where(
            models.QuotaClass.class_name == class_name)).all())


@session.retry_on_transient
def quota_class_set(context, class_name, resource, hard_limit):
    """Create or change one limit of the class."""
    with _writer(context) as s:
        row = s.scalars(sa.select(models.QuotaClass).filter_by(
            class_name=class_name, resource=resource)).first()
        if row is None:
            row = models.QuotaClass(class_name=class_name, resource=resource,
                                    hard_limit=hard_limit)
            s.add(row)
        else:
            row.hard_limit = hard_limit
        s.flush()
    return row
