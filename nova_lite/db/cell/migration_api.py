"""Cell database API: migrations, the records of an instance's moves.

Same conventions as :mod:`nova_lite.db.cell.api` (soft-deleted rows,
detached results, retried transactions). An update can be conditional on
the migration's status, so two actors racing on one migration (a user's
confirm, a revert, the automatic confirm) cannot both win.
"""

from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.db.cell import api as cell_api
from nova_lite.db.cell import models
from nova_lite.db import rows
from nova_lite.db import session
from nova_lite import exception

_writer = cell_api._writer
_reader = cell_api._reader

@session.retry_on_transient
def migration_create(context, values):
    """Insert a migration (``uuid`` defaults to a new one)."""
    values = dict(values)
    values.setdefault('uuid', uuidutils.generate_uuid())
    migration = models.Migration()
    migration.update(values)
    with _writer(context) as s:
        s.add(migration)
        s.flush()
    return migration


def _migration_get(s, column, value):
    return rows.first_or_raise(s, sa.select(models.Migration).where(
        column == value, models.Migration.deleted == 0),
        exception.MigrationNotFound(migration_id=value))


@session.retry_on_transient
def migration_get(context, migration_id):
    with _reader(context) as s:
        return _migration_get(s, models.Migration.id, migration_id)


@session.retry_on_transient
def migration_get_by_uuid(context, migration_uuid):
    with _reader(context) as s:
        return _migration_get(s, models.Migration.uuid, migration_uuid)


@session.retry_on_transient
def migration_update(context, migration_id, values, expected_status=None):
    """Update a migration, only from ``expected_status`` when given (a
    value or a list): two actors racing on one migration (a user's
    confirm, a revert, the automatic confirm) cannot both win.

    :raises: MigrationNotFound, Conflict (the status was another).
    """
    with _writer(context) as s:
        migration = rows.first_or_raise(s, sa.select(models.Migration).where(
            models.Migration.id == migration_id,
            models.Migration.deleted == 0).with_for_update(),
            exception.MigrationNotFound(migration_id=migration_id))
        if expected_status is not None:
            allowed = expected_status if isinstance(
                expected_status, (list, tuple, set)) else [expected_status]
            if migration.status not in allowed:
                raise exception.Conflict(
                    reason='migration %s is %s, not %s' % (
                        migration.uuid, migration.status,
                        ' or '.join(allowed)),
                    actual=migration.status)
        migration.update(values)
        s.flush()
    return migration


@session.retry_on_transient
def migration_get_by_instance_and_status(context, instance_uuid, status):
    """The newest live migration of the instance in ``status``."""
    with _reader(context) as s:
        return rows.first_or_raise(s, sa.select(models.Migration).where(
            models.Migration.instance_uuid == instance_uuid,
            models.Migration.status == status,
            models.Migration.deleted == 0).order_by(
            models.Migration.id.desc()),
            exception.MigrationNotFound(
                migration_id='of %s in status %s' % (instance_uuid, status)))


# Statuses after which a migration no longer holds resources on its hosts.
MIGRATION_DONE_STATUSES = ('confirmed', 'reverted', 'error', 'failed',
                           'completed', 'cancelled', 'done')


@session.retry_on_transient
def migration_get_in_progress_by_host_and_node(context, host, node):
    """Unfinished migrations from or to ``node`` of ``host``."""
    model = models.Migration
    source = sa.and_(model.source_compute == host, model.source_node == node)
    dest = sa.and_(model.dest_compute == host, model.dest_node == node)
    query = sa.select(model).where(
        model.deleted == 0, sa.or_(source, dest),
        model.status.not_in(MIGRATION_DONE_STATUSES)).order_by(model.id)
    with _reader(context) as s:
        return list(s.scalars(query))


@session.retry_on_transient
def migration_get_all_by_filters(context, filters=None):
    """Migrations filtered on exact columns (instance_uuid, status, ...)."""
    model = models.Migration
    query = sa.select(model).where(model.deleted == 0).order_by(
        model.id.desc())
    for key, value in (filters or {}).items():
        column = getattr(model, key)
        query = query.where(column.in_(value) if isinstance(
            value, (list, tuple, set)) else column == value)
    with _reader(context) as s:
        return list(s.scalars(query))
