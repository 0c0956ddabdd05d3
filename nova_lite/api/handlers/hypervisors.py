"""os-hypervisors (admins): compute nodes of every cell.

Ids are cell-local integers below 2.53 and the node uuids (also their
placement provider uuids) from 2.53, which also brings
``hypervisor_hostname_pattern`` and ``with_servers``. Usage fields and
``/statistics`` are gone at 2.88, which adds ``uptime``.
"""

from oslo_utils import uuidutils
import webob.exc

from nova_lite import cells
from nova_lite.api import host_info
from nova_lite.api import hypervisor_list
from nova_lite.api import microversion
from nova_lite.api import policy
from nova_lite.api import util
from nova_lite.api import validation
from nova_lite import exception
from nova_lite.objects import compute_node as compute_node_obj
from nova_lite.objects import instance as instance_obj

LIST_QUERY_V2_53 = {
    'type': 'object',
    'properties': {
        'hypervisor_hostname_pattern': {'type': 'string', 'minLength': 1,
                                        'maxLength': 255},
        'with_servers': {'type': 'string',
                         'enum': ['true', 'false', 'True', 'False', '1',
                                  '0', 'yes', 'no', 'on', 'off']},
        'limit': {'type': 'string', 'pattern': r'^[0-9]+$'},
        'marker': {'type': 'string'},
    },
    'additionalProperties': False,
}


def _services_by_host(context):
    services, _down = host_info.all_services(
        context, binary=host_info.COMPUTE_BINARY)
    return {(e.cell_uuid, e.item.host): e.item for e in services}


def _entry(cell_uuid, node, services):
    """A listing entry of one ComputeNode object (None: service gone)."""
    service = services.get((cell_uuid, node.host))
    if service is None:
        return None
    return hypervisor_list.Entry(cell_uuid, hypervisor_list.row_of(node),
                                 service)


def _servers_of(context, cell_uuid, node):
    cell = next(c for c in cells.get_cells(context)
                if c.uuid == cell_uuid)
    with cells.target_cell(context, cell) as cctxt:
        instances = instance_obj.InstanceList.get_by_host(
            cctxt, node.host, node.hypervisor_hostname)
    return {(node.host, node.hypervisor_hostname): [
        {'name': i.display_name or '', 'uuid': i.uuid} for i in instances]}


def _limit_and_marker(req):
    """Nova's ``get_limit_and_marker``: ``[api] max_limit`` unless a
    smaller ``limit`` is asked."""
    max_limit = util.conf(req).api.max_limit
    limit = util.query_int(req, 'limit', minimum=0)
    return (max_limit if limit is None else min(limit, max_limit),
            req.GET.get('marker'))


SHOW_QUERY_V2_53 = {'type': 'object', 'properties': {
    'with_servers': LIST_QUERY_V2_53['properties']['with_servers']},
    'additionalProperties': False}


def list_query_schema(req):
    """The query schema of the lists at ``req``'s version (none before
    2.53: the query string is not looked at)."""
    return LIST_QUERY_V2_53 if microversion.at_least(req, '2.53') else None


def show_query_schema(req):
    return SHOW_QUERY_V2_53 if microversion.at_least(req, '2.53') else None


def _listed(req, detail):
    context = util.context(req)
    policy.authorize(context, 'os-hypervisors:list-detail' if detail
                     else 'os-hypervisors:list')
    pattern, with_servers = None, False
    if microversion.at_least(req, '2.53'):
        validation.query(req, LIST_QUERY_V2_53)
        pattern = req.GET.get('hypervisor_hostname_pattern')
        with_servers = util.query_bool(req, 'with_servers', False)
    paged = microversion.at_least(req, '2.33')
    limit, marker = _limit_and_marker(req) if paged else (None, None)
    if pattern is not None:
        if 'limit' in req.GET or marker:
            raise webob.exc.HTTPBadRequest(
                'Paging over hypervisors with the '
                'hypervisor_hostname_pattern query parameter is not '
                'supported.')
        entries = hypervisor_list.matching(context, pattern, detail)
        if not entries:
            raise webob.exc.HTTPNotFound(
                "No hypervisor matching '%s' could be found." % pattern)
    else:
        try:
            entries = hypervisor_list.page(context, limit, marker, detail)
        except exception.MarkerNotFound:
            raise webob.exc.HTTPBadRequest('marker [%s] not found' % marker)
    servers = (hypervisor_list.servers_of(context, entries)
               if with_servers else None)
    view = hypervisor_list.ViewBuilder(req, detail, with_servers, servers)
    items = [view.build(entry) for entry in entries]
    body = {'hypervisors': items}
    if paged and pattern is None:
        links = hypervisor_list.next_links(
            req, 'os-hypervisors/detail' if detail else 'os-hypervisors',
            items, limit)
        if links:
            body['hypervisors_links'] = links
    return util.json_response(body)


def list_hypervisors(req):
    """GET /os-hypervisors."""
    return _listed(req, detail=False)


def list_hypervisors_detail(req):
    """GET /os-hypervisors/detail."""
    return _listed(req, detail=True)


def _find(req, context, hypervisor_id):
    """The CellItem of the node the URL names: its uuid from 2.53, its
    id before (the first cell holding that id, as Nova's lookup); every
    cell asked at once for that one row."""
    if microversion.at_least(req, '2.53'):
        if not uuidutils.is_uuid_like(hypervisor_id):
            raise webob.exc.HTTPBadRequest(
                'Invalid uuid %s' % hypervisor_id)
        lookup, key = compute_node_obj.ComputeNode.get_by_uuid, hypervisor_id
    elif hypervisor_id.isdigit() and int(hypervisor_id) <= util.DB_INT_MAX:
        lookup, key = compute_node_obj.ComputeNode.get_by_id, int(
            hypervisor_id)
    else:
        # Nova: an id that is not an integer names no hypervisor.
        lookup = None
    if lookup is not None:
        results = cells.scatter_gather_all(context, lookup, key,
                                           include_cell0=False)
        for cell_uuid, node in cells.successful(results):
            return host_info.CellItem(cell_uuid, node)
    raise webob.exc.HTTPNotFound(
        "Hypervisor with ID '%s' could not be found." % hypervisor_id)


def _found_entry(req, context):
    """The node object and Entry of the URL's hypervisor (404 when its
    service is gone, as Nova's)."""
    found = _find(req, context, req.urlvars['hypervisor_id'])
    entry = _entry(found.cell_uuid, found.item, _services_by_host(context))
    if entry is None:
        raise webob.exc.HTTPNotFound(
            "Hypervisor with ID '%s' could not be found."
            % req.urlvars['hypervisor_id'])
    return found.item, entry


def show_hypervisor(req):
    """GET /os-hypervisors/{hypervisor_id}."""
    context = util.context(req)
    policy.authorize(context, 'os-hypervisors:show')
    with_servers = False
    if microversion.at_least(req, '2.53'):
        validation.query(req, SHOW_QUERY_V2_53)
        with_servers = util.query_bool(req, 'with_servers', False)
    node, entry = _found_entry(req, context)
    servers = (_servers_of(context, entry.cell_uuid, node)
               if with_servers else None)
    item = hypervisor_list.ViewBuilder(req, True, with_servers,
                                       servers).build(entry)
    return util.json_response({'hypervisor': item})


@microversion.require(max_version='2.87')
def hypervisor_statistics(req):
    """GET /os-hypervisors/statistics (up to 2.87): count and sums over
    the nodes of enabled compute services, summed in SQL per cell."""
    context = util.context(req)
    policy.authorize(context, 'os-hypervisors:statistics')
    return util.json_response(
        {'hypervisor_statistics': hypervisor_list.statistics(context)})


def _matching(req, context):
    pattern = req.urlvars['hostname_pattern']
    entries = hypervisor_list.matching(context, pattern, detail=False)
    if not entries:
        raise webob.exc.HTTPNotFound(
            "No hypervisor matching '%s' could be found." % pattern)
    return entries


@microversion.require(max_version='2.52')
def search_hypervisors(req):
    """GET /os-hypervisors/{hostname_pattern}/search (up to 2.52)."""
    context = util.context(req)
    policy.authorize(context, 'os-hypervisors:list')
    view = hypervisor_list.ViewBuilder(req, False)
    return util.json_response({'hypervisors': [
        view.build(entry) for entry in _matching(req, context)]})


@microversion.require(max_version='2.52')
def hypervisor_servers(req):
    """GET /os-hypervisors/{hostname_pattern}/servers (up to 2.52): as
    Nova's, a hypervisor without servers has no ``servers`` key."""
    context = util.context(req)
    policy.authorize(context, 'os-hypervisors:list')
    entries = _matching(req, context)
    view = hypervisor_list.ViewBuilder(
        req, False, servers=hypervisor_list.servers_of(context, entries))
    return util.json_response({'hypervisors': [
        view.build(entry) for entry in entries]})


@microversion.require(max_version='2.87')
def hypervisor_uptime(req):
    """GET /os-hypervisors/{hypervisor_id}/uptime (up to 2.87): the
    fake host's ``uptime`` line (see :func:`host_info.uptime`)."""
    context = util.context(req)
    policy.authorize(context, 'os-hypervisors:show')
    node, entry = _found_entry(req, context)
    if not host_info.is_up(entry.service):
        raise webob.exc.HTTPBadRequest(
            'Compute service of %s is unavailable at this time.'
            % node.host)
    item = hypervisor_list.ViewBuilder(req, False).build(entry)
    item['uptime'] = host_info.uptime(entry.service)
    return util.json_response({'hypervisor': item})
