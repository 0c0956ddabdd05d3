"""API database API: host aggregates, their hosts and metadata.

Availability zones are aggregate metadata (``availability_zone``), as in
Nova. Aggregates come back with ``hosts`` and ``metadetails`` loaded.
Conventions as in :mod:`nova_lite.db.api.api`.
"""

from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.db.api import api as api_db
from nova_lite.db.api import models
from nova_lite.db import rows
from nova_lite.db import session
from nova_lite import exception

_writer = api_db._writer
_reader = api_db._reader
AZ_KEY = 'availability_zone'


@session.retry_on_transient
def aggregate_create(context, name, metadata=None, uuid=None):
    """Create an aggregate (AggregateNameExists on a taken name)."""
    aggregate = models.Aggregate(uuid=uuid or uuidutils.generate_uuid(),
                                 name=name)
    aggregate.metadata_rows = [models.AggregateMetadata(key=k, value=v)
                               for k, v in (metadata or {}).items()]
    return rows.insert(_writer(context), aggregate,
                       exception.AggregateNameExists(aggregate_name=name))


def _aggregate_get(s, aggregate_id):
    column = (models.Aggregate.uuid if uuidutils.is_uuid_like(
        str(aggregate_id)) else models.Aggregate.id)
    return rows.first_or_raise(
        s, sa.select(models.Aggregate).where(
            column == aggregate_id),
        exception.AggregateNotFound(aggregate_id=aggregate_id))


@session.retry_on_transient
def aggregate_get(context, aggregate_id):
    """The aggregate with this id or uuid (AggregateNotFound)."""
    with _reader(context) as s:
        return _aggregate_get(s, aggregate_id)


@session.retry_on_transient
def aggregate_get_all(context):
    with _reader(context) as s:
        return list(s.scalars(sa.select(models.Aggregate).order_by(
            models.Aggregate.id)))


@session.retry_on_transient
def aggregate_get_by_host(context, host, key=None):
    """Aggregates ``host`` belongs to (only those with metadata ``key``)."""
    query = sa.select(models.Aggregate).join(models.AggregateHost).where(
        models.AggregateHost.host == host).order_by(models.Aggregate.id)
    if key is not None:
        query = query.where(models.Aggregate.id.in_(
            sa.select(models.AggregateMetadata.aggregate_id).where(
                models.AggregateMetadata.key == key)))
    with _reader(context) as s:
        return list(s.scalars(query))


@session.retry_on_transient
def availability_zones_by_host(context):
    """{host: availability zone} for hosts in an aggregate with an AZ."""
    query = sa.select(models.AggregateHost.host,
                      models.AggregateMetadata.value).join(
        models.AggregateMetadata, models.AggregateMetadata.aggregate_id ==
        models.AggregateHost.aggregate_id).where(
        models.AggregateMetadata.key == AZ_KEY)
    with _reader(context) as s:
        return dict(s.execute(query).all())


@session.retry_on_transient
def aggregate_update(context, aggregate_id, name):
    taken = exception.AggregateNameExists(aggregate_name=name)
    with rows.duplicate_raises(taken), _writer(context) as s:
        aggregate = _aggregate_get(s, aggregate_id)
        aggregate.name = name
        s.flush()
    return aggregate


@session.retry_on_transient
def aggregate_metadata_update(context, aggregate_id, metadata):
    """Set keys of ``metadata``; a None value deletes the key."""
    with _writer(context) as s:
        aggregate = _aggregate_get(s, aggregate_id)
        rows = {row.key: row for row in aggregate.metadata_rows}
        for key, value in metadata.items():
            if value is None:
                if key in rows:
                    aggregate.metadata_rows.remove(rows[key])
            elif key in rows:
                rows[key].value = value
            else:
                aggregate.metadata_rows.append(
                    models.AggregateMetadata(key=key, value=value))
        s.flush()
    return aggregate


@session.retry_on_transient
def aggregate_host_add(context, aggregate_id, host):
    taken = exception.AggregateHostExists(aggregate_id=aggregate_id,
                                          host=host)
    with rows.duplicate_raises(taken), _writer(context) as s:
        aggregate = _aggregate_get(s, aggregate_id)
        aggregate.host_rows.append(models.AggregateHost(host=host))
        s.flush()
    return aggregate


@session.retry_on_transient
def aggregate_host_delete(context, aggregate_id, host):
    with _writer(context) as s:
        aggregate = _aggregate_get(s, aggregate_id)
        rows = [r for r in aggregate.host_rows if r.host == host]
        if not rows:
            raise exception.AggregateHostNotFound(aggregate_id=aggregate_id,
                                                  host=host)
        aggregate.host_rows.remove(rows[0])
        s.flush()
    return aggregate


@session.retry_on_transient
def aggregate_delete(context, aggregate_id):
    """Delete an aggregate with its hosts and metadata."""
    with _writer(context) as s:
        s.delete(_aggregate_get(s, aggregate_id))
