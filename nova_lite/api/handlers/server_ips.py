"""A server's addresses and ports, as Nova shows them from the network
service: ``/servers/{id}/ips`` (``{network name: [{version, addr}]}``),
``/servers/{id}/ips/{network name}``, and the ports as interface
attachments (``os-interface``: list, show, attach and detach through
the compute API, :mod:`nova_lite.api.compute.interfaces`)."""

import webob.exc

from nova_lite.api.handlers import servers
from nova_lite.api import microversion
from nova_lite.api.schemas import server_interfaces as schema
from nova_lite.api import util
from nova_lite.api import validation
from nova_lite.network import interface as net_compute


def _addresses(req, server):
    full = net_compute.Snapshot(util.context(req)).addresses(server.uuid)
    return {name: [{'version': a['version'], 'addr': a['addr']}
                   for a in entries] for name, entries in full.items()}


def list_ips(req):
    """GET /servers/{id}/ips."""
    server = servers.get_server(req, req.urlvars['server_id'], 'ips:index')
    return util.json_response({'addresses': _addresses(req, server)})


def show_ips(req):
    """GET /servers/{id}/ips/{network_label}."""
    server = servers.get_server(req, req.urlvars['server_id'], 'ips:show')
    label = req.urlvars['network_label']
    addresses = _addresses(req, server)
    if label not in addresses:
        raise webob.exc.HTTPNotFound(
            'Instance is not a member of specified network')
    return util.json_response({label: addresses[label]})


def _attachment(req, port):
    item = {'port_state': port['status'], 'port_id': port['id'],
            'net_id': port['network_id'], 'mac_addr': port['mac_address'],
            'fixed_ips': [{'subnet_id': ip['subnet_id'],
                           'ip_address': ip['ip_address']}
                          for ip in port['fixed_ips']]}
    if microversion.at_least(req, '2.70'):
        item['tag'] = port.get('_tag')
    return item


def _ports(req, rule):
    server = servers.get_server(req, req.urlvars['server_id'], rule)
    context = util.context(req)
    return net_compute.server_ports(context.elevated(), server.uuid)


def list_interfaces(req):
    """GET /servers/{id}/os-interface."""
    ports = _ports(req, 'os-attach-interfaces:list')
    return util.json_response({'interfaceAttachments': [
        _attachment(req, p) for p in ports]})


def show_interface(req):
    """GET /servers/{id}/os-interface/{port_id}."""
    port_id = req.urlvars['port_id']
    for port in _ports(req, 'os-attach-interfaces:show'):
        if port['id'] == port_id:
            return util.json_response(
                {'interfaceAttachment': _attachment(req, port)})
    raise webob.exc.HTTPNotFound(
        'Instance %s is not attached to port %s.' % (
            req.urlvars['server_id'], port_id))


def create_interface_schema(req):
    """The attach body's schema at ``req``'s microversion (2.49: ``tag``)."""
    if microversion.at_least(req, '2.49'):
        return schema.CREATE_V2_49
    return schema.CREATE


def create_interface(req):
    """POST /servers/{id}/os-interface: 200 with the attached port (a
    port of the caller's, or a new one on ``net_id``, with ``fixed_ips``
    if given, or on the project's one network)."""
    server = servers.get_server(req, req.urlvars['server_id'],
                                'os-attach-interfaces:create')
    body = validation.parse_json(req) if req.body else {}
    validation.validate(body, create_interface_schema(req))
    wanted = (body or {}).get('interfaceAttachment') or {}
    network_id, port_id = wanted.get('net_id'), wanted.get('port_id')
    fixed_ip = (wanted.get('fixed_ips') or [{}])[0].get('ip_address')
    if network_id and port_id:
        raise webob.exc.HTTPBadRequest(
            'Must not input both network_id and port_id')
    if fixed_ip and not network_id:
        raise webob.exc.HTTPBadRequest(
            'Must input network_id when request IP address')
    port = servers.compute(req).attach_interface(
        util.context(req), server, network_id=network_id, port_id=port_id,
        fixed_ip=fixed_ip, tag=wanted.get('tag'))
    return util.json_response({'interfaceAttachment':
                               _attachment(req, port)})


def delete_interface(req):
    """DELETE /servers/{id}/os-interface/{port_id}: 202; 404 for a port
    the server does not have."""
    server = servers.get_server(req, req.urlvars['server_id'],
                                'os-attach-interfaces:delete')
    servers.compute(req).detach_interface(util.context(req), server,
                                          req.urlvars['port_id'])
    return util.no_content(202)
