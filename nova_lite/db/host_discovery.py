"""Host discovery: map the compute hosts of a cell to it in the API DB.

Used by ``nova-lite-manage cell_v2 discover_hosts`` and by the
scheduler's periodic discovery (``[scheduler]
discover_hosts_in_cells_interval``). A host is new when it has compute
nodes with ``mapped = 0`` (or, ``by_service``, a compute service row) and
no host mapping; mapping it is idempotent, and a host already mapped to
another cell is reported as a conflict, never moved.
"""

from nova_lite.db.api import api as api_db
from nova_lite.db.cell import api as cell_db
from nova_lite import exception

COMPUTE_BINARY = 'nova-lite-compute'


def _quiet(message):
    pass


def map_host(ctx, cell, host, mapped, report=None):
    """Map ``host`` to ``cell`` unless it is; False if another cell has it.

    ``mapped`` ({host: cell id}) is what the API DB held before; a mapping
    created meanwhile by a concurrent discovery is re-read.
    """
    if host in mapped:
        return mapped[host] == cell.id
    report = report or _quiet
    report("Creating host mapping for compute host '%s': %s" % (
        host, cell.uuid))
    try:
        api_db.host_mapping_create(ctx, host, cell.id)
    except exception.HostMappingExists:
        return api_db.host_mapping_get_by_host(ctx, host).cell_id == cell.id
    return True


def discover_in_cell(ctx, cell, cell_ctx, by_service=False, report=None):
    """Map the cell's new hosts; returns (hosts added, conflicting hosts).

    ``ctx`` reaches the API DB, ``cell_ctx`` the cell's database;
    ``report`` (e.g. ``print``) hears what is done, step by step.
    """
    report = report or _quiet
    if by_service:
        hosts = [s.host for s in cell_db.service_get_all(
            cell_ctx, binary=COMPUTE_BINARY)]
        nodes = []
    else:
        nodes = cell_db.compute_node_get_all(cell_ctx, mapped=0)
        hosts = [n.host for n in nodes]
    hosts = list(dict.fromkeys(hosts))
    mapped = {m.host: m.cell_id for m in api_db.host_mapping_get_all(ctx)}
    report('Found %d unmapped computes in cell: %s' % (
        len([h for h in hosts if h not in mapped]), cell.uuid))
    added, conflicts = [], []
    for host in hosts:
        report("Checking host mapping for compute host '%s': %s" % (
            host, cell.uuid))
        if not map_host(ctx, cell, host, mapped, report):
            conflicts.append(host)
        elif host not in mapped:
            added.append(host)
    cell_db.compute_node_mark_mapped(
        cell_ctx, [n.id for n in nodes if n.host not in conflicts])
    return added, conflicts
