"""Light reads of a cell for ``os-hypervisors``: one page of compute nodes
and the compute services they belong to, as tuples and dicts.

The listing must stay fast at 10,000 nodes: full ComputeNode objects and
one service lookup per node (Nova's way) cost seconds there, a handful of
statements per cell read in one session cost milliseconds.
"""

import sqlalchemy as sa

from nova_lite.db.cell import api as cell_api
from nova_lite.db.cell import models
from nova_lite.db import session
from nova_lite import exception

_reader = cell_api._reader
_node = models.ComputeNode
# A marker id past this names nothing (SQLite cannot even compare it).
_INT_MAX = 2 ** 63 - 1


def _node_select(fields):
    """The live nodes' ``fields`` (``host`` must be one of them)."""
    return sa.select(*[getattr(_node, n) for n in fields]).where(
        _node.deleted == 0)


def _marker_id(s, marker, by_uuid):
    """The id of the live node a marker names in this cell, or None.

    A uuid-like marker names a node's uuid, any other an integer id (as
    Nova's, which looks a uuid marker up by uuid and passes any other to
    its id paging); a marker that is neither names nothing.
    """
    if by_uuid:
        where = _node.uuid == marker
    elif marker.isdigit() and int(marker) <= _INT_MAX:
        where = _node.id == int(marker)
    else:
        return None
    return s.execute(sa.select(_node.id).where(
        where, _node.deleted == 0)).scalar()


def _services(s, binary, hosts):
    """``{host: service dict}`` of the ``binary`` services of ``hosts``."""
    svc = models.Service
    if not hosts:
        return {}
    return {row.host: dict(row._mapping) for row in s.execute(sa.select(
        svc.id, svc.uuid, svc.host, svc.disabled, svc.disabled_reason,
        svc.forced_down, svc.last_seen_up, svc.created_at).where(
        svc.binary == binary, svc.host.in_(sorted(hosts))))}


def _hosts(fields, nodes):
    at = fields.index('host')
    return {n[at] for n in nodes}


@session.retry_on_transient
def node_page(context, binary, fields, limit=None, marker=None,
              by_uuid=False):
    """``(nodes, services)`` of one page of this cell's live nodes.

    :param marker: None or the uuid (``by_uuid``) or id of a node; the
        page starts after that node (MarkerNotFound when it is not in
        this cell).
    :param limit: at most this many nodes (None: all), by id.
    :returns: ``nodes`` as tuples of the ``fields`` columns and
        ``{host: service dict}`` of their ``binary`` services.
    """
    query = _node_select(fields).order_by(_node.id)
    with _reader(context) as s:
        if marker is not None:
            after = _marker_id(s, marker, by_uuid)
            if after is None:
                raise exception.MarkerNotFound(marker=marker)
            query = query.where(_node.id > after)
        if limit is not None:
            query = query.limit(limit)
        nodes = [tuple(r) for r in s.execute(query)]
        return nodes, _services(s, binary, _hosts(fields, nodes))


@session.retry_on_transient
def nodes_matching(context, binary, fields, pattern):
    """``(nodes, services)`` of the live nodes whose hypervisor hostname
    contains ``pattern`` (SQL ``LIKE '%pattern%'``, as Nova's search)."""
    query = _node_select(fields).where(
        _node.hypervisor_hostname.like('%' + pattern + '%')).order_by(
        _node.id)
    with _reader(context) as s:
        nodes = [tuple(r) for r in s.execute(query)]
        return nodes, _services(s, binary, _hosts(fields, nodes))


@session.retry_on_transient
def statistics(context, binary, fields):
    """``(count, sum of each of fields)`` over this cell's live nodes whose
    ``binary`` service is enabled: one aggregate statement, as Nova's
    ``compute_node_statistics`` (a node of a disabled or deleted service
    is not counted). NULL sums are 0."""
    svc = models.Service
    query = sa.select(
        sa.func.count(),
        *[sa.func.sum(getattr(_node, name)) for name in fields]).select_from(
        _node).join(svc, sa.and_(svc.host == _node.host,
                                 svc.binary == binary,
                                 svc.disabled == sa.false())).where(
        _node.deleted == 0)
    with _reader(context) as s:
        row = s.execute(query).one()
    return tuple(int(value or 0) for value in row)


@session.retry_on_transient
def servers_on(context, hosts):
    """``{(host, node): [(display_name, uuid)]}`` of the live instances
    of ``hosts``, in creation order."""
    inst = models.Instance
    found = {}
    if not hosts:
        return found
    for name, uuid, host, node in _reader_rows(context, sa.select(
            inst.display_name, inst.uuid, inst.host, inst.node).where(
            inst.deleted == 0, inst.host.in_(sorted(hosts))).order_by(
            inst.id)):
        found.setdefault((host, node), []).append((name, uuid))
    return found


def _reader_rows(context, query):
    with _reader(context) as s:
        return s.execute(query).all()
