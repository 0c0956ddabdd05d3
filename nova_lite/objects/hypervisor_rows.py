"""What ``os-hypervisors`` reads of a cell, as plain tuples and dicts (no
versioned objects: nothing here crosses RPC, and 10,000 objects plus a
service lookup per node cost seconds). The API uses these, never
:mod:`nova_lite.db`."""


def _db():
    # NOTE(nova_lite): imported late (objects never load the SQL layer
    # at import).
    from nova_lite.db.cell import hypervisor_api
    return hypervisor_api


NODE_FIELDS = ('id', 'uuid', 'host', 'hypervisor_hostname')
DETAIL_FIELDS = ('hypervisor_type', 'hypervisor_version', 'stats',
                 'vcpus', 'memory_mb', 'local_gb', 'vcpus_used',
                 'memory_mb_used', 'local_gb_used', 'free_ram_mb',
                 'free_disk_gb', 'running_vms', 'disk_available_least',
                 'cpu_info')


def _fields(detail):
    return NODE_FIELDS + DETAIL_FIELDS if detail else NODE_FIELDS


def node_page(context, binary, limit=None, marker=None, by_uuid=False,
              detail=False):
    """``(node tuples, {host: service dict})`` of one page of the cell's
    live nodes by id, after the node ``marker`` names (its uuid when
    ``by_uuid``, else its id; MarkerNotFound when not in this cell).
    Tuples hold :data:`NODE_FIELDS` (+ :data:`DETAIL_FIELDS` when
    ``detail``)."""
    return _db().node_page(context, binary, _fields(detail), limit=limit,
                           marker=marker, by_uuid=by_uuid)


def nodes_matching(context, binary, pattern, detail=False):
    """As :func:`node_page`, for the nodes whose hypervisor hostname
    contains ``pattern`` (SQL ``LIKE``, as Nova's search)."""
    return _db().nodes_matching(context, binary, _fields(detail), pattern)


def servers_on(context, hosts):
    """``{(host, node): [(display_name, uuid)]}`` of the cell's live
    instances on ``hosts``."""
    return _db().servers_on(context, hosts)


STATISTICS_FIELDS = ('vcpus', 'memory_mb', 'local_gb', 'vcpus_used',
                     'memory_mb_used', 'local_gb_used', 'free_ram_mb',
                     'free_disk_gb', 'running_vms', 'disk_available_least')


def statistics(context, binary):
    """``{'count': n, field: sum}`` over the cell's live nodes of enabled
    ``binary`` services (:data:`STATISTICS_FIELDS`), in one statement."""
    values = _db().statistics(context, binary, STATISTICS_FIELDS)
    return dict(zip(('count',) + STATISTICS_FIELDS, values, strict=True))
