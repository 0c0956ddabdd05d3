"""API database API: build requests and request specs (the boot path).

The API writes a build request, a request spec and an instance mapping when
it accepts a server; the super conductor deletes the build request once the
instance exists in a cell. ``spec`` and ``instance`` are JSON documents
(serialized objects); this module stores them and does not look inside.
Conventions as in :mod:`nova_lite.db.api.api`.
"""

import sqlalchemy as sa
from sqlalchemy.orm import exc as orm_exc

from nova_lite.db.api import api as api_db
from nova_lite.db.api import models
from nova_lite.db import rows
from nova_lite.db import session
from nova_lite import exception

_writer = api_db._writer
_reader = api_db._reader


# -- request specs ----------------------------------------------------------

@session.retry_on_transient
def request_spec_create(context, instance_uuid, spec):
    """Store the scheduling request of ``instance_uuid`` (a JSON dict)."""
    return rows.insert(
        _writer(context),
        models.RequestSpec(instance_uuid=instance_uuid, spec=spec),
        exception.Conflict(reason='request spec for instance %s exists'
                           % instance_uuid))


@session.retry_on_transient
def request_specs_create(context, specs):
    """Store the scheduling requests ``specs`` (``{instance_uuid: JSON
    dict}``) with one statement."""
    rows.insert_many(
        _writer(context), models.RequestSpec,
        [{'instance_uuid': uuid, 'spec': spec}
         for uuid, spec in specs.items()],
        exception.Conflict(reason='request spec for instance(s) %s exists'
                           % ', '.join(specs)))


def _request_spec_get(s, instance_uuid):
    return rows.first_or_raise(
        s, sa.select(models.RequestSpec).where(
            models.RequestSpec.instance_uuid == instance_uuid),
        exception.RequestSpecNotFound(instance_uuid=instance_uuid))


@session.retry_on_transient
def request_spec_get_by_instance_uuid(context, instance_uuid):
    with _reader(context) as s:
        return _request_spec_get(s, instance_uuid)


@session.retry_on_transient
def request_spec_get_by_instance_uuids(context, instance_uuids):
    """The stored specs of ``instance_uuids`` (those that have one), in
    one query: a list page reads its specs at once."""
    if not instance_uuids:
        return []
    with _reader(context) as s:
        return list(s.scalars(sa.select(models.RequestSpec).where(
            models.RequestSpec.instance_uuid.in_(list(instance_uuids)))))


@session.retry_on_transient
def request_spec_update(context, instance_uuid, spec):
    """Replace the stored spec (moves keep it current)."""
    with _writer(context) as s:
        row = _request_spec_get(s, instance_uuid)
        row.spec = spec
        s.flush()
    return row


@session.retry_on_transient
def request_spec_destroy(context, instance_uuid):
    with _writer(context) as s:
        s.delete(_request_spec_get(s, instance_uuid))


# -- build requests ---------------------------------------------------------

@session.retry_on_transient
def build_request_create(context, values):
    """Insert a build request (``instance_uuid``, ``project_id``, ...)."""
    row = models.BuildRequest()
    row.update(values)
    return rows.insert(_writer(context), row, exception.BuildRequestExists(
        uuid=values.get('instance_uuid')))


def _build_request_get(s, instance_uuid):
    return rows.first_or_raise(
        s, sa.select(models.BuildRequest).where(
            models.BuildRequest.instance_uuid == instance_uuid),
        exception.BuildRequestNotFound(uuid=instance_uuid))


@session.retry_on_transient
def build_request_get_by_instance_uuid(context, instance_uuid):
    with _reader(context) as s:
        return _build_request_get(s, instance_uuid)


@session.retry_on_transient
def build_request_created_at(context, instance_uuid):
    """The ``created_at`` of the build request of ``instance_uuid``, read
    alone (the super conductor's check that the user has not deleted the
    server meanwhile); BuildRequestNotFound."""
    with _reader(context) as s:
        return rows.first_row_or_raise(
            s, sa.select(models.BuildRequest.created_at).where(
                models.BuildRequest.instance_uuid == instance_uuid),
            exception.BuildRequestNotFound(uuid=instance_uuid)).created_at


@session.retry_on_transient
def build_request_get_all(context, project_id=None):
    """Pending build requests, newest first (servers list shows them)."""
    query = sa.select(models.BuildRequest).order_by(
        models.BuildRequest.created_at.desc(), models.BuildRequest.id.desc())
    if project_id is not None:
        query = query.where(models.BuildRequest.project_id == project_id)
    with _reader(context) as s:
        return list(s.scalars(query))


@session.retry_on_transient
def build_request_update(context, instance_uuid, values):
    with _writer(context) as s:
        row = _build_request_get(s, instance_uuid)
        row.update(values)
        s.flush()
    return row


@session.retry_on_transient
def build_request_hand_over(context, instance_uuid, cell_id):
    """Point the instance's mapping at its cell and delete its build
    request, in one transaction (the super conductor, once the instance
    exists in that cell).

    :returns: (the cell id the mapping had before, whether the build
        request was still there to delete: False means a user's delete
        won the race, and the conductor removes the instance again).
    :raises InstanceMappingNotFound: the user's delete removed the
        mapping already (nothing is written).
    """
    try:
        with _writer(context) as s:
            mapping = api_db._instance_mapping_get(s, instance_uuid)
            previous = mapping.cell_id
            mapping.cell_id = cell_id
            s.flush()
            count = s.execute(sa.delete(models.BuildRequest).where(
                models.BuildRequest.instance_uuid == instance_uuid)).rowcount
    except orm_exc.StaleDataError:
        # deleted between the read and the write (see
        # api.instance_mapping_update)
        raise exception.InstanceMappingNotFound(uuid=instance_uuid)
    return previous, bool(count)


@session.retry_on_transient
def build_request_destroy(context, instance_uuid):
    """Delete the build request; BuildRequestNotFound if already gone.

    The conductor and a user's delete can race here: whoever gets
    BuildRequestNotFound lost and must look for the instance in its cell.
    """
    with _writer(context) as s:
        count = s.execute(sa.delete(models.BuildRequest).where(
            models.BuildRequest.instance_uuid == instance_uuid)).rowcount
    if not count:
        raise exception.BuildRequestNotFound(uuid=instance_uuid)
