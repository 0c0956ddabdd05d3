"""The deprecated network proxies: ``os-networks``, ``os-tenant-networks``.

In Nova these list the networks of the network service (Neutron) a
project can see, up to 2.35 (404 from 2.36); creating, deleting and
associating networks went with nova-network and answer 410. nova_lite
lists the networks of its network service (:mod:`nova_lite.network`)
the caller sees, in Nova's shapes: ``label`` is the network's name, the
nova-network fields are null. Reading needs the project reader role (or
admin).
"""

import webob.exc

from nova_lite.api import microversion
from nova_lite.api import policy
from nova_lite.api import util
from nova_lite.network import interface as net_compute

MAX_PROXY_VERSION = '2.35'
_FIELDS = ('id', 'cidr', 'netmask', 'gateway', 'broadcast', 'dns1', 'dns2',
           'cidr_v6', 'gateway_v6', 'label', 'netmask_v6')
_ADMIN_FIELDS = ('created_at', 'updated_at', 'deleted_at', 'deleted',
                 'injected', 'bridge', 'vlan', 'vpn_public_address',
                 'vpn_public_port', 'vpn_private_address', 'dhcp_start',
                 'project_id', 'host', 'bridge_interface', 'multi_host',
                 'priority', 'rxtx_base', 'mtu', 'dhcp_server',
                 'enable_dhcp', 'share_address')


def _network_view(context, network):
    fields = _FIELDS + (_ADMIN_FIELDS if context.is_admin else ())
    item = {field: None for field in fields}
    item.update(id=network['id'], label=network['name'])
    if context.is_admin:
        item.update(project_id=network['project_id'],
                    mtu=network.get('mtu'), deleted=False)
    return item


def _tenant_view(network):
    return {'id': network['id'], 'label': network['name'],
            'cidr': 'None'}


def _list(req, rule, view):
    context = util.context(req)
    policy.authorize(context, rule)
    return util.json_response({'networks': [
        view(context, n) for n in net_compute.list_networks(context)]})


def _show(req, rule, view):
    context = util.context(req)
    policy.authorize(context, rule)
    try:
        network = net_compute.get_network(context, req.urlvars['network_id'])
    except net_compute.NeutronError:
        raise webob.exc.HTTPNotFound('Network not found')
    return util.json_response({'network': view(context, network)})


def _gone(req):
    """nova-network's writes, removed in Nova 21 (410 at any version)."""
    raise webob.exc.HTTPGone()


@microversion.require(max_version=MAX_PROXY_VERSION)
def list_networks(req):
    """GET /os-networks."""
    return _list(req, 'os-networks:list', _network_view)


@microversion.require(max_version=MAX_PROXY_VERSION)
def show_network(req):
    """GET /os-networks/{network_id}."""
    return _show(req, 'os-networks:show', _network_view)


@microversion.require(max_version=MAX_PROXY_VERSION)
def list_tenant_networks(req):
    """GET /os-tenant-networks."""
    return _list(req, 'os-tenant-networks:list',
                 lambda context, n: _tenant_view(n))


@microversion.require(max_version=MAX_PROXY_VERSION)
def show_tenant_network(req):
    """GET /os-tenant-networks/{network_id}."""
    return _show(req, 'os-tenant-networks:show',
                 lambda context, n: _tenant_view(n))


create_network = _gone
delete_network = _gone
network_action = _gone
