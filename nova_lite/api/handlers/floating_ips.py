"""Nova's floating IP proxies of the network service (up to 2.35 for
``os-floating-ips`` and ``os-floating-ip-pools``, 2.43 for the
``addFloatingIp`` / ``removeFloatingIp`` actions), in Nova's shapes
(``id``, ``ip``, ``pool``, ``fixed_ip``, ``instance_id``)."""

import webob.exc

from nova_lite.api import microversion
from nova_lite.api import policy
from nova_lite.api import util
from nova_lite.api import validation
from nova_lite.network import interface as net_compute

MAX_PROXY_VERSION = '2.35'
MAX_ACTION_VERSION = '2.43'


def _ctx(req, rule):
    context = util.context(req)
    policy.authorize(context, rule)
    return context


def _pools(context):
    return [n for n in net_compute.list_networks(context)
            if n.get('router:external')]


def _view(context, fip, names=None):
    if names is None:
        names = {n['id']: n['name'] for n in _pools(context)}
    instance = None
    if fip['port_id']:
        try:
            instance = net_compute.get_port(
                context.elevated(), fip['port_id'])['device_id'] or None
        except Exception:  # noqa: BLE001 - the port went meanwhile
            instance = None
    return {'id': fip['id'], 'ip': fip['floating_ip_address'],
            'pool': names.get(fip['floating_network_id']),
            'fixed_ip': fip['fixed_ip_address'], 'instance_id': instance}


def _get(context, fip_id):
    try:
        return net_compute.get_floatingip(context, fip_id)
    except net_compute.NeutronError:
        raise webob.exc.HTTPNotFound(
            'Floating IP not found for ID %s' % fip_id)


@microversion.require(max_version=MAX_PROXY_VERSION)
def list_pools(req):
    context = _ctx(req, 'os-floating-ip-pools:list')
    return util.json_response({'floating_ip_pools': [
        {'name': n['name']} for n in _pools(context)]})


@microversion.require(max_version=MAX_PROXY_VERSION)
def list_floating_ips(req):
    context = _ctx(req, 'os-floating-ips:list')
    names = {n['id']: n['name'] for n in _pools(context)}
    return util.json_response({'floating_ips': [
        _view(context, f, names) for f in net_compute.list_floatingips(context)
        if f['project_id'] == context.project_id or not context.project_id]})


@microversion.require(max_version=MAX_PROXY_VERSION)
def show_floating_ip(req):
    context = _ctx(req, 'os-floating-ips:show')
    return util.json_response({'floating_ip': _view(
        context, _get(context, req.urlvars['floating_ip_id']))})


@microversion.require(max_version=MAX_PROXY_VERSION)
def create_floating_ip(req):
    context = _ctx(req, 'os-floating-ips:create')
    body = validation.parse_json(req) if req.body else None
    if body is not None and not isinstance(body, dict):
        raise webob.exc.HTTPBadRequest(
            'Invalid input for field/attribute body: an object is '
            'required.')
    pool = (body or {}).get('pool')
    if pool is not None and not isinstance(pool, str):
        raise webob.exc.HTTPBadRequest(
            'Invalid input for field/attribute pool: a string is '
            'required.')
    pools = _pools(context)
    if pool is None:
        found = pools[:1]
    else:
        found = [n for n in pools if pool in (n['name'], n['id'])]
    if not found:
        raise webob.exc.HTTPNotFound(
            'Floating IP pool not found: %s' % pool)
    try:
        fip = net_compute.create_floatingip(context, {
            'floating_network_id': found[0]['id']})
    except net_compute.NeutronError as exc:
        raise webob.exc.HTTPNotFound(
            'No more floating IPs in pool %s: %s' % (pool, exc.detail))
    return util.json_response({'floating_ip': _view(context, fip)})


@microversion.require(max_version=MAX_PROXY_VERSION)
def delete_floating_ip(req):
    context = _ctx(req, 'os-floating-ips:delete')
    fip = _get(context, req.urlvars['floating_ip_id'])
    net_compute.delete_floatingip(context, fip['id'])
    return util.no_content(202)


# -- the server actions -------------------------------------------------------

def _by_address(context, address):
    for fip in net_compute.list_floatingips(context):
        if fip['floating_ip_address'] == address:
            return fip
    raise webob.exc.HTTPNotFound(
        'Floating IP not found for address %s.' % address)


def add_floating_ip(req, api, context, server, body):
    """addFloatingIp: map the address to the server's first fixed IP (or
    the one given); an address mapped elsewhere moves, as in Nova. The
    network service needs a router between the two (else 400)."""
    if microversion.at_least(req, '2.44'):
        raise webob.exc.HTTPBadRequest(
            'There is no such action: addFloatingIp')
    values = body['addFloatingIp']
    fip = _by_address(context, values['address'])
    admin = context.elevated()
    ports = net_compute.server_ports(admin, server.uuid)
    fixed = values.get('fixed_address')
    port = next((p for p in ports for ip in p['fixed_ips']
                 if fixed in (None, ip['ip_address'])), None)
    if port is None:
        raise webob.exc.HTTPBadRequest(
            'No nw_info cache associated with instance' if fixed is None
            else 'Specified fixed address not assigned to instance')
    address = fixed or port['fixed_ips'][0]['ip_address']
    for other in net_compute.all_floatingips(admin):
        if other['id'] != fip['id'] and other['port_id'] == port['id'] \
                and other['fixed_ip_address'] == address:
            raise webob.exc.HTTPBadRequest(
                'Cannot associate floating IP %s with port %s using fixed '
                'IP %s, as that fixed IP already has a floating IP.' % (
                    values['address'], port['id'], address))
    try:
        net_compute.update_floatingip(admin, fip['id'], {
            'port_id': port['id'], 'fixed_ip_address': address})
    except net_compute.NeutronError as exc:
        # Nova answers 400 for whatever Neutron refuses (no router
        # between the floating IP's network and the port's subnet).
        raise webob.exc.HTTPBadRequest(
            'Unable to associate floating IP %s to fixed IP %s for '
            'instance %s. Error: %s' % (values['address'], address,
                                        server.uuid, exc.detail))


def remove_floating_ip(req, api, context, server, body):
    if microversion.at_least(req, '2.44'):
        raise webob.exc.HTTPBadRequest(
            'There is no such action: removeFloatingIp')
    fip = _by_address(context, body['removeFloatingIp']['address'])
    admin = context.elevated()
    ports = {p['id'] for p in net_compute.server_ports(admin, server.uuid)}
    if fip['port_id'] not in ports:
        raise webob.exc.HTTPConflict(
            'Floating IP %s is not associated with instance %s.' % (
                fip['floating_ip_address'], server.uuid))
    net_compute.update_floatingip(admin, fip['id'], {'port_id': None})


ACTION_SCHEMAS = {
    'addFloatingIp': {'type': 'object', 'properties': {'addFloatingIp': {
        'type': 'object', 'properties': {
            'address': {'type': 'string', 'minLength': 1},
            'fixed_address': {'type': 'string', 'minLength': 1}},
        'required': ['address']}}, 'required': ['addFloatingIp']},
    'removeFloatingIp': {'type': 'object', 'properties': {
        'removeFloatingIp': {'type': 'object', 'properties': {
            'address': {'type': 'string', 'minLength': 1}},
            'required': ['address']}}, 'required': ['removeFloatingIp']},
}

ACTIONS = {
    'addFloatingIp': ('os-floating-ips:add', add_floating_ip),
    'removeFloatingIp': ('os-floating-ips:remove', remove_floating_ip),
}
