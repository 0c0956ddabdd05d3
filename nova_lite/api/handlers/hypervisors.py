"""os-hypervisors (admins): compute nodes of every cell.

Ids are cell-local integers below 2.53 and the node uuids (also their
placement provider uuids) from 2.53, which also brings
``hypervisor_hostname_pattern`` and ``with_servers``. Usage fields and
``/statistics`` are gone at 2.88, which adds ``uptime``.
"""

import json

from oslo_utils import uuidutils
import webob.exc

from nova_lite import cells
from nova_lite.api import host_info
from nova_lite.api import microversion
from nova_lite.api import policy
from nova_lite.api import util
from nova_lite.api import validation
from nova_lite import context as nl_context
from nova_lite.objects import instance as instance_obj

_USAGE_FIELDS = ('vcpus', 'memory_mb', 'local_gb', 'vcpus_used',
                 'memory_mb_used', 'local_gb_used', 'free_ram_mb',
                 'free_disk_gb', 'running_vms', 'disk_available_least')

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


def _cpu_info(req, node):
    if not microversion.at_least(req, '2.28'):
        return node.cpu_info or ''
    try:
        return json.loads(node.cpu_info or '{}')
    except ValueError:
        return {}


def _view(req, entry, services, detail=False, servers=None):
    node = entry.item
    service = services.get((entry.cell_uuid, node.host))
    new_ids = microversion.at_least(req, '2.53')
    item = {'id': node.uuid if new_ids else node.id,
            'hypervisor_hostname': node.hypervisor_hostname,
            'state': 'up' if service and host_info.is_up(service)
            else 'down',
            'status': 'disabled' if service is None or service.disabled
            else 'enabled'}
    if detail:
        item.update(_detail(req, node, service, new_ids))
    if servers is not None:
        item['servers'] = servers
    return item


def _detail(req, node, service, new_ids):
    item = {'hypervisor_type': node.hypervisor_type or 'fake',
            'hypervisor_version': node.hypervisor_version or 0,
            'host_ip': (node.stats or {}).get('host_ip'),
            'service': {
                'id': (service.uuid if new_ids else service.id)
                if service else None,
                'host': node.host,
                'disabled_reason': service.disabled_reason
                if service else None}}
    if microversion.at_least(req, '2.88'):
        item['uptime'] = host_info.uptime(service)
        return item
    for name in _USAGE_FIELDS:
        value = getattr(node, name)
        item[name] = 0 if value is None else value
    item['current_workload'] = 0
    item['cpu_info'] = _cpu_info(req, node)
    return item


def _servers_of(context, cell_uuid, node):
    cell = next(c for c in cells.get_cells(context)
                if c.uuid == cell_uuid)
    with nl_context.target_cell(context, cell) as cctxt:
        instances = instance_obj.InstanceList.get_by_host(
            cctxt, node.host, node.hypervisor_hostname)
    return [{'name': i.display_name or '', 'uuid': i.uuid}
            for i in instances]


def _listed(req, detail):
    context = util.context(req)
    policy.authorize(context, 'os-hypervisors:list-detail' if detail
                     else 'os-hypervisors:list')
    with_servers = False
    if microversion.at_least(req, '2.53'):
        validation.query(req, LIST_QUERY_V2_53)
        with_servers = util.query_bool(req, 'with_servers', False)
    nodes, _down = host_info.all_compute_nodes(context)
    pattern = req.GET.get('hypervisor_hostname_pattern')
    if pattern and microversion.at_least(req, '2.53'):
        nodes = [n for n in nodes if pattern in n.item.hypervisor_hostname]
        if not nodes:
            raise webob.exc.HTTPNotFound(
                'No hypervisor matching %s could be found.' % pattern)
    if microversion.at_least(req, '2.33'):
        key = (lambda e: e.item.uuid) if microversion.at_least(
            req, '2.53') else (lambda e: e.item.id)
        nodes = util.paginate(nodes, req, key, util.conf(req).api.max_limit)
    services = _services_by_host(context)
    body = [_view(req, entry, services, detail=detail,
                  servers=_servers_of(context, entry.cell_uuid, entry.item)
                  if with_servers else None)
            for entry in nodes]
    return util.json_response({'hypervisors': body})


def list_hypervisors(req):
    """GET /os-hypervisors."""
    return _listed(req, detail=False)


def list_hypervisors_detail(req):
    """GET /os-hypervisors/detail."""
    return _listed(req, detail=True)


def _find(req, context, hypervisor_id):
    nodes, _down = host_info.all_compute_nodes(context)
    if microversion.at_least(req, '2.53'):
        if not uuidutils.is_uuid_like(hypervisor_id):
            raise webob.exc.HTTPBadRequest(
                'Invalid uuid %s' % hypervisor_id)
        matches = [n for n in nodes if n.item.uuid == hypervisor_id]
    elif hypervisor_id.isdigit():
        matches = [n for n in nodes if n.item.id == int(hypervisor_id)]
    else:
        # Nova: an id that is not an integer names no hypervisor.
        matches = []
    if not matches:
        raise webob.exc.HTTPNotFound(
            "Hypervisor with ID '%s' could not be found." % hypervisor_id)
    return matches[0]


def show_hypervisor(req):
    """GET /os-hypervisors/{hypervisor_id}."""
    context = util.context(req)
    policy.authorize(context, 'os-hypervisors:show')
    with_servers = False
    if microversion.at_least(req, '2.53'):
        validation.query(req, {'type': 'object', 'properties': {
            'with_servers': LIST_QUERY_V2_53['properties']['with_servers']},
            'additionalProperties': False})
        with_servers = util.query_bool(req, 'with_servers', False)
    entry = _find(req, context, req.urlvars['hypervisor_id'])
    servers = (_servers_of(context, entry.cell_uuid, entry.item)
               if with_servers else None)
    item = _view(req, entry, _services_by_host(context), detail=True,
                 servers=servers)
    return util.json_response({'hypervisor': item})


@microversion.require(max_version='2.87')
def hypervisor_statistics(req):
    """GET /os-hypervisors/statistics (up to 2.87): sums over all nodes."""
    context = util.context(req)
    policy.authorize(context, 'os-hypervisors:statistics')
    nodes, _down = host_info.all_compute_nodes(context)
    stats = {name: 0 for name in _USAGE_FIELDS}
    for entry in nodes:
        for name in _USAGE_FIELDS:
            stats[name] += getattr(entry.item, name) or 0
    stats['count'] = len(nodes)
    stats['current_workload'] = 0
    return util.json_response({'hypervisor_statistics': stats})


def _matching(req, context):
    pattern = req.urlvars['hostname_pattern']
    nodes, _down = host_info.all_compute_nodes(context)
    matches = [n for n in nodes if pattern in n.item.hypervisor_hostname]
    if not matches:
        raise webob.exc.HTTPNotFound(
            'No hypervisor matching %s could be found.' % pattern)
    return matches


@microversion.require(max_version='2.52')
def search_hypervisors(req):
    """GET /os-hypervisors/{hostname_pattern}/search (up to 2.52)."""
    context = util.context(req)
    policy.authorize(context, 'os-hypervisors:list')
    services = _services_by_host(context)
    return util.json_response({'hypervisors': [
        _view(req, entry, services) for entry in _matching(req, context)]})


@microversion.require(max_version='2.52')
def hypervisor_servers(req):
    """GET /os-hypervisors/{hostname_pattern}/servers (up to 2.52)."""
    context = util.context(req)
    policy.authorize(context, 'os-hypervisors:list')
    services = _services_by_host(context)
    return util.json_response({'hypervisors': [
        _view(req, entry, services,
              servers=_servers_of(context, entry.cell_uuid, entry.item))
        for entry in _matching(req, context)]})


@microversion.require(max_version='2.87')
def hypervisor_uptime(req):
    """GET /os-hypervisors/{hypervisor_id}/uptime (up to 2.87): the
    fake host's ``uptime`` line (see :func:`host_info.uptime`)."""
    context = util.context(req)
    policy.authorize(context, 'os-hypervisors:show')
    entry = _find(req, context, req.urlvars['hypervisor_id'])
    services = _services_by_host(context)
    item = _view(req, entry, services)
    service = services.get((entry.cell_uuid, entry.item.host))
    if service is None:
        raise webob.exc.HTTPNotFound(
            "Hypervisor with ID '%s' could not be found."
            % req.urlvars['hypervisor_id'])
    if not host_info.is_up(service):
        raise webob.exc.HTTPBadRequest(
            'Compute service of %s is unavailable at this time.'
            % entry.item.host)
    item['uptime'] = host_info.uptime(service)
    return util.json_response({'hypervisor': item})
