"""Routers (Neutron's L3 and extraroute extensions).

A router joins subnets (its interfaces: ports with the subnet's gateway
address, device owner ``network:router_interface``) and an external
network (its gateway: a port there, ``network:router_gateway``, owned by
no project). Floating IPs of an external network reach only ports on
subnets a router joins to that network (:mod:`.reach`). Extra
routes need a next hop on an attached subnet. Members of a project
manage its routers; an admin sees all; others' routers are 404, and
``distributed``/``ha`` are shown to admins only, as Neutron's default
policies say.
"""

import ipaddress

from oslo_log import log as logging

from nova_lite import exception
from nova_lite.network import common
from nova_lite.network import errors
from nova_lite.network import networks
from nova_lite.network import objects as net_obj
from nova_lite.network import ports
from nova_lite.network import qos
from nova_lite.network import reach

LOG = logging.getLogger(__name__)

INTERFACE = reach.INTERFACE
GATEWAY = reach.GATEWAY
ROUTER_KEYS = ('name', 'admin_state_up', 'external_gateway_info',
               'description', 'project_id', 'tenant_id', 'distributed',
               'ha', 'availability_zone_hints', 'routes')
ADMIN_KEYS = ('distributed', 'ha')


def _bad(message):
    return errors.bad_request('Bad router request: %s.' % message)


def _not_found(router_id):
    return errors.NeutronError(404, 'RouterNotFound',
                               'Router %s could not be found' % router_id)


def view(context, router):
    """The router as the caller may see it."""
    if context.is_admin:
        return router
    return {k: v for k, v in router.items() if k not in ADMIN_KEYS}


def _get(context, router_id):
    try:
        router = net_obj.get(context, 'router', router_id)
    except exception.NetworkResourceNotFound:
        raise _not_found(router_id)
    if not common.owns(context, router):
        raise _not_found(router_id)
    return router


def list_routers(context):
    return [view(context, r) for r in net_obj.get_all(context, 'router')
            if common.owns(context, r)]


def get_router(context, router_id):
    return view(context, _get(context, router_id))


def stored_router(context, router_id):
    """The router as stored (what a tag change writes back whole)."""
    return _get(context, router_id)


_router_ports = reach.router_ports


# -- the gateway -------------------------------------------------------------

def _check_gateway(context, info, old):
    if info is None or info == {}:
        return None
    if not isinstance(info, dict) or not info.get('network_id'):
        raise errors.bad_request(
            "Invalid input for external_gateway_info. Reason: Validation "
            "of dictionary's keys failed. Expected keys: {'network_id'}.")
    common.check_keys(info, ('network_id', 'enable_snat',
                             'external_fixed_ips', 'qos_policy_id'),
                      'router')
    for key in ('enable_snat', 'external_fixed_ips'):
        changed = key in info and (old is None or info[key] != old.get(key))
        if changed and not context.is_admin:
            raise errors.forbidden(
                '(rule:update_router:external_gateway_info:%s) is '
                'disallowed by policy' % key, 'PolicyNotAuthorized')
    common.check_bool(info, 'enable_snat')
    try:
        network = networks.get_network(context, info['network_id'])
    except errors.NeutronError:
        raise errors.not_found('network', info['network_id'])
    if not network.get('router:external'):
        raise _bad('Network %s is not an external network'
                   % info['network_id'])
    return info


def _gateway_ips(context, network_id, wanted):
    """The external fixed IPs asked for, else one address of each IP
    version the external network has a subnet of."""
    if wanted:
        return [dict(ip) for ip in wanted]
    found, versions = [], set()
    for subnet in net_obj.get_all(context.elevated(), 'subnet'):
        if subnet['network_id'] == network_id and \
                subnet['ip_version'] not in versions:
            versions.add(subnet['ip_version'])
            found.append({'subnet_id': subnet['id']})
    return found


def _fips_through(context, router_id, network_id):
    return [f for f in net_obj.get_all(context.elevated(), 'floatingip')
            if f.get('router_id') == router_id and
            f['floating_network_id'] == network_id]


def _drop_gateway(context, router):
    info = router.get('external_gateway_info')
    if not info:
        return
    if _fips_through(context, router['id'], info['network_id']):
        raise errors.conflict(
            'RouterExternalGatewayInUseByFloatingIp',
            'Gateway cannot be updated for router %s, since a gateway to '
            'external network %s is required by one or more floating IPs.'
            % (router['id'], info['network_id']))
    for port in _router_ports(context, router['id'], GATEWAY):
        ports.delete_port(context.elevated(), port['id'], l3_check=False)
    router['external_gateway_info'] = None


def _set_gateway(context, router, info):
    """Give ``router`` the gateway ``info`` (None: none), replacing the
    port when the external network or its addresses change."""
    old = router.get('external_gateway_info')
    info = _check_gateway(context, info, old)
    if info is None:
        _drop_gateway(context, router)
        return
    snat = info.get('enable_snat', old.get('enable_snat', True)
                    if old else True)
    # qos-gateway-ip: the gateway keeps its policy unless told otherwise
    old_qos = (old or {}).get('qos_policy_id')
    qos_policy_id = old_qos
    if 'qos_policy_id' in info:
        qos_policy_id = qos.check_attached(context, info, old_qos)
    same = old and old['network_id'] == info['network_id'] and \
        'external_fixed_ips' not in info
    if same:
        old.update(enable_snat=snat, qos_policy_id=qos_policy_id)
        return
    _drop_gateway(context, router)
    port = ports.create_port(context.elevated(), {
        'network_id': info['network_id'], 'device_id': router['id'],
        'device_owner': GATEWAY, 'project_id': '',
        'port_security_enabled': False, 'security_groups': [],
        'fixed_ips': _gateway_ips(context, info['network_id'],
                                  info.get('external_fixed_ips'))})
    port['project_id'] = port['tenant_id'] = ''
    net_obj.update(context.elevated(), 'port', port)
    router['external_gateway_info'] = {
        'network_id': info['network_id'], 'enable_snat': snat,
        'external_fixed_ips': port['fixed_ips'],
        'qos_policy_id': qos_policy_id}


# -- create, update, delete --------------------------------------------------

def _check_values(context, values, creating):
    common.check_keys(values, ROUTER_KEYS, 'router')
    common.check_string(values, 'name')
    common.check_string(values, 'description')
    common.check_bool(values, 'admin_state_up')
    for key in ADMIN_KEYS:
        common.check_bool(values, key)
        if key in values and not context.is_admin:
            raise errors.forbidden(
                '(rule:%s_router:%s) is disallowed by policy'
                % ('create' if creating else 'update', key),
                'PolicyNotAuthorized')
    if creating and 'routes' in values:
        raise errors.bad_request("Attribute 'routes' not allowed in POST")


def create_router(context, values):
    _check_values(context, values, True)
    common.check_project(context, values)
    router = common.standard(context, {
        'name': values.get('name', ''), 'status': 'ACTIVE',
        'admin_state_up': values.get('admin_state_up', True),
        'external_gateway_info': None, 'routes': [],
        'distributed': values.get('distributed', False),
        'ha': values.get('ha', False), 'flavor_id': None,
        'availability_zone_hints': values.get('availability_zone_hints',
                                              []),
        'availability_zones': [],
        'description': values.get('description', '')},
        values.get('project_id') or values.get('tenant_id'))
    net_obj.create(context, 'router', router)
    try:
        if values.get('external_gateway_info'):
            _set_gateway(context, router, values['external_gateway_info'])
            net_obj.update(context, 'router', router)
    except Exception:
        net_obj.destroy(context, 'router', router['id'])
        raise
    LOG.info('Router %s created', router['id'])
    return view(context, router)


def update_router(context, router_id, values):
    router = _get(context, router_id)
    _check_values(context, values, False)
    for key in ('project_id', 'tenant_id'):
        if key in values:
            raise errors.bad_request(
                "Cannot update read-only attribute %s" % key)
    if 'routes' in values:
        router['routes'] = _check_routes(context, router,
                                         values.pop('routes'))
    if 'external_gateway_info' in values:
        _set_gateway(context, router, values.pop('external_gateway_info'))
    router.update(values)
    net_obj.update(context, 'router', common.touch(router))
    return view(context, router)


def _route_key(route):
    return (route.get('destination'), route.get('nexthop'))


def change_extraroutes(context, router_id, body, adding):
    """Neutron's ``extraroute-atomic``: add the routes ``body`` names
    (those already there stay once) or remove them (those not there are
    ignored), the rest of the router's routes unchanged."""
    routes = body.get('router', {}).get('routes') if isinstance(
        body, dict) and isinstance(body.get('router'), dict) else None
    if not isinstance(routes, list) or not all(
            isinstance(r, dict) for r in routes):
        raise errors.bad_request(
            "Invalid input for routes. Reason: expected {'router': "
            "{'routes': [...]}}.")
    current = _get(context, router_id)['routes']
    if adding:
        known = {_route_key(r) for r in current}
        merged = current + [r for r in routes
                            if _route_key(r) not in known]
        merged = list({_route_key(r): r for r in merged}.values())
    else:
        gone = {_route_key(r) for r in routes}
        merged = [r for r in current if _route_key(r) not in gone]
    return update_router(context, router_id, {'routes': merged})


def delete_router(context, router_id):
    router = _get(context, router_id)
    attached = _router_ports(context, router_id, INTERFACE)
    if attached:
        raise errors.conflict(
            'RouterInUse', 'Router %s has ports still attached: %s'
            % (router_id, ', '.join(p['id'] for p in attached)))
    _drop_gateway(context, router)
    net_obj.destroy(context, 'router', router_id)
    LOG.info('Router %s deleted', router_id)


# -- interfaces --------------------------------------------------------------

def _interface_info(body, removing=False):
    if not isinstance(body, dict):
        raise errors.bad_request('Malformed request body')
    port_id, subnet_id = body.get('port_id'), body.get('subnet_id')
    if not (port_id or subnet_id):
        raise _bad('Either subnet_id or port_id must be specified')
    if port_id and subnet_id and not removing:
        raise _bad('Cannot specify both subnet-id and port-id')
    return port_id, subnet_id


def _answer(router, port, subnet_ids):
    return {'id': router['id'], 'tenant_id': router['project_id'],
            'project_id': router['project_id'], 'port_id': port['id'],
            'network_id': port['network_id'], 'subnet_id': subnet_ids[0],
            'subnet_ids': subnet_ids}


def _attached_subnets(context, router_id):
    return {ip['subnet_id']: ip['ip_address']
            for p in _router_ports(context, router_id, INTERFACE)
            for ip in p['fixed_ips']}


def _check_new_subnets(context, router, subnets):
    attached = _attached_subnets(context, router['id'])
    for subnet in subnets:
        if subnet['id'] in attached:
            raise _bad('Router already has a port on subnet %s'
                       % subnet['id'])
        new = ipaddress.ip_network(subnet['cidr'])
        for other_id in attached:
            other = net_obj.get(context.elevated(), 'subnet', other_id)
            if ipaddress.ip_network(other['cidr']).overlaps(new):
                raise _bad('Cidr %s of subnet %s overlaps with cidr %s of '
                           'subnet %s' % (subnet['cidr'], subnet['id'],
                                          other['cidr'], other['id']))


def add_interface(context, router_id, body):
    router = _get(context, router_id)
    port_id, subnet_id = _interface_info(body)
    if port_id:
        port = ports.get_port(context, port_id)
        if port['device_id'] or port['device_owner']:
            raise errors.conflict(
                'PortInUse', 'Unable to complete operation on port %s for '
                'network %s. Port already has an attached device %s.'
                % (port_id, port['network_id'], port['device_id']))
        if not port['fixed_ips']:
            raise _bad('Router port must have at least one fixed IP')
        subnets = [networks.get_subnet(context, ip['subnet_id'])
                   for ip in port['fixed_ips']]
        _check_new_subnets(context, router, subnets)
        port.update(device_id=router_id, device_owner=INTERFACE,
                    status='ACTIVE')
        net_obj.update(context, 'port', common.touch(port))
    else:
        subnet = networks.get_subnet(context, subnet_id)
        if not subnet.get('gateway_ip'):
            raise _bad('Subnet for router interface must have a gateway '
                       'IP')
        _check_new_subnets(context, router, [subnet])
        port = ports.create_port(context.elevated(), {
            'network_id': subnet['network_id'], 'device_id': router_id,
            'device_owner': INTERFACE, 'project_id': router['project_id'],
            'security_groups': [],
            'fixed_ips': [{'subnet_id': subnet_id,
                           'ip_address': subnet['gateway_ip']}]})
    LOG.info('Router %s: interface %s on %s', router_id, port['id'],
             ', '.join(ip['ip_address'] for ip in port['fixed_ips']))
    return _answer(router, port,
                   [ip['subnet_id'] for ip in port['fixed_ips']])


def _check_not_in_use(context, router, subnet_ids):
    for fip in net_obj.get_all(context.elevated(), 'floatingip'):
        if fip.get('router_id') != router['id'] or not fip.get('port_id'):
            continue
        try:
            port = net_obj.get(context.elevated(), 'port', fip['port_id'])
        except Exception:  # noqa: BLE001 - the port went meanwhile
            continue
        for ip in port['fixed_ips']:
            if ip['subnet_id'] in subnet_ids and \
                    ip['ip_address'] == fip['fixed_ip_address']:
                raise errors.conflict(
                    'RouterInterfaceInUseByFloatingIP',
                    'Router interface for subnet %s on router %s cannot be '
                    'deleted, as it is required by one or more floating '
                    'IPs.' % (ip['subnet_id'], router['id']))
    for subnet_id in subnet_ids:
        cidr = ipaddress.ip_network(
            net_obj.get(context.elevated(), 'subnet', subnet_id)['cidr'])
        if any(ipaddress.ip_address(r['nexthop']) in cidr
               for r in router['routes']):
            raise errors.conflict(
                'RouterInterfaceInUseByRoute',
                'Router interface for subnet %s on router %s cannot be '
                'deleted, as it is required by one or more routes.'
                % (subnet_id, router['id']))


def remove_interface(context, router_id, body):
    router = _get(context, router_id)
    port_id, subnet_id = _interface_info(body, removing=True)
    attached = _router_ports(context, router_id, INTERFACE)
    if port_id:
        port = next((p for p in attached if p['id'] == port_id), None)
        if port is None:
            raise errors.NeutronError(
                404, 'RouterInterfaceNotFound',
                'Router %s does not have an interface with id %s'
                % (router_id, port_id))
        subnet_ids = [ip['subnet_id'] for ip in port['fixed_ips']]
        if subnet_id and subnet_id not in subnet_ids:
            raise errors.bad_request(
                'Subnet %s on port %s does not match the requested '
                'subnet %s.' % (subnet_ids[0], port_id, subnet_id),
                'SubnetMismatchForPort')
    else:
        networks.get_subnet(context, subnet_id)
        port = next((p for p in attached for ip in p['fixed_ips']
                     if ip['subnet_id'] == subnet_id), None)
        if port is None:
            raise errors.NeutronError(
                404, 'RouterInterfaceNotFoundForSubnet',
                'Router %s has no interface on subnet %s'
                % (router_id, subnet_id))
        subnet_ids = [subnet_id]
    _check_not_in_use(context, router, subnet_ids)
    ports.delete_port(context.elevated(), port['id'], l3_check=False)
    LOG.info('Router %s: interface %s removed', router_id, port['id'])
    return _answer(router, port, subnet_ids)


# -- extra routes ------------------------------------------------------------

def _invalid_routes(routes, reason):
    return errors.bad_request('Invalid format for routes: %s, %s'
                              % (routes, reason), 'InvalidRoutes')


def _check_routes(context, router, routes):
    if routes is None:
        return []
    if not isinstance(routes, list):
        raise errors.bad_request(
            "Invalid input for routes. Reason: '%s' is not a list."
            % (routes,))
    # Every port of the router counts, its gateway's too, as in Neutron:
    # a nexthop on the external subnet is connected.
    fixed = {ip['subnet_id']: ip['ip_address']
             for p in _router_ports(context, router['id'])
             for ip in p['fixed_ips']}
    own = set(fixed.values())
    cidrs = [ipaddress.ip_network(net_obj.get(context.elevated(), 'subnet',
                                              s)['cidr'])
             for s in fixed]
    result = []
    for route in routes:
        try:
            destination = ipaddress.ip_network(route['destination'])
            nexthop = ipaddress.ip_address(route['nexthop'])
        except (KeyError, TypeError, ValueError):
            raise errors.bad_request(
                "Invalid input for routes. Reason: '%s' is not a valid "
                "route (destination and nexthop)." % (route,))
        if str(nexthop) in own:
            raise _invalid_routes(routes, 'the nexthop is used by router')
        if not any(nexthop in cidr for cidr in cidrs):
            raise _invalid_routes(routes,
                                  'the nexthop is not connected with router')
        item = {'destination': str(destination), 'nexthop': str(nexthop)}
        if item not in result:
            result.append(item)
    return result
