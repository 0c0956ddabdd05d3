"""Reading servers: one server, or many merged across cells.

The read side of the compute API layer (:mod:`nova_lite.api.compute.api`):
build requests are servers too (not yet in a cell), every cell is read
at once with a per-cell timeout (:func:`nova_lite.cells.scatter_gather`),
and the lists are merged newest first. A cell that does not answer gives
minimal ``UNKNOWN`` records when the caller can show them (2.69+), else
its servers are left out with a warning, or the request fails when
``[api] list_records_by_skipping_down_cells`` is off.
"""

import heapq
import re

from oslo_db import exception as db_exc
from oslo_log import log as logging
from sqlalchemy import exc as sa_exc

from nova_lite.api.compute import server_sort
from nova_lite import cells
from nova_lite.compute import vm_states
from nova_lite import conf as nl_conf
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import db_transaction

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

# What a cell database that does not answer raises.
_CELL_DOWN_ERRORS = (db_exc.DBError, sa_exc.SQLAlchemyError, ConnectionError,
                     TimeoutError, OSError)


@db_transaction.retry_on_transient
def reading(context, func, *args, **kwargs):
    """``func(*args, **kwargs)`` with every API database read it makes on
    ``context`` in one transaction: a GET's mapping, build request or
    group, spec and ports cost one BEGIN/COMMIT, not one each, and see
    one snapshot (the conductor maps a server before it deletes its build
    request, so a snapshot never misses both). Cell reads keep their own
    (cell contexts are copies). Retried whole on a transient error, as
    each read was."""
    with db_transaction.api_reading(context):
        return func(*args, **kwargs)


class Server:
    """One server for the views: its instance, where it is, its fault.

    ``instance`` is an :class:`objects.Instance` (for a build request, one
    that is not in any database). ``down`` marks a minimal record from a
    cell that did not answer; only ``uuid``, ``project_id``, ``user_id``
    and ``created_at`` are known then.
    """

    def __init__(self, instance, cell=None, fault=None, down=False,
                 build_request=False, request_spec=None):
        self.instance = instance
        self.cell = cell
        self.fault = fault
        self.down = down
        self.build_request = build_request
        self.request_spec = request_spec

    @property
    def uuid(self):
        return self.instance.uuid

    def sort_key(self):
        created = self.instance.created_at
        stamp = created.replace(tzinfo=None).isoformat() if created else ''
        return (stamp, self.instance.uuid)


def instance_from_build_request(context, build_request):
    values = dict(build_request.instance)
    values.pop('id', None)
    instance = objects.Instance(context)
    for name, value in values.items():
        if name in instance.fields:
            setattr(instance, name, value)
    instance.uuid = build_request.instance_uuid
    instance.created_at = build_request.created_at
    instance.updated_at = build_request.updated_at
    for name in ('host', 'node', 'launched_at', 'deleted_at', 'power_state'):
        if not instance.obj_attr_is_set(name):
            setattr(instance, name, None)
    instance.deleted = False
    instance.obj_reset_changes()
    return instance


def down_server(context, mapping):
    """A minimal record of a server in a cell that did not answer."""
    instance = objects.Instance(context, uuid=mapping.instance_uuid,
                                project_id=mapping.project_id,
                                user_id=mapping.user_id,
                                created_at=mapping.created_at)
    spec = None
    try:
        spec = objects.RequestSpec.get_by_instance_uuid(
            context, mapping.instance_uuid).to_json_dict()
    except exception.RequestSpecNotFound:
        pass
    return Server(instance, cell=mapping.cell_mapping, down=True,
                  request_spec=spec)


def get(context, uuid, with_fault=True):
    """The server ``uuid`` (InstanceNotFound)."""
    try:
        mapping = objects.InstanceMapping.get_by_instance_uuid(context, uuid)
    except exception.InstanceMappingNotFound:
        raise exception.InstanceNotFound(instance_id=uuid)
    if mapping.cell_mapping is None:
        try:
            build_request = objects.BuildRequest.get_by_instance_uuid(
                context, uuid)
            instance = instance_from_build_request(context, build_request)
            return Server(instance, build_request=True)
        except exception.BuildRequestNotFound:
            # NOTE(nova_lite): the conductor mapped it meanwhile.
            mapping = objects.InstanceMapping.get_by_instance_uuid(
                context, uuid)
            if mapping.cell_mapping is None:
                raise exception.InstanceNotFound(instance_id=uuid)
    return _get_in_cell(context, mapping, with_fault)


def _get_in_cell(context, mapping, with_fault):
    cell = mapping.cell_mapping
    # A cell that does not answer within [api] cell_timeout is down, as
    # for a list.
    with cells.waiting(CONF.api.cell_timeout), \
            cells.target_cell(context, cell) as cctxt:
        try:
            instance = objects.Instance.get_by_uuid(
                cctxt, mapping.instance_uuid)
        except _CELL_DOWN_ERRORS as exc:
            LOG.warning('Cell %s did not answer for instance %s: %s',
                        cell.identity, mapping.instance_uuid, exc)
            return down_server(context, mapping)
        fault = None
        if with_fault and instance.vm_state in (vm_states.ERROR,
                                                vm_states.DELETED):
            fault = objects.InstanceFault.get_latest_for_instance(
                cctxt, instance.uuid)
    return Server(instance, cell=cell, fault=fault)


def get_all(context, filters=None, limit=None, marker=None,
            want_down_cells=False, cell_timeout=None, sort=None):
    """Servers matching ``filters``, newest first, across cells.

    ``sort``: [(key, 'asc'|'desc')] to order them otherwise
    (:mod:`nova_lite.api.compute.server_sort`).

    ``filters``: exact column filters (``project_id``, ``host``,
    ``image_ref``, ``instance_type_id``, ``vm_state``, ...) plus
    ``name`` (a regular expression on the display name),
    ``changes-since``, ``changes-before`` (datetimes) and ``deleted``
    (bool). ``marker`` is
    the uuid of the last server of the previous page.
    """
    filters = filters or {}
    _name_pattern(filters)
    if sort:
        page = _sorted_page(context, filters, limit, marker,
                            want_down_cells, cell_timeout, sort)
        if page is not None:
            return page
    keyset = not sort
    if marker is not None and keyset:
        after = _marker_server(context, marker)
        if after is not None:
            # NOTE(nova_lite): a page after a marker is read from the
            # marker's sort key on, ``limit`` rows per source at most:
            # later pages cost what the first does, not the whole list.
            filters = dict(filters, before=after)
            marker = None
    # NOTE(nova_lite): without a marker the first
    # ``limit`` of the merge are among each source's first ``limit``.
    per_source = limit if marker is None and keyset else None
    servers = _all_servers(context, filters,
                           with_down=want_down_cells,
                           cell_timeout=cell_timeout,
                           per_source=per_source)
    if sort:
        servers = server_sort.sort(servers, sort)
    if marker is not None:
        uuids = [s.uuid for s in servers]
        if marker not in uuids:
            raise exception.Invalid(
                reason='marker [%s] not found' % marker)
        servers = servers[uuids.index(marker) + 1:]
    return servers if limit is None else servers[:limit]


def _sorted_page(context, filters, limit, marker, with_down,
                 cell_timeout, sort):
    """A page in a user's order: each cell sorts and cuts its own rows
    (``limit`` at most, after the marker's sort values), the API merges
    them. None when the marker is not a live server (the caller then
    looks for it in the whole list, as before)."""
    order = server_sort.full_order(sort)
    after = values = None
    if marker is not None:
        after = _marker_server(context, marker)
        if after is None:
            return None
        values = server_sort.values(after, order)
    in_cells = []
    for servers in _scatter(context, filters, with_down, cell_timeout,
                            limit, order=order, after=values):
        in_cells.extend(servers)
    seen = {s.uuid for s in in_cells}
    servers = in_cells + [s for s in _build_request_servers(
        context, filters) if s.uuid not in seen]
    if after is not None:
        servers = [s for s in servers
                   if server_sort.is_after(s, after, order)]
    servers = server_sort.sort(
        sorted(servers, key=Server.sort_key, reverse=True), sort)
    return servers if limit is None else servers[:limit]


def _marker_server(context, marker):
    """The live server ``marker`` names, None when it is not one (a
    deleted or unknown marker is then looked for in the whole list)."""
    try:
        server = get(context, marker, with_fault=False)
    except exception.NotFound:
        return None
    if server.down or server.instance.created_at is None:
        return None
    return server


def _all_servers(context, filters, with_down,
                 cell_timeout=None, per_source=None):
    filters = dict(filters)
    after = filters.pop('before', None)
    if after is not None:
        created = after.instance.created_at
        filters['before'] = (created.replace(tzinfo=None), after.uuid)
    pattern = _name_pattern(filters)
    results = _scatter(context, filters, with_down, cell_timeout,
                            per_source)
    in_cells = set()
    lists = []
    for servers in results:
        lists.append(servers)
        in_cells.update(s.uuid for s in servers)
    building = [s for s in _build_request_servers(context, filters)
                if s.uuid not in in_cells and (
                    after is None or s.sort_key() < after.sort_key())]
    building = sorted(building, key=Server.sort_key,
                      reverse=True)[:per_source]
    lists.append(building)
    merged = heapq.merge(*[sorted(lst, key=Server.sort_key,
                                  reverse=True) for lst in lists],
                         key=Server.sort_key, reverse=True)
    return [s for s in merged if s.down or pattern is None or
            pattern.search(s.instance.display_name or '')]


def _name_pattern(filters):
    """The compiled ``name`` filter (None without one; Invalid when it
    is not a regular expression). The cells match it in SQL (REGEXP),
    the API on build requests and again on what the cells return."""
    name = filters.get('name')
    try:
        return re.compile(name) if name else None
    except re.error as exc:
        raise exception.Invalid(reason='name %r is not a valid regular '
                                'expression: %s' % (name, exc))


def _build_request_servers(context, filters):
    if filters.get('deleted'):
        return []
    pattern = _name_pattern(filters)
    project_id = filters.get('project_id')
    result = []
    for build_request in objects.BuildRequestList.get_all(
            context, project_id=project_id):
        instance = instance_from_build_request(context, build_request)
        if pattern is not None and not pattern.search(
                instance.display_name or ''):
            continue
        if _matches(instance, filters):
            result.append(Server(instance, build_request=True))
    return result


def _scatter(context, filters, with_down, cell_timeout, per_cell=None,
             order=None, after=None):
    """Per cell, its matching servers (sorted); a scatter-gather.
    ``order``: [(key, direction)] the cells sort by (default newest
    first), ``after``: the sort values a cell's rows come after."""
    mappings = objects.CellMappingList.get_all(context).objects
    timeout = cell_timeout or CONF.api.cell_timeout
    by_uuid = {cell.uuid: cell for cell in mappings}
    results = cells.scatter_gather(
        context, mappings, _cell_servers_here, filters, per_cell, by_uuid,
        order, after, timeout=timeout)
    answers = []
    for cell in mappings:
        result = results[cell.uuid]
        if cells.is_failure(result):
            error = ('no answer in %s s' % timeout
                     if result is cells.DID_NOT_RESPOND else result)
            answers.append(_down_cell(context, cell, filters, with_down,
                                      error))
        else:
            answers.append(result)
    return answers


def _down_cell(context, cell, filters, with_down, error):
    if not with_down and not CONF.api.list_records_by_skipping_down_cells:
        raise exception.NovaLiteException(
            'Cell %s did not answer: %s' % (cell.identity, error))
    LOG.warning('Cell %s did not answer (%s); %s its servers',
                cell.identity, error,
                'listing minimal records of' if with_down else 'skipping')
    if not with_down:
        return []
    mappings = objects.InstanceMappingList.get_by_project(
        context, project_id=filters.get('project_id'),
        cell_id=cell.id).objects
    return [down_server(context, m) for m in mappings
            if not m.queued_for_delete]


def _cell_servers_here(cctxt, filters, limit, cells_by_uuid, order=None,
                       after=None):
    """The matching servers of the cell ``cctxt`` is targeted at."""
    # NOTE(nova_lite): the merge's order (created_at, then uuid), so
    # that a per-cell limit and the ``before`` key cut where it does.
    instances = objects.InstanceList.get_by_filters(
        cctxt, filters, sort_keys=order or ['created_at', 'uuid'],
        limit=limit, after=after).objects
    errored = [i.uuid for i in instances
               if i.vm_state in (vm_states.ERROR, vm_states.DELETED)]
    faults = {}
    if errored:
        for fault in objects.InstanceFaultList.get_by_instance_uuids(
                cctxt, errored, latest=True).objects:
            faults.setdefault(fault.instance_uuid, []).append(fault)
    cell = cells_by_uuid[cctxt.cell_uuid]
    return [Server(i, cell=cell, fault=_first(faults.get(i.uuid)))
            for i in instances]


def _first(items):
    return items[0] if items else None


def _matches(instance, filters):
    """Exact-match ``filters`` against a not-yet-stored instance."""
    for key, wanted in filters.items():
        if key in ('deleted', 'changes-since', 'changes-before'):
            # A build request has no updated_at yet and is never
            # deleted: Nova's build request list ignores these too.
            continue
        if key in ('tags', 'tags-any'):
            return False  # a server being built has no tags yet
        if key not in instance.fields:
            continue
        value = getattr(instance, key) if instance.obj_attr_is_set(key) \
            else None
        if isinstance(wanted, (list, tuple, set)):
            if value not in wanted:
                return False
        elif value != wanted:
            return False
    return True
