"""Resource classes: the standard ones from os-resource-classes, plus
``CUSTOM_*`` classes users create.

Standard classes are rows too; :func:`ensure_sync` inserts the missing ones
once per process and database (remembered per transaction context).
"""

import dataclasses
import datetime
import threading
import weakref

import os_resource_classes
import os_traits
from oslo_db import exception as db_exc
from oslo_log import log as logging
import sqlalchemy as sa

from nova_lite.placement.db import api as db_api
from nova_lite.placement.db import models
from nova_lite.placement import exception
from nova_lite.placement.objects import common

LOG = logging.getLogger(__name__)
RC = common.RC
CUSTOM_PREFIX = 'CUSTOM_'


@dataclasses.dataclass
class ResourceClass:
    id: int
    name: str
    created_at: datetime.datetime | None = None
    updated_at: datetime.datetime | None = None

    @property
    def last_modified(self):
        return self.updated_at or self.created_at


def is_custom(name):
    return name.startswith(CUSTOM_PREFIX)


class _SyncTracker:
    """Which placement databases already hold the standard names."""

    def __init__(self):
        self.lock = threading.Lock()
        self.done = weakref.WeakSet()

    def ensure(self, context):
        manager = db_api.get_context_manager()
        if manager in self.done:
            return
        with self.lock:
            if manager not in self.done:
                rc_ids, trait_ids = _sync_standard_names(context)
                common.remember_standard_rc_ids(rc_ids)
                common.remember_standard_trait_ids(trait_ids)
                self.done.add(manager)


_TRACKER = _SyncTracker()


def _insert_missing(context, table, names):
    existing = {r.name for r in context.session.execute(
        sa.select(table.c.name))}
    missing = [n for n in names if n not in existing]
    if missing:
        now = models.utcnow()
        context.session.execute(sa.insert(table), [
            {'name': n, 'created_at': now} for n in missing])
    return len(missing)


@common.write_transaction
@db_api.writer
def _sync_in_db(context):
    try:
        classes = _insert_missing(context, RC, os_resource_classes.STANDARDS)
        traits = _insert_missing(context, common.TRAIT,
                                 os_traits.get_traits())
    except db_exc.DBDuplicateEntry:
        raise common.RetryTransaction()
    ids = dict(context.session.execute(
        sa.select(RC.c.name, RC.c.id).where(
            RC.c.name.in_(os_resource_classes.STANDARDS))).all())
    trait_ids = dict(context.session.execute(
        sa.select(common.TRAIT.c.name, common.TRAIT.c.id).where(
            common.TRAIT.c.name.in_(os_traits.get_traits()))).all())
    return classes, traits, ids, trait_ids


def _sync_standard_names(context):
    """Sync; the standard classes' and traits' ids ({name: id} each)."""
    classes, traits, ids, trait_ids = _sync_in_db(context)
    if classes or traits:
        LOG.info('Synced %d standard resource classes and %d standard '
                 'traits into the placement database', classes, traits)
    return ids, trait_ids


def ensure_sync(context):
    """Make sure standard classes and traits exist (cheap after once)."""
    _TRACKER.ensure(context)


def _from_row(row):
    return ResourceClass(id=row.id, name=row.name,
                         created_at=row.created_at,
                         updated_at=row.updated_at)


@db_api.reader
def get_all(context):
    rows = context.session.execute(sa.select(RC).order_by(RC.c.id))
    return [_from_row(r) for r in rows]


def _find(context, name):
    row = context.session.execute(
        sa.select(RC).where(RC.c.name == name)).first()
    if row is None:
        raise exception.ResourceClassNotFound(name=name)
    return _from_row(row)


@db_api.reader
def get_by_name(context, name):
    return _find(context, name)


@db_api.writer
def _create_in_db(context, name):
    context.session.execute(sa.insert(RC).values(
        name=name, created_at=models.utcnow()))
    return _find(context, name)


def create(context, name):
    """Create a custom class; Exists if the name is taken."""
    try:
        return _create_in_db(context, name)
    except db_exc.DBDuplicateEntry:
        raise exception.Exists(
            message='Conflicting resource class already exists: %s' % name)


def _in_use(context, rc_id):
    for table in (common.INV, common.ALLOC):
        count = context.session.execute(
            sa.select(sa.func.count()).select_from(table).where(
                table.c.resource_class_id == rc_id)).scalar()
        if count:
            return True
    return False


@db_api.writer
def _rename_in_db(context, name, new_name):
    rc = _find(context, name)
    if not is_custom(name):
        raise exception.NotCustom(
            message='Cannot update standard resource class %s.' % name)
    context.session.execute(sa.update(RC).where(RC.c.id == rc.id).values(
        name=new_name, updated_at=models.utcnow()))
    return _find(context, new_name)


def rename(context, name, new_name):
    try:
        return _rename_in_db(context, name, new_name)
    except db_exc.DBDuplicateEntry:
        raise exception.Exists(
            message='Resource class already exists: %s' % new_name)


@common.write_transaction
@db_api.writer
def destroy(context, name):
    """Delete a custom class that no inventory or allocation uses."""
    rc = _find(context, name)
    if not is_custom(name):
        raise exception.NotCustom(
            message='Cannot delete standard resource class %s.' % name)
    if _in_use(context, rc.id):
        raise exception.ResourceClassInUse(name=name)
    context.session.execute(sa.delete(RC).where(RC.c.id == rc.id))
