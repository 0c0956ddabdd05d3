"""A server's addresses and ports, as Nova shows them from the network
service: ``/servers/{id}/ips`` (``{network name: [{version, addr}]}``),
``/servers/{id}/ips/{network name}``, and the ports as interface
attachments (``os-interface`` list and show)."""

import webob.exc

from nova_lite.api.handlers import servers
from nova_lite.api import microversion
from nova_lite.api import util
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
        item['tag'] = None
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
