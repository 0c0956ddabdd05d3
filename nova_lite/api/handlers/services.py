"""os-services (admins): list, enable/disable, force down, delete.

Services live in their cell's database; the list reads every cell in
parallel. Ids are the cell-local integers below 2.53 and uuids from 2.53.
Below 2.53 updates are ``PUT /os-services/{enable|disable|
disable-log-reason|force-down}`` with ``host`` and ``binary`` in the
body; from 2.53 ``PUT /os-services/{uuid}`` with ``status``,
``disabled_reason`` and/or ``forced_down`` (computes only). Enabling or
disabling a compute that is up also tells it (``set_host_enabled``, a
call within the request, as Nova) so it flips its
``COMPUTE_STATUS_DISABLED`` trait before the answer.
"""

import copy

from oslo_log import log as logging
from oslo_utils import uuidutils
import webob.exc

from nova_lite import cells
from nova_lite.api import host_info
from nova_lite.api import microversion
from nova_lite.api import policy
from nova_lite.api.schemas import services as schema
from nova_lite.api import util
from nova_lite.api import validation
from nova_lite.clients import placement as placement_client
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite import exception
from nova_lite.objects import aggregate as aggregate_obj
from nova_lite.objects import cell_mapping as cell_mapping_obj
from nova_lite.objects import compute_node as compute_node_obj
from nova_lite.objects import host_mapping as host_mapping_obj
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import migration as migration_obj
from nova_lite.objects import service as service_obj

LOG = logging.getLogger(__name__)


def view(req, service, zones):
    item = {
        'id': service.uuid if microversion.at_least(req, '2.53')
        else service.id,
        'binary': host_info.public_binary(service.binary),
        'host': service.host,
        'zone': host_info.zone_of_service(service, zones),
        'status': 'disabled' if service.disabled else 'enabled',
        'state': 'up' if host_info.is_up(service) else 'down',
        'updated_at': util.isotime_micro(service.updated_at),
        'disabled_reason': service.disabled_reason,
    }
    if microversion.at_least(req, '2.11'):
        item['forced_down'] = bool(service.forced_down)
    return item


def _down_cell_records(context, down_cells):
    records = []
    for cell_uuid in down_cells:
        cell = cell_mapping_obj.CellMapping.get_by_uuid(context, cell_uuid)
        for mapping in host_mapping_obj.HostMapping.get_all(context,
                                                            cell.id):
            records.append({'binary': host_info.public_binary(
                host_info.COMPUTE_BINARY),
                            'host': mapping.host, 'status': 'UNKNOWN'})
    return records


def list_services(req):
    """GET /os-services[?host=&binary=]."""
    context = util.context(req)
    policy.authorize(context, 'os-services:list')
    validation.query(req, schema.LIST_QUERY)
    services, down = host_info.all_services(
        context, binary=req.GET.get('binary'), host=req.GET.get('host'))
    zones = host_info.zones_by_host(context)
    body = [view(req, entry.item, zones) for entry in services]
    if down and microversion.at_least(req, '2.69'):
        body.extend(_down_cell_records(context, down))
    return util.json_response({'services': body})


def _find(context, fn, *args):
    """(cell mapping, service) of the first cell where ``fn`` finds it."""
    all_cells = cells.get_cells(context, include_cell0=False)
    results = cells.scatter_gather(context, all_cells, fn, *args)
    for cell in all_cells:
        result = results[cell.uuid]
        if not cells.is_failure(result):
            return cell, result
    return None, None


def _find_by_host_binary(context, host, binary):
    cell, service = _find(context, service_obj.Service.get_by_host_and_binary,
                          host, host_info.normalize_binary(binary))
    if service is None:
        raise webob.exc.HTTPNotFound('Host %s with binary %s not found.'
                                     % (host, binary))
    return cell, service


def _find_by_id(req, context, service_id):
    if microversion.at_least(req, '2.53'):
        if not uuidutils.is_uuid_like(service_id):
            raise webob.exc.HTTPBadRequest(
                'Invalid uuid %s' % service_id)
        cell, service = _find(context, service_obj.Service.get_by_uuid,
                              service_id)
    elif service_id.isdigit() and int(service_id) > util.DB_INT_MAX:
        service = None
    elif service_id.isdigit():
        cell, service = _find(context, service_obj.Service.get_by_id,
                              int(service_id))
    else:
        raise webob.exc.HTTPBadRequest('Invalid service id %s: an integer '
                                       'is required below 2.53' % service_id)
    if service is None:
        raise webob.exc.HTTPNotFound('Service %s not found.' % service_id)
    return cell, service


def _notify_compute(context, cell, service, enabled):
    """Tell the compute (it flips its COMPUTE_STATUS_DISABLED trait).

    As Nova's API does, the ``set_host_enabled`` call is made within the
    request when the compute is up, so that a boot or move asked right
    after the answer already sees the trait placement holds (a background
    call let an unshelve after "enable" find no candidate). A compute that
    is down is not called: it would hold the request for the RPC timeout,
    and the compute sets the trait from its service record when it runs
    its next update.
    """
    if service.binary != host_info.COMPUTE_BINARY:
        return
    if not host_info.is_up(service):
        LOG.info('Compute %s is down: its COMPUTE_STATUS_DISABLED trait '
                 'follows at its next update', service.host)
        return
    cctxt = copy.copy(context)
    cells.set_target_cell(cctxt, cell)
    try:
        compute_rpcapi.ComputeAPI().set_host_enabled(cctxt, service.host,
                                                     enabled)
    except Exception as exc:  # noqa: BLE001 - the DB change stands
        LOG.warning('Could not tell compute %s it is %s: %s',
                    service.host, 'enabled' if enabled else 'disabled', exc)


def _save(context, cell, service, values):
    """Store ``values`` on ``service`` (read in ``cell``)."""
    was_disabled = service.disabled
    for name, value in values.items():
        setattr(service, name, value)
    service.save()
    if 'disabled' in values and values['disabled'] != was_disabled:
        _notify_compute(context, cell, service, not values['disabled'])
    LOG.info('Service %s on %s updated: %s', service.binary, service.host,
             values)
    return service


_LEGACY_ACTIONS = {
    'enable': (schema.ENABLE_DISABLE, lambda d: {
        'disabled': False, 'disabled_reason': None}),
    'disable': (schema.ENABLE_DISABLE, lambda d: {'disabled': True}),
    'disable-log-reason': (schema.DISABLE_LOG_REASON, lambda d: {
        'disabled': True, 'disabled_reason': d.get('disabled_reason')}),
    'force-down': (schema.FORCE_DOWN, lambda d: {
        'forced_down': d['forced_down']}),
}


def _legacy_update(req, context, action):
    if action not in _LEGACY_ACTIONS or (
            action == 'force-down' and not microversion.at_least(
                req, '2.11')):
        raise webob.exc.HTTPNotFound('Unknown action %s' % action)
    body_schema, values_of = _LEGACY_ACTIONS[action]
    data = validation.body(req, body_schema)
    if action == 'disable-log-reason' and not data.get('disabled_reason'):
        raise webob.exc.HTTPBadRequest('Missing disabled reason field')
    cell, service = _find_by_host_binary(context, data['host'],
                                         data['binary'])
    values = values_of(data)
    _save(context, cell, service, values)
    result = {'host': data['host'], 'binary': data['binary']}
    if action == 'force-down':
        result['forced_down'] = data['forced_down']
    else:
        result['status'] = 'disabled' if values['disabled'] else 'enabled'
        if action == 'disable-log-reason':
            result['disabled_reason'] = data['disabled_reason']
    return util.json_response({'service': result})


def _values_v2_53(data):
    if 'disabled_reason' in data and data.get('status') != 'disabled':
        raise webob.exc.HTTPBadRequest(
            'Specifying disabled_reason with status=enabled is invalid.')
    values = {}
    if 'status' in data:
        values['disabled'] = data['status'] == 'disabled'
        values['disabled_reason'] = (data.get('disabled_reason')
                                     if values['disabled'] else None)
    if 'forced_down' in data:
        values['forced_down'] = data['forced_down']
    return values


def update_schema(req):
    """The body schema of PUT at ``req``'s version: before 2.53 the
    path names a legacy action (``enable``, ``disable``,
    ``disable-log-reason``, ``force-down`` from 2.11), each with its
    schema."""
    if microversion.at_least(req, '2.53'):
        return schema.UPDATE_V2_53
    return {'anyOf': [body for body, _ in _LEGACY_ACTIONS.values()]}


def update_service(req):
    """PUT /os-services/{service_id}: see the module docstring."""
    context = util.context(req)
    policy.authorize(context, 'os-services:update')
    service_id = req.urlvars['service_id']
    if not microversion.at_least(req, '2.53'):
        return _legacy_update(req, context, service_id)
    data = validation.body(req, schema.UPDATE_V2_53)
    values = _values_v2_53(data)
    cell, service = _find_by_id(req, context, service_id)
    if service.binary != host_info.COMPUTE_BINARY:
        raise webob.exc.HTTPBadRequest(
            'Updating a %s service is not supported; only compute services '
            'can be updated.' % host_info.public_binary(service.binary))
    service = _save(context, cell, service, values)
    zones = host_info.zones_by_host(context)
    return util.json_response({'service': view(req, service, zones)})


def _remove_compute(req, context, cctxt, service):
    if instance_obj.InstanceList.get_count_by_host(cctxt, service.host):
        raise webob.exc.HTTPConflict(
            'Unable to delete compute service that is hosting instances.')
    nodes = compute_node_obj.ComputeNodeList.get_all_by_host(cctxt,
                                                             service.host)
    for node in nodes:
        if migration_obj.MigrationList.get_in_progress_by_host_and_node(
                cctxt, node.host, node.hypervisor_hostname):
            raise webob.exc.HTTPConflict(
                'Unable to delete compute service that has in-progress '
                'migrations.')
    placement = util.placement(req)
    for node in nodes:
        _delete_provider(placement, node.uuid)
        node.destroy()
    for aggregate in aggregate_obj.Aggregate.get_by_host(context,
                                                         service.host):
        aggregate.delete_host(service.host)
    try:
        host_mapping_obj.HostMapping.destroy_by_host(context, service.host)
    except exception.HostMappingNotFound:
        pass


def _delete_provider(placement, provider_uuid):
    if placement is None:
        return
    try:
        placement.delete_provider(provider_uuid)
    except placement_client.PlacementNotFound:
        pass
    except placement_client.PlacementConflict as exc:
        raise webob.exc.HTTPConflict(
            'Resource provider %s is still in use: %s'
            % (provider_uuid, exc))


def delete_service(req):
    """DELETE /os-services/{service_id}: 204."""
    context = util.context(req)
    policy.authorize(context, 'os-services:delete')
    cell, service = _find_by_id(req, context, req.urlvars['service_id'])
    with cells.target_cell(context, cell) as cctxt:
        if service.binary == host_info.COMPUTE_BINARY:
            _remove_compute(req, context, cctxt, service)
        service.destroy()
    LOG.info('Service %s on %s deleted', service.binary, service.host)
    return util.no_content(204)
