"""API database API of the network service.

Every resource is one row of ``network_resources`` (its kind, project and
API fields as JSON); the fixed IPs ports and floating IPs hold are rows of
``network_ip_allocations``, unique per network, so a concurrent
allocation of the same address fails here (IpAddressInUse) instead of
handing it out twice. A resource and its addresses are written in one
transaction. A port's ``device_id`` is a column too (indexed), so the
ports of given servers are read without reading every port.
"""

import sqlalchemy as sa
from sqlalchemy.orm import exc as orm_exc

from nova_lite.db.api import models
from nova_lite.db import rows
from nova_lite.db import session
from nova_lite.db import types
from nova_lite import exception

R = models.NetworkResource
A = models.NetworkIPAllocation


def _writer(context):
    return session.get_api_context_manager().writer.using(context)


def _reader(context):
    return session.get_api_context_manager().reader.using(context)


def _get(s, kind, uuid):
    return rows.first_or_raise(
        s, sa.select(R).where(R.uuid == uuid, R.kind == kind),
        exception.NetworkResourceNotFound(kind=kind, uuid=uuid))


def _device_of(kind, body):
    """The column value of a resource's ``device_id`` (ports only; an
    unbound port's '' is NULL)."""
    if kind != 'port':
        return None
    return (body or {}).get('device_id') or None


def _add_ips(s, owner_uuid, ips):
    for network_uuid, subnet_uuid, address in ips:
        row = A()
        row.update({'network_uuid': network_uuid, 'subnet_uuid': subnet_uuid,
                    'ip_address': address, 'owner_uuid': owner_uuid})
        with rows.duplicate_raises(exception.IpAddressInUse(
                net_id=network_uuid, ip_address=address)):
            s.add(row)
            s.flush()


@session.retry_on_transient
def resource_create(context, kind, uuid, project_id, body, ips=()):
    """Insert a resource and the addresses it holds, ``ips`` a list of
    (network, subnet, address) (NetworkResourceExists, IpAddressInUse)."""
    row = R()
    row.update({'uuid': uuid, 'kind': kind, 'project_id': project_id,
                'device_id': _device_of(kind, body), 'body': body})
    with _writer(context) as s:
        with rows.duplicate_raises(exception.NetworkResourceExists(
                kind=kind, uuid=uuid)):
            s.add(row)
            s.flush()
        _add_ips(s, uuid, ips)
    return row


def resource_get(context, kind, uuid):
    with _reader(context) as s:
        return _get(s, kind, uuid)


def resource_get_all(context, kind, project_id=None):
    """The resources of a kind (of one project), oldest first."""
    query = sa.select(R).where(R.kind == kind)
    if project_id is not None:
        query = query.where(R.project_id == project_id)
    with _reader(context) as s:
        return list(s.scalars(query.order_by(R.id)))


def resource_get_by_devices(context, kind, device_ids):
    """The resources of a kind bound to any of ``device_ids`` (the ports
    of some servers), oldest first, through the device index."""
    device_ids = list(device_ids)
    if not device_ids:
        return []
    query = sa.select(R).where(R.kind == kind, R.device_id.in_(device_ids))
    with _reader(context) as s:
        return list(s.scalars(query.order_by(R.id)))


@session.retry_on_transient
def resource_update(context, kind, uuid, body, ips=None):
    """Replace a resource's fields; with ``ips``, the addresses it holds
    too (NetworkResourceNotFound, IpAddressInUse)."""
    try:
        with _writer(context) as s:
            row = _get(s, kind, uuid)
            row.body = body
            row.device_id = _device_of(kind, body)
            row.updated_at = types.utcnow()
            if ips is not None:
                s.execute(sa.delete(A).where(A.owner_uuid == uuid))
                s.flush()
                _add_ips(s, uuid, ips)
            s.flush()
    except orm_exc.StaleDataError:
        # A concurrent delete took the row between the read and the
        # update: the resource is gone, as a read after it would say.
        raise exception.NetworkResourceNotFound(kind=kind, uuid=uuid)
    return row


@session.retry_on_transient
def resource_destroy(context, kind, uuid):
    """Delete a resource and free its addresses
    (NetworkResourceNotFound)."""
    with _writer(context) as s:
        s.execute(sa.delete(A).where(A.owner_uuid == uuid))
        count = s.execute(sa.delete(R).where(R.uuid == uuid,
                                             R.kind == kind)).rowcount
    if not count:
        raise exception.NetworkResourceNotFound(kind=kind, uuid=uuid)


def addresses_in_use(context, network_uuid):
    """The addresses held on a network."""
    with _reader(context) as s:
        return set(s.scalars(sa.select(A.ip_address).where(
            A.network_uuid == network_uuid)))
