"""What the capacity dashboard reads of a cell, as plain tuples (no
versioned objects: nothing here crosses RPC, and 10,000 objects cost
seconds to build). The API uses these, never :mod:`nova_lite.db`."""


def _db():
    # NOTE(nova_lite): imported late (objects never load the SQL layer
    # at import).
    from nova_lite.db.cell import capacity_api
    return capacity_api


def node_rows(context):
    """``[(uuid, host, hypervisor_hostname)]`` of the cell's nodes."""
    return _db().node_rows(context)


def instance_rows(context):
    """``[(uuid, name, project_id, vm_state, node)]`` of the cell's
    instances on a node."""
    return _db().instance_rows(context)


def cell_rows(context, binary):
    """``(services as dicts, node rows, instance rows)`` of the cell, read
    in one session (see :func:`node_rows`, :func:`instance_rows`)."""
    return _db().cell_rows(context, binary)
