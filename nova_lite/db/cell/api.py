"""Cell database API: services and compute nodes.

Every function takes a :class:`nova_lite.context.RequestContext` and works
on the cell that context is targeted at (``context.db_connection``), or on
this process's ``[database]`` cell when it is not targeted. Write functions
are whole transactions retried on deadlocks and SQLite lock timeouts, so
call them outside any transaction of your own.

Rows come back as model objects detached from their session with every
column loaded (oslo.db's sessions do not expire on commit); read them, do
not write to them - use the ``*_update`` functions.

Instances, faults, actions and migrations are in
:mod:`nova_lite.db.cell.instance_api`.
"""

from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.db.cell import models
from nova_lite.db import rows
from nova_lite.db import session
from nova_lite.db import types
from nova_lite import exception


def _writer(context):
    return session.cell_context_manager_for(context).writer.using(context)


def _reader(context):
    return session.cell_context_manager_for(context).reader.using(context)


def filter_deleted(query, model, context):
    """Apply ``context.read_deleted`` ('no', 'yes', 'only') to a query."""
    read_deleted = getattr(context, 'read_deleted', 'no')
    if read_deleted == 'no':
        return query.where(model.deleted == 0)
    if read_deleted == 'only':
        return query.where(model.deleted != 0)
    return query


# -- services ---------------------------------------------------------------

@session.retry_on_transient
def service_create(context, values):
    """Insert a service row; raise ServiceExists on (host, binary|topic)."""
    values = dict(values)
    values.setdefault('uuid', uuidutils.generate_uuid())
    service = models.Service()
    service.update(values)
    return rows.insert(_writer(context), service, exception.ServiceExists(
        host=values.get('host'), binary=values.get('binary')))


def _service_get(s, service_id):
    service = s.get(models.Service, service_id)
    if service is None:
        raise exception.ServiceNotFound(service_id=service_id)
    return service


@session.retry_on_transient
def service_get(context, service_id):
    """The service with primary key ``service_id`` (ServiceNotFound)."""
    with _reader(context) as s:
        return _service_get(s, service_id)


@session.retry_on_transient
def service_get_by_uuid(context, service_uuid):
    """The service with ``service_uuid`` (ServiceNotFound)."""
    with _reader(context) as s:
        return rows.first_or_raise(
            s, sa.select(models.Service).where(
                models.Service.uuid == service_uuid),
            exception.ServiceNotFound(service_id=service_uuid))


@session.retry_on_transient
def service_get_by_host_and_binary(context, host, binary):
    """The ``binary`` service of ``host`` (HostBinaryNotFound)."""
    with _reader(context) as s:
        return rows.first_or_raise(
            s, sa.select(models.Service).where(
                models.Service.host == host,
                models.Service.binary == binary),
            exception.HostBinaryNotFound(host=host, binary=binary))


@session.retry_on_transient
def service_heartbeat(context, host, binary):
    """What tells whether the ``binary`` service of ``host`` is up
    (``forced_down``, ``last_seen_up``, ``created_at``), three columns
    read (HostBinaryNotFound)."""
    query = sa.select(
        models.Service.forced_down, models.Service.last_seen_up,
        models.Service.created_at).where(
        models.Service.host == host,
        models.Service.binary == binary).limit(1)
    with _reader(context) as s:
        row = rows.first_row_or_raise(
            s, query, exception.HostBinaryNotFound(host=host, binary=binary))
    return row._asdict()


@session.retry_on_transient
def service_get_all(context, binary=None, include_disabled=True, host=None):
    """All services of the cell, optionally of one binary and/or host."""
    query = sa.select(models.Service).order_by(models.Service.id)
    if binary is not None:
        query = query.where(models.Service.binary == binary)
    if host is not None:
        query = query.where(models.Service.host == host)
    if not include_disabled:
        query = query.where(models.Service.disabled == sa.false())
    with _reader(context) as s:
        return list(s.scalars(query))


@session.retry_on_transient
def service_update(context, service_id, values):
    """Update a service; a higher ``report_count`` also sets last_seen_up.

    The heartbeat (``report_count`` + 1) and ``last_seen_up`` land in the
    same UPDATE statement.
    """
    values = dict(values)
    taken = exception.ServiceExists(host=values.get('host'),
                                    binary=values.get('binary'))
    with rows.duplicate_raises(taken), _writer(context) as s:
        service = _service_get(s, service_id)
        new_count = values.get('report_count')
        if new_count is not None and new_count > service.report_count:
            values['last_seen_up'] = types.utcnow()
        service.update(values)
        s.flush()
    return service


@session.retry_on_transient
def service_destroy(context, service_id):
    """Delete the service row (ServiceNotFound if it is gone already)."""
    with _writer(context) as s:
        s.delete(_service_get(s, service_id))


# -- compute nodes ----------------------------------------------------------

@session.retry_on_transient
def compute_node_create(context, values):
    """Insert a compute node (its uuid defaults to a new one).

    Raises ComputeNodeExists when (host, hypervisor_hostname) or the uuid is
    taken by a live node.
    """
    values = dict(values)
    values.setdefault('uuid', uuidutils.generate_uuid())
    node = models.ComputeNode()
    node.update(values)
    return rows.insert(_writer(context), node, exception.ComputeNodeExists(
        host=values.get('host'), node=values.get('hypervisor_hostname')))


def _compute_node_query(context):
    return filter_deleted(sa.select(models.ComputeNode), models.ComputeNode,
                          context).order_by(models.ComputeNode.id)


@session.retry_on_transient
def compute_node_get(context, compute_id):
    """The compute node with primary key ``compute_id``."""
    query = _compute_node_query(context).where(
        models.ComputeNode.id == compute_id)
    with _reader(context) as s:
        return rows.first_or_raise(
            s, query,
            exception.ComputeNodeNotFound(node=compute_id))


@session.retry_on_transient
def compute_node_get_by_uuid(context, node_uuid):
    """The compute node whose (provider) uuid is ``node_uuid``."""
    query = _compute_node_query(context).where(
        models.ComputeNode.uuid == node_uuid)
    with _reader(context) as s:
        return rows.first_or_raise(
            s, query,
            exception.ComputeNodeNotFound(node=node_uuid))


@session.retry_on_transient
def compute_node_get_by_host_and_nodename(context, host, nodename):
    """The live node ``nodename`` of ``host`` (ComputeNodeNotFound)."""
    query = _compute_node_query(context).where(
        models.ComputeNode.host == host,
        models.ComputeNode.hypervisor_hostname == nodename)
    with _reader(context) as s:
        return rows.first_or_raise(
            s, query,
            exception.ComputeNodeNotFound(node=nodename))


@session.retry_on_transient
def compute_node_get_all(context, mapped=None):
    """Every compute node of the cell (``mapped``: only 0 or only 1)."""
    query = _compute_node_query(context)
    if mapped is not None:
        query = query.where(models.ComputeNode.mapped == mapped)
    with _reader(context) as s:
        return list(s.scalars(query))


@session.retry_on_transient
def compute_node_get_all_by_host(context, host):
    """The nodes of ``host`` (ComputeHostNotFound when it has none)."""
    query = _compute_node_query(context).where(
        models.ComputeNode.host == host)
    with _reader(context) as s:
        nodes = list(s.scalars(query))
    if not nodes:
        raise exception.ComputeHostNotFound(host=host)
    return nodes


@session.retry_on_transient
def compute_node_update(context, compute_id, values):
    """Update a live compute node and return it."""
    with _writer(context) as s:
        node = s.scalars(sa.select(models.ComputeNode).where(
            models.ComputeNode.id == compute_id,
            models.ComputeNode.deleted == 0)).first()
        if node is None:
            raise exception.ComputeNodeNotFound(node=compute_id)
        node.update(values)
        s.flush()
    return node


@session.retry_on_transient
def compute_node_delete(context, compute_id):
    """Soft-delete a compute node (``deleted`` = its id)."""
    with _writer(context) as s:
        count = s.execute(sa.update(models.ComputeNode).where(
            models.ComputeNode.id == compute_id,
            models.ComputeNode.deleted == 0).values(
                deleted=models.ComputeNode.id,
                deleted_at=types.utcnow())).rowcount
    if not count:
        raise exception.ComputeNodeNotFound(node=compute_id)


@session.retry_on_transient
def compute_node_restore(context, compute_id):
    """Bring a soft-deleted node back (a hypervisor that reappeared).

    Raises ComputeNodeExists when a live node took its (host, nodename).
    """
    key = {}
    try:
        with _writer(context) as s:
            node = s.get(models.ComputeNode, compute_id)
            if node is None:
                raise exception.ComputeNodeNotFound(node=compute_id)
            key = {'host': node.host, 'node': node.hypervisor_hostname}
            node.deleted = 0
            node.deleted_at = None
            s.flush()
    except db_exc.DBDuplicateEntry:
        raise exception.ComputeNodeExists(**key)
    return node


@session.retry_on_transient
def compute_nodes_save(context, host, nodes):
    """Write many nodes of ``host`` in one transaction; their rows.

    :param nodes: ``{nodename: values}``; each node's live row of
        (``host``, nodename) gets ``values``; without one, a soft-deleted
        row with ``values['uuid']`` is restored (to ``host``) and gets
        them, as does a live row with that uuid elsewhere (the node moved
        host); otherwise a row is inserted. ``uuid`` never changes on an
        existing row.
    :returns: ``{nodename: row}``.
    :raises ComputeNodeExists: a unique key clashes; nothing is written.
    """
    names = list(nodes)
    uuids = [v['uuid'] for v in nodes.values() if v.get('uuid')]
    result = {}
    taken = exception.ComputeNodeExists(host=host, node=','.join(names))
    with rows.duplicate_raises(taken), _writer(context) as s:
        live = {n.hypervisor_hostname: n for n in s.scalars(
            sa.select(models.ComputeNode).where(
                models.ComputeNode.host == host,
                models.ComputeNode.hypervisor_hostname.in_(names),
                models.ComputeNode.deleted == 0))}
        by_uuid = {}
        if uuids:
            by_uuid = {n.uuid: n for n in s.scalars(
                sa.select(models.ComputeNode).where(
                    models.ComputeNode.uuid.in_(uuids)))}
        for name, values in nodes.items():
            node = live.get(name)
            if node is None:
                # NOTE(nova_lite): as compute_node_get_or_create: the row
                # with this uuid, deleted or on another host, is taken
                # over (a node that came back, or moved host).
                node = by_uuid.get(values.get('uuid'))
            if node is None:
                node = models.ComputeNode()
                node.update(dict(values, host=host,
                                 hypervisor_hostname=name))
                node.uuid = values.get('uuid') or \
                    uuidutils.generate_uuid()
                s.add(node)
            else:
                node.update({k: v for k, v in values.items()
                             if k != 'uuid'})
                node.host = host
                node.hypervisor_hostname = name
                node.deleted = 0
                node.deleted_at = None
            result[name] = node
        s.flush()
    return result


@session.retry_on_transient
def compute_node_mark_mapped(context, compute_ids):
    """Set ``mapped`` = 1 on the given nodes (discover_hosts)."""
    if not compute_ids:
        return 0
    with _writer(context) as s:
        return s.execute(sa.update(models.ComputeNode).where(
            models.ComputeNode.id.in_(list(compute_ids))).values(
                mapped=1,
                updated_at=models.ComputeNode.updated_at)).rowcount


@session.retry_on_transient
def compute_node_mark_unmapped(context, compute_ids):
    """Set ``mapped`` = 0 (delete_host: discover_hosts will map them again)."""
    if not compute_ids:
        return 0
    with _writer(context) as s:
        return s.execute(sa.update(models.ComputeNode).where(
            models.ComputeNode.id.in_(list(compute_ids))).values(
                mapped=0,
                updated_at=models.ComputeNode.updated_at)).rowcount
