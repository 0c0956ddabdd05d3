"""The scheduler's reads of cell databases: narrow, column-only, fast.

The host manager refreshes its cache on every request, so its reads must
cost little even at 10,000 compute nodes: plain column selects (no ORM
objects), and for compute nodes and instances only the rows changed since
a point in time (``since``; None reads every live row). A changed row may
be a deleted one, so incremental reads include soft-deleted rows and the
caller drops them (``deleted != 0``).

"Changed since" is one indexed range read per timestamp column
(``updated_at``, ``created_at``, ``deleted_at``: each has an index) joined
with UNION ALL, the duplicates dropped here. Written as one ``OR``, SQLite
scans the whole table instead (its planner does not merge the indexes),
which made every request's cost grow with the number of nodes and
instances. :func:`reading` keeps the three reads of a refresh in one
transaction.

Each function takes a context targeted at the cell (``db_connection``).
"""

import sqlalchemy as sa

from nova_lite.db.cell import models
from nova_lite.db import session

COMPUTE_BINARY = 'nova-lite-compute'

_NODE = models.ComputeNode
_NODE_COLUMNS = (
    _NODE.uuid, _NODE.host, _NODE.hypervisor_hostname, _NODE.vcpus,
    _NODE.memory_mb, _NODE.local_gb, _NODE.vcpus_used, _NODE.memory_mb_used,
    _NODE.local_gb_used, _NODE.running_vms, _NODE.free_ram_mb,
    _NODE.free_disk_gb, _NODE.disk_available_least, _NODE.hypervisor_type,
    _NODE.hypervisor_version, _NODE.cpu_info, _NODE.cpu_allocation_ratio,
    _NODE.ram_allocation_ratio, _NODE.disk_allocation_ratio,
    _NODE.failed_builds, _NODE.stats, _NODE.created_at, _NODE.updated_at,
    _NODE.deleted)

_SERVICE = models.Service
_SERVICE_COLUMNS = (
    _SERVICE.id, _SERVICE.host, _SERVICE.binary, _SERVICE.disabled,
    _SERVICE.disabled_reason, _SERVICE.forced_down, _SERVICE.last_seen_up,
    _SERVICE.created_at, _SERVICE.updated_at)

_INSTANCE = models.Instance
_INSTANCE_COLUMNS = (_INSTANCE.uuid, _INSTANCE.host, _INSTANCE.node,
                     _INSTANCE.project_id, _INSTANCE.deleted)


def _reader(context):
    return session.cell_context_manager_for(context).reader.using(context)


def reading(context):
    """One read transaction for the reads of a refresh (the functions
    below join it when they run inside it)."""
    return _reader(context)


def _changed_since(columns, stamps, *where):
    """Rows of ``columns`` (``where``) with any of the ``stamps`` columns
    at or after the ``since`` parameter: one indexed range read per
    column, so a row may come once per column (see the module
    docstring)."""
    since = sa.bindparam('since')
    return sa.union_all(*[sa.select(*columns).where(stamp >= since, *where)
                          for stamp in stamps])


def _unique(rows, key):
    """``rows`` without repeats of the same ``key`` value, in order."""
    seen = set()
    unique = []
    for row in rows:
        if row[key] not in seen:
            seen.add(row[key])
            unique.append(row)
    return unique


def _stamps(model):
    return (model.updated_at, model.created_at, model.deleted_at)


# NOTE(sched): built once: making them cost more than running them.
_LIVE_NODES = sa.select(*_NODE_COLUMNS).where(_NODE.deleted == 0)
_CHANGED_NODES = _changed_since(_NODE_COLUMNS, _stamps(_NODE))
_IS_COMPUTE = _SERVICE.binary == COMPUTE_BINARY
_SERVICES = sa.select(*_SERVICE_COLUMNS).where(_IS_COMPUTE)
_CHANGED_SERVICES = _changed_since(
    _SERVICE_COLUMNS, (_SERVICE.updated_at, _SERVICE.created_at),
    _IS_COMPUTE)
_INSTANCES_ON_HOSTS = sa.select(*_INSTANCE_COLUMNS).where(
    _INSTANCE.deleted == 0, _INSTANCE.host.is_not(None))
_CHANGED_INSTANCES = _changed_since(_INSTANCE_COLUMNS, _stamps(_INSTANCE))


def _rows(context, full_query, changed_query, since):
    with _reader(context) as s:
        if since is None:
            return s.execute(full_query).all()
        return s.execute(changed_query, {'since': since}).all()


def compute_nodes(context, since=None):
    """Compute node rows as dicts (live only when ``since`` is None)."""
    rows = [row._asdict() for row in _rows(context, _LIVE_NODES,
                                           _CHANGED_NODES, since)]
    return rows if since is None else _unique(rows, 'uuid')


def compute_services(context, since=None):
    """Compute service rows of the cell as dicts (with ``since``: those
    created or updated - a heartbeat is an update - since then)."""
    rows = [row._asdict() for row in _rows(context, _SERVICES,
                                           _CHANGED_SERVICES, since)]
    return rows if since is None else _unique(rows, 'id')


def instances_on_hosts(context, since=None):
    """``(uuid, host, node, project_id, deleted)`` of instances with a host.

    With ``since``, every instance changed since then (deleted ones and
    ones that lost their host included, so the caller can forget them).
    """
    rows = [tuple(row) for row in _rows(context, _INSTANCES_ON_HOSTS,
                                        _CHANGED_INSTANCES, since)]
    return rows if since is None else _unique(rows, 0)

