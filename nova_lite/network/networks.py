"""Networks and subnets.

A project sees its own networks and those an RBAC policy
(:mod:`.rbac`) shares with it or makes external to it; ``shared`` shows
whether the network is shared with the caller's project. Only an admin
makes a network shared or external to every project (``shared``,
``router:external``: a ``*`` policy each). A subnet's gateway defaults to
the first address of its CIDR and its allocation pool to the rest; its
network shows it in ``subnets``. A network or subnet with ports on it
cannot be deleted (409), as in Neutron.
"""

import ipaddress

from oslo_log import log as logging

from nova_lite.network import common
from nova_lite.network import errors
from nova_lite.network import objects as net_obj
from nova_lite.network import policy
from nova_lite.network import qos
from nova_lite.network import rbac
from nova_lite.network import subnetpools

LOG = logging.getLogger(__name__)

NETWORK_KEYS = ('name', 'admin_state_up', 'shared', 'router:external',
                'description', 'project_id', 'tenant_id', 'mtu',
                'port_security_enabled', 'availability_zone_hints',
                'is_default', 'provider:network_type',
                'provider:physical_network', 'provider:segmentation_id',
                'qos_policy_id')
SUBNET_KEYS = ('name', 'network_id', 'cidr', 'ip_version', 'gateway_ip',
               'allocation_pools', 'enable_dhcp', 'dns_nameservers',
               'host_routes', 'description', 'project_id', 'tenant_id',
               'ipv6_ra_mode', 'ipv6_address_mode', 'subnetpool_id',
               'service_types', 'segment_id', 'prefixlen',
               'use_default_subnetpool')


def _seen(context, network, grants):
    """``network`` as the caller sees it (``shared`` when shared with
    its project), or None when it may not see it."""
    mine = grants.get(network['id'], set())
    shared = rbac.granted(mine, rbac.SHARED, context.project_id)
    if not (common.owns(context, network) or shared or
            rbac.granted(mine, rbac.EXTERNAL, context.project_id)):
        return None
    network['shared'] = shared
    return network


def visible(context, network):
    return _seen(context, network,
                 rbac.grants(context, network['id'])) is not None


def list_networks(context):
    grants = rbac.grants(context)
    return [n for n in (_seen(context, n, grants)
                        for n in net_obj.get_all(context, 'network'))
            if n is not None]


def get_network(context, network_id):
    network = common.get(context, 'network', network_id, visible)
    return _seen(context, network, rbac.grants(context, network_id))


def create_network(context, values):
    common.check_keys(values, NETWORK_KEYS, 'network')
    common.check_string(values, 'name')
    for key in ('admin_state_up', 'shared', 'router:external',
                'port_security_enabled', 'is_default'):
        common.check_bool(values, key)
    common.check_project(context, values)
    policy.authorize(context, 'create', 'network', values,
                     [k for k in values if values[k]])
    project = values.get('project_id') or values.get('tenant_id') or \
        context.project_id
    # qos-default: a network naming no policy gets its project's default
    qos_policy_id = qos.check_attached(context, values) or \
        qos.default_policy_id(context, project)
    network = common.standard(context, {
        'name': values.get('name', ''),
        'admin_state_up': values.get('admin_state_up', True),
        'status': 'ACTIVE', 'subnets': [],
        'shared': values.get('shared', False),
        'router:external': values.get('router:external', False),
        'mtu': values.get('mtu', 1500),
        'port_security_enabled': values.get('port_security_enabled', True),
        'availability_zone_hints': values.get('availability_zone_hints', []),
        'availability_zones': [], 'ipv4_address_scope': None,
        'ipv6_address_scope': None, 'l2_adjacency': True,
        'is_default': values.get('is_default', False),
        'qos_policy_id': qos_policy_id,
        'description': values.get('description', '')},
        values.get('project_id') or values.get('tenant_id'))
    net_obj.create(context, 'network', network)
    for action, flag in ((rbac.SHARED, 'shared'),
                         (rbac.EXTERNAL, 'router:external')):
        if network[flag]:
            rbac.set_wildcard(context, 'network', network, action, True)
    LOG.info('Network %s created', network['id'])
    return network


def update_network(context, network_id, values):
    network = get_network(context, network_id)
    if not common.owns(context, network):
        raise errors.not_found('network', network_id)
    common.check_keys(values, NETWORK_KEYS, 'network')
    common.check_string(values, 'name')
    for key in ('admin_state_up', 'shared', 'router:external',
                'port_security_enabled', 'is_default'):
        common.check_bool(values, key)
    stored = net_obj.get(context, 'network', network_id)
    policy.authorize(context, 'update', 'network', network,
                     [k for k in values if values[k] != stored.get(k)])
    if 'qos_policy_id' in values:
        qos.check_attached(context, values, stored.get('qos_policy_id'))
    for action, flag in ((rbac.SHARED, 'shared'),
                         (rbac.EXTERNAL, 'router:external')):
        if flag in values and values[flag] != stored.get(flag):
            if not values[flag] and flag == 'router:external':
                _check_no_gateways(context, network_id)
            rbac.set_wildcard(context, 'network', stored, action,
                              values[flag])
    if values.get('qos_policy_id', stored.get('qos_policy_id')) != \
            stored.get('qos_policy_id'):
        _show_network_policy(context, network_id, values['qos_policy_id'])
    stored.update(values)
    net_obj.update(context, 'network', common.touch(stored))
    return _seen(context, stored, rbac.grants(context, network_id))


def _show_network_policy(context, network_id, policy_id):
    """qos-port-network-policy: the network's ports show its policy."""
    elevated = context.elevated()
    for port in net_obj.get_all(elevated, 'port'):
        if port['network_id'] == network_id:
            port['qos_network_policy_id'] = policy_id
            net_obj.update(elevated, 'port', port)


def _check_no_gateways(context, network_id):
    """Neutron's 409 when a network with router gateways on it stops
    being external."""
    for router in net_obj.get_all(context.elevated(), 'router'):
        info = router.get('external_gateway_info') or {}
        if info.get('network_id') == network_id:
            raise errors.conflict(
                'ExternalNetworkInUse', 'External network %s cannot be '
                'updated to be made non-external, since it has existing '
                'gateway ports.' % network_id)


def delete_network(context, network_id):
    network = get_network(context, network_id)
    if not common.owns(context, network):
        raise errors.not_found('network', network_id)
    policy.authorize(context, 'delete', 'network', network)
    ports = [p for p in net_obj.get_all(context, 'port')
             if p['network_id'] == network_id]
    if any(p['device_owner'] not in ('network:dhcp',) for p in ports):
        raise errors.conflict(
            'NetworkInUse', 'Unable to complete operation on network %s. '
            'There are one or more ports still in use on the network.'
            % network_id)
    for subnet in net_obj.get_all(context, 'subnet'):
        if subnet['network_id'] == network_id:
            net_obj.destroy(context, 'subnet', subnet['id'])
    net_obj.destroy(context, 'network', network_id)
    rbac.purge(context, network_id)
    LOG.info('Network %s deleted', network_id)


# -- subnets -----------------------------------------------------------------

def _shared_ids(context):
    """The networks shared with the caller's project."""
    return {object_id for object_id, mine in rbac.grants(context).items()
            if rbac.granted(mine, rbac.SHARED, context.project_id)}


def list_subnets(context):
    """The caller's subnets and those of shared networks (an external
    network's subnets stay its owner's, as in Neutron)."""
    shared = _shared_ids(context)
    return [s for s in net_obj.get_all(context, 'subnet')
            if common.owns(context, s) or s['network_id'] in shared]


def get_subnet(context, subnet_id):
    shared = _shared_ids(context)
    return common.get(context, 'subnet', subnet_id, lambda c, s: (
        common.owns(c, s) or s['network_id'] in shared))


def _pools(values, net, gateway):
    pools = values.get('allocation_pools')
    if pools:
        try:
            result = [{'start': str(ipaddress.ip_address(p['start'])),
                       'end': str(ipaddress.ip_address(p['end']))}
                      for p in pools]
        except (KeyError, TypeError, ValueError):
            raise errors.bad_request('Invalid allocation pools.')
        for pool in result:
            if ipaddress.ip_address(pool['start']) not in net or \
                    ipaddress.ip_address(pool['end']) not in net:
                raise errors.bad_request(
                    'The allocation pool %s-%s spans beyond the subnet '
                    'cidr %s.' % (pool['start'], pool['end'], net),
                    'OutOfBoundsAllocationPool')
        return result
    hosts = list(net.hosts()) if net.num_addresses <= 65536 else None
    if hosts is None:
        first, last = net.network_address + 1, net.broadcast_address - 1
    else:
        first, last = hosts[0], hosts[-1]
    if gateway is not None and str(first) == gateway:
        first += 1
    elif gateway is not None and str(last) == gateway:
        last -= 1
    return [{'start': str(first), 'end': str(last)}]


def _pool_of(context, values):
    """The subnet pool a new subnet is cut from: the one it names, or
    with ``use_default_subnetpool`` the default of its IP version."""
    common.check_bool(values, 'use_default_subnetpool')
    pool_id = values.get('subnetpool_id')
    if not values.pop('use_default_subnetpool', False):
        return pool_id
    if pool_id:
        raise errors.bad_request('subnetpool_id and use_default_subnetpool '
                                 'cannot both be specified')
    version = values.get('ip_version')
    if values.get('cidr'):
        try:
            version = ipaddress.ip_network(values['cidr'],
                                           strict=False).version
        except ValueError:
            raise errors.bad_request(
                "Invalid input for cidr. Reason: '%s' is not a valid IP "
                "subnet." % values['cidr'])
    if version not in (4, 6):
        raise errors.bad_request('ip_version must be specified in the '
                                 'absence of cidr and subnetpool_id')
    pool = subnetpools.default_pool(context, version)
    if pool is None:
        raise errors.bad_request('No default subnetpool found for IPv%s'
                                 % version)
    return pool['id']


def create_subnet(context, values):
    common.check_keys(values, SUBNET_KEYS, 'subnet')
    common.check_string(values, 'name')
    network_id = values.get('network_id')
    if not network_id:
        raise errors.bad_request(
            "Failed to parse request. Required attribute 'network_id' not "
            "specified")
    network = get_network(context, network_id)
    if not common.owns(context, network):
        raise errors.forbidden('(rule:create_subnet) is disallowed by '
                               'policy', 'PolicyNotAuthorized')
    policy.authorize(context, 'create', 'subnet', network)
    pool_id = _pool_of(context, values)
    if pool_id:
        values['cidr'] = subnetpools.allocate(context, pool_id, values)[1]
    elif 'prefixlen' in values:
        raise errors.bad_request(
            'prefixlen is only allowed when allocating from a subnet pool')
    try:
        net = ipaddress.ip_network(values.get('cidr'), strict=False)
    except (TypeError, ValueError):
        raise errors.bad_request(
            "Invalid input for cidr. Reason: '%s' is not a valid IP "
            "subnet." % values.get('cidr'))
    version = values.get('ip_version', net.version)
    if version != net.version:
        raise errors.bad_request('Cidr %s does not match ip_version %s'
                                 % (net, version))
    gateway = values.get('gateway_ip', str(net.network_address + 1))
    if gateway is not None:
        try:
            if ipaddress.ip_address(gateway) not in net:
                raise ValueError
        except ValueError:
            raise errors.bad_request('Invalid gateway %s for subnet %s.'
                                     % (gateway, net), 'GatewayIpInUse')
    subnet = common.standard(context, {
        'name': values.get('name', ''), 'network_id': network_id,
        'ip_version': version, 'cidr': str(net), 'gateway_ip': gateway,
        'allocation_pools': _pools(values, net, gateway),
        'enable_dhcp': values.get('enable_dhcp', True),
        'dns_nameservers': values.get('dns_nameservers', []),
        'host_routes': values.get('host_routes', []),
        'ipv6_ra_mode': values.get('ipv6_ra_mode'),
        'ipv6_address_mode': values.get('ipv6_address_mode'),
        'subnetpool_id': pool_id or None, 'service_types': [],
        'segment_id': None,
        'description': values.get('description', '')},
        values.get('project_id') or values.get('tenant_id'))
    net_obj.create(context, 'subnet', subnet)
    network['subnets'] = network['subnets'] + [subnet['id']]
    net_obj.update(context, 'network', common.touch(network))
    LOG.info('Subnet %s (%s) created on network %s', subnet['id'],
             subnet['cidr'], network_id)
    return subnet


def update_subnet(context, subnet_id, values):
    subnet = get_subnet(context, subnet_id)
    if not common.owns(context, subnet):
        raise errors.not_found('subnet', subnet_id)
    policy.authorize(context, 'update', 'subnet', subnet)
    common.check_keys(values, ('name', 'description', 'enable_dhcp',
                               'dns_nameservers', 'host_routes',
                               'gateway_ip'), 'subnet')
    common.check_string(values, 'name')
    subnet.update(values)
    net_obj.update(context, 'subnet', common.touch(subnet))
    return subnet


def delete_subnet(context, subnet_id):
    subnet = get_subnet(context, subnet_id)
    if not common.owns(context, subnet):
        raise errors.not_found('subnet', subnet_id)
    policy.authorize(context, 'delete', 'subnet', subnet)
    for port in net_obj.get_all(context, 'port'):
        if any(ip['subnet_id'] == subnet_id for ip in port['fixed_ips']):
            raise errors.conflict(
                'SubnetInUse', 'Unable to complete operation on subnet %s: '
                'One or more ports have an IP allocation from this subnet.'
                % subnet_id)
    net_obj.destroy(context, 'subnet', subnet_id)
    try:
        network = net_obj.get(context, 'network', subnet['network_id'])
    except Exception:  # noqa: BLE001 - the network went meanwhile
        return
    network['subnets'] = [s for s in network['subnets'] if s != subnet_id]
    net_obj.update(context, 'network', common.touch(network))
    LOG.info('Subnet %s deleted', subnet_id)


def next_free(context, subnet, used):
    """The first address of ``subnet``'s pools not in ``used``."""
    for pool in subnet['allocation_pools']:
        address = ipaddress.ip_address(pool['start'])
        end = ipaddress.ip_address(pool['end'])
        while address <= end:
            if str(address) not in used:
                return str(address)
            address += 1
    return None
