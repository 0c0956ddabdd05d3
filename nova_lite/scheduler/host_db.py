"""The scheduler's reads of cell databases: narrow, column-only, fast.

The host manager refreshes its cache on every request, so its reads must
cost little even at 10,000 compute nodes: plain column selects (no ORM
objects), and for compute nodes and instances only the rows changed since
a point in time (``since``; None reads every live row). A changed row may
be a deleted one, so incremental reads include soft-deleted rows and the
caller drops them (``deleted != 0``).

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


def _changed_since(model, since):
    return sa.or_(model.updated_at >= since, model.created_at >= since,
                  model.deleted_at >= since)


def compute_nodes(context, since=None):
    """Compute node rows as dicts (live only when ``since`` is None)."""
    query = sa.select(*_NODE_COLUMNS)
    if since is None:
        query = query.where(_NODE.deleted == 0)
    else:
        query = query.where(_changed_since(_NODE, since))
    with _reader(context) as s:
        return [row._asdict() for row in s.execute(query)]


def compute_services(context, since=None):
    """Compute service rows of the cell as dicts (with ``since``: those
    created or updated - a heartbeat is an update - since then)."""
    query = sa.select(*_SERVICE_COLUMNS).where(
        _SERVICE.binary == COMPUTE_BINARY)
    if since is not None:
        query = query.where(sa.or_(_SERVICE.updated_at >= since,
                                   _SERVICE.created_at >= since))
    with _reader(context) as s:
        return [row._asdict() for row in s.execute(query)]


def instances_on_hosts(context, since=None):
    """``(uuid, host, node, project_id, deleted)`` of instances with a host.

    With ``since``, every instance changed since then (deleted ones and
    ones that lost their host included, so the caller can forget them).
    """
    query = sa.select(*_INSTANCE_COLUMNS)
    if since is None:
        query = query.where(_INSTANCE.deleted == 0,
                            _INSTANCE.host.is_not(None))
    else:
        query = query.where(_changed_since(_INSTANCE, since))
    with _reader(context) as s:
        return [tuple(row) for row in s.execute(query)]

