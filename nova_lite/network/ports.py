"""Ports (fixed IPs from their network's subnets) and floating IPs.

A port gets, unless ``fixed_ips`` says which, one address from its
network's IPv4 subnets, one from its stateful IPv6 subnets (taken from
their pools) and its EUI-64 address on each SLAAC or DHCPv6-stateless
subnet, as in Neutron; addresses are unique per network (the database
refuses a second holder: 409 IpAddressInUse). A port of a network with
port security gets its project's default security group unless it names
groups. A floating IP takes an address of an external network and maps
it to a port's fixed IP when associated, through a router joining the
two (:mod:`.reach`). A router's ports go only with their router.
"""

import ipaddress
import random
import re

from oslo_log import log as logging

from nova_lite import exception
from nova_lite.network import common
from nova_lite.network import errors
from nova_lite.network import networks
from nova_lite.network import objects as net_obj
from nova_lite.network import reach
from nova_lite.network import policy
from nova_lite.network import qos
from nova_lite.network import secgroups

LOG = logging.getLogger(__name__)

PORT_KEYS = ('name', 'network_id', 'admin_state_up', 'mac_address',
             'fixed_ips', 'device_id', 'device_owner', 'security_groups',
             'description', 'project_id', 'tenant_id', 'binding:host_id',
             'binding:vnic_type', 'binding:profile',
             'port_security_enabled', 'allowed_address_pairs',
             'extra_dhcp_opts', 'dns_name', 'qos_policy_id')
FIP_KEYS = ('floating_network_id', 'floating_ip_address', 'port_id',
            'fixed_ip_address', 'description', 'project_id', 'tenant_id',
            'subnet_id', 'qos_policy_id')


MAC_PATTERN = r'^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$'
_MAC = re.compile(MAC_PATTERN)


def _check_mac(values):
    mac = values.get('mac_address')
    if mac is not None and not (isinstance(mac, str) and _MAC.match(mac)):
        raise errors.bad_request(
            "Invalid input for mac_address. Reason: '%s' is not a valid "
            "MAC address." % (mac,))


def _mac():
    return 'fa:16:3e:%02x:%02x:%02x' % tuple(
        random.randint(0, 255) for _ in range(3))


def visible_port(context, port):
    return common.owns(context, port)


def list_ports(context):
    return [p for p in net_obj.get_all(context, 'port')
            if visible_port(context, p)]


def get_port(context, port_id):
    return common.get(context, 'port', port_id)


def _subnets_of(context, network_id):
    return [s for s in net_obj.get_all(context, 'subnet')
            if s['network_id'] == network_id]


AUTO_ADDRESS = ('slaac', 'dhcpv6-stateless')
ROUTER_OWNERS = ('network:router_interface',
                 'network:router_interface_distributed',
                 'network:ha_router_replicated_interface')


def auto_address(subnet):
    """Whether hosts address themselves on ``subnet`` (SLAAC or
    DHCPv6-stateless): Neutron then derives the port's address from its
    MAC rather than taking one from the pool."""
    return subnet['ip_version'] == 6 and (
        subnet.get('ipv6_address_mode') in AUTO_ADDRESS or
        subnet.get('ipv6_ra_mode') in AUTO_ADDRESS)


def eui64(cidr, mac):
    """The modified EUI-64 address of ``mac`` in the /64 ``cidr``."""
    octets = bytes(int(part, 16) for part in mac.split(':'))
    interface = bytes([octets[0] ^ 0x02]) + octets[1:3] + b'\xff\xfe' + \
        octets[3:]
    prefix = ipaddress.ip_network(cidr).network_address
    return str(ipaddress.IPv6Address(
        int(prefix) | int.from_bytes(interface, 'big')))


def _default_request(subnets, mac, owner):
    """Neutron's choice when a port names no ``fixed_ips``: one address
    from the IPv4 subnets, one from the stateful IPv6 ones, and one on
    every auto-address IPv6 subnet (its EUI-64)."""
    v4 = [s for s in subnets if s['ip_version'] == 4]
    v6 = [s for s in subnets if s['ip_version'] == 6 and
          not auto_address(s)]
    wanted = [{'candidates': group} for group in (v4, v6) if group]
    return wanted + _auto_requests(subnets, mac, owner, ())


def _auto_requests(subnets, mac, owner, named):
    if mac is None or owner in ROUTER_OWNERS:
        return []
    return [{'subnet_id': s['id']} for s in subnets
            if auto_address(s) and s['id'] not in named]


def _requested_subnet(context, by_id, network_id, subnet_id):
    """The subnet a ``fixed_ips`` entry names: 404 when the caller may
    not see it, 400 when it is not on the port's network (Neutron)."""
    subnet = by_id.get(subnet_id)
    if subnet is None:
        networks.get_subnet(context, subnet_id)
        raise errors.bad_request(
            'Invalid input for operation: Failed to create port on '
            'network %s, because fixed_ips included invalid subnet %s.'
            % (network_id, subnet_id), 'InvalidInput')
    return subnet


def _free(context, subnets, used, mac):
    """(subnet, address): the first free address among ``subnets``."""
    for subnet in subnets:
        if auto_address(subnet) and mac is not None:
            address = eui64(subnet['cidr'], mac)
            if address not in used:
                return subnet, address
            continue
        address = networks.next_free(context, subnet, used)
        if address is not None:
            return subnet, address
    return subnets[0], None


def _allocate(context, network_id, requested, mac=None, owner=''):
    """[(network, subnet, address)] for a port's ``fixed_ips``."""
    subnets = _subnets_of(context, network_id)
    by_id = {s['id']: s for s in subnets}
    used = net_obj.addresses_in_use(context, network_id)
    if requested is None:
        wanted = _default_request(subnets, mac, owner)
    else:
        named = {item.get('subnet_id') for item in requested}
        wanted = list(requested) + _auto_requests(subnets, mac, owner,
                                                  named)
    result = []
    for item in wanted:
        subnet = None
        if item.get('subnet_id') is not None:
            subnet = _requested_subnet(context, by_id, network_id,
                                       item['subnet_id'])
        address = item.get('ip_address')
        if address is not None:
            try:
                ip = ipaddress.ip_address(address)
            except ValueError:
                raise errors.bad_request(
                    "Invalid input for fixed_ips. Reason: '%s' is not a "
                    "valid IP address." % address)
            if subnet is None:
                subnet = next((s for s in subnets if ip in
                               ipaddress.ip_network(s['cidr'])), None)
            if subnet is None or ip not in ipaddress.ip_network(
                    subnet['cidr']):
                raise _invalid_ip(address)
            if address in used:
                raise _already_allocated(address, subnet)
        else:
            candidates = item.get('candidates') or (
                [subnet] if subnet is not None else None)
            if not candidates:
                raise errors.bad_request(
                    'Invalid input for fixed_ips: subnet %s is not on '
                    'network %s.' % (item.get('subnet_id'), network_id))
            subnet, address = _free(context, candidates, used, mac)
            if address is None:
                raise errors.conflict(
                    'IpAddressGenerationFailure',
                    'No more IP addresses available on network %s.'
                    % network_id)
        used.add(address)
        result.append((network_id, subnet['id'], address))
    return result


def _store(context, port, ips, update=False):
    port['fixed_ips'] = [{'subnet_id': s, 'ip_address': a}
                         for _, s, a in ips]
    try:
        if update:
            net_obj.update(context, 'port', port, ips)
        else:
            net_obj.create(context, 'port', port, ips)
    except exception.IpAddressInUse as exc:
        raise errors.conflict('IpAddressAlreadyAllocated', exc.message)
    return port


# Tries of an allocation whose chosen address a concurrent request took.
ALLOCATION_ATTEMPTS = 5


def _allocate_and_create(context, kind, resource, allocate, requested):
    """Create ``resource`` with the addresses ``allocate()`` picks, picking
    again when a concurrent request stored one of them first.

    Two requests that read the free addresses at once pick the same one,
    and the database refuses the second (its allocations are unique per
    network). Neutron's IPAM retries such a request; so does this, up to
    ALLOCATION_ATTEMPTS times. An address the request itself named is a
    409 at once: asking again would not make it free.
    """
    named = {item.get('ip_address') for item in requested or ()
             if isinstance(item, dict)}
    for attempt in range(1, ALLOCATION_ATTEMPTS + 1):
        ips = allocate()
        try:
            net_obj.create(context, kind, resource, ips)
            return ips
        except exception.IpAddressInUse as exc:
            taken = exc.kwargs.get('ip_address')
            if taken in named or attempt == ALLOCATION_ATTEMPTS:
                raise errors.conflict('IpAddressAlreadyAllocated',
                                      exc.message)
            LOG.info('Address %s was taken by a concurrent request; '
                     'allocating again for %s %s (try %d)', taken, kind,
                     resource['id'], attempt + 1)


def _check_lists(values):
    fixed = values.get('fixed_ips')
    if fixed is not None and not (isinstance(fixed, list) and all(
            isinstance(i, dict) for i in fixed)):
        raise errors.bad_request(
            "Invalid input for fixed_ips. Reason: '%s' is not a list of "
            "dicts." % (fixed,))
    groups = values.get('security_groups')
    if groups is not None and not (isinstance(groups, list) and all(
            isinstance(g, str) for g in groups)):
        raise errors.bad_request(
            "Invalid input for security_groups. Reason: '%s' is not a "
            "list of ids." % (groups,))


def create_port(context, values):
    common.check_keys(values, PORT_KEYS, 'port')
    _check_lists(values)
    _check_mac(values)
    common.check_string(values, 'name')
    common.check_project(context, values)
    policy.authorize(context, 'create', 'port', values,
                     [k for k in values if values[k]])
    network_id = values.get('network_id')
    if not network_id:
        raise errors.bad_request(
            "Failed to parse request. Required attribute 'network_id' not "
            "specified")
    network = networks.get_network(context, network_id)
    project = values.get('project_id') or values.get('tenant_id') or \
        context.project_id
    security = values.get('port_security_enabled',
                           network['port_security_enabled'])
    groups = values.get('security_groups')
    if groups is None:
        groups = [secgroups.ensure_default(context, project)['id']] \
            if security and project else []
    for group_id in groups:
        common.get(context, secgroups.SG, group_id, secgroups.visible)
    qos_policy_id = qos.check_attached(context, values)
    port = common.standard(context, {
        'name': values.get('name', ''), 'network_id': network_id,
        'admin_state_up': values.get('admin_state_up', True),
        'mac_address': values.get('mac_address') or _mac(),
        'device_id': values.get('device_id', ''),
        'device_owner': values.get('device_owner', ''),
        'status': 'ACTIVE' if values.get('device_id') else 'DOWN',
        'security_groups': groups, 'port_security_enabled': security,
        'allowed_address_pairs': values.get('allowed_address_pairs', []),
        'extra_dhcp_opts': values.get('extra_dhcp_opts', []),
        'binding:host_id': values.get('binding:host_id', ''),
        'binding:vnic_type': values.get('binding:vnic_type', 'normal'),
        'binding:profile': values.get('binding:profile', {}),
        'binding:vif_type': 'unbound', 'binding:vif_details': {},
        'dns_name': values.get('dns_name', ''), 'dns_assignment': [],
        'ip_allocation': 'immediate', 'qos_policy_id': qos_policy_id,
        'qos_network_policy_id': network.get('qos_policy_id'),
        'description': values.get('description', '')}, project)

    def allocate():
        ips = _allocate(context, network_id, values.get('fixed_ips'),
                        port['mac_address'], port['device_owner'])
        port['fixed_ips'] = [{'subnet_id': s, 'ip_address': a}
                             for _, s, a in ips]
        return ips

    _allocate_and_create(context, 'port', port, allocate,
                         values.get('fixed_ips'))
    LOG.info('Port %s created on network %s (%s)', port['id'], network_id,
             ', '.join(ip['ip_address'] for ip in port['fixed_ips']))
    return port


def update_port(context, port_id, values):
    port = get_port(context, port_id)
    common.check_keys(values, PORT_KEYS, 'port')
    policy.authorize(context, 'update', 'port', port,
                     [k for k in values if values[k] != port.get(k)])
    _check_lists(values)
    if values.get('fixed_ips') is None:
        values.pop('fixed_ips', None)
    common.check_string(values, 'name')
    for group_id in values.get('security_groups') or []:
        common.get(context, secgroups.SG, group_id, secgroups.visible)
    if 'qos_policy_id' in values:
        qos.check_attached(context, values, port.get('qos_policy_id'))
    ips = None
    if 'fixed_ips' in values:
        ips = _allocate_update(context, port, values.pop('fixed_ips'))
    port.update(values)
    if 'device_id' in values:
        port['status'] = 'ACTIVE' if port['device_id'] else 'DOWN'
    common.touch(port)
    if ips is not None:
        return _store(context, port, ips, update=True)
    net_obj.update(context, 'port', port)
    return port


def _allocate_update(context, port, requested):
    kept = {ip['ip_address'] for ip in port['fixed_ips']}
    used = net_obj.addresses_in_use(context, port['network_id']) - kept
    subnets = {s['id']: s for s in _subnets_of(context,
                                               port['network_id'])}
    result = []
    for item in requested:
        address = item.get('ip_address')
        subnet = subnets.get(item.get('subnet_id'))
        if address is None:
            if subnet is None:
                raise errors.bad_request('Invalid input for fixed_ips.')
            address = networks.next_free(context, subnet, used | kept)
        elif subnet is None:
            subnet = next((s for s in subnets.values() if
                           ipaddress.ip_address(address) in
                           ipaddress.ip_network(s['cidr'])), None)
            if subnet is None:
                raise _invalid_ip(address)
        if address in used:
            raise _already_allocated(address, subnet)
        result.append((port['network_id'], subnet['id'], address))
    return result


def delete_port(context, port_id, l3_check=True):
    """Delete a port; a router's ports only through their router (409
    ServicePortInUse otherwise, as in Neutron)."""
    port = get_port(context, port_id)
    policy.authorize(context, 'delete', 'port', port)
    if l3_check and port['device_owner'] in (reach.INTERFACE,
                                              reach.GATEWAY):
        raise errors.conflict(
            'ServicePortInUse', 'Port %s cannot be deleted directly via '
            'the port API: has device owner %s.'
            % (port_id, port['device_owner']))
    _check_not_in_trunk(port)
    for fip in net_obj.get_all(context, 'floatingip'):
        if fip.get('port_id') == port_id:
            _disassociate(context, fip)
    try:
        net_obj.destroy(context, 'port', port_id)
    except exception.NetworkResourceNotFound:
        raise errors.not_found('port', port_id)
    LOG.info('Port %s deleted', port_id)


def _check_not_in_trunk(port):
    """Neutron's 409 for a port a trunk holds (:mod:`.trunks` marks its
    parent with ``trunk_details`` and its subports by owner)."""
    details = port.get('trunk_details')
    if details:
        raise errors.conflict(
            'PortInUseAsTrunkParent', 'Port %s is currently a parent port '
            'for trunk %s.' % (port['id'], details['trunk_id']))
    if port.get('device_owner') == 'trunk:subport':
        raise errors.conflict(
            'PortInUseAsSubPort', 'Port %s is currently a subport for '
            'trunk %s.' % (port['id'], port['device_id']))


# -- floating IPs -------------------------------------------------------------

def _with_port_details(context, fip):
    """``fip`` with Neutron's ``port_details`` (fip-port-details): what
    its port is now, None when it has none."""
    details = None
    if fip.get('port_id'):
        try:
            port = net_obj.get(context.elevated(), 'port', fip['port_id'])
        except exception.NetworkResourceNotFound:
            port = None
        if port is not None:
            details = {k: port.get(k) for k in (
                'name', 'network_id', 'mac_address', 'admin_state_up',
                'status', 'device_id', 'device_owner')}
    return dict(fip, port_details=details)


def list_floatingips(context):
    return [_with_port_details(context, f)
            for f in net_obj.get_all(context, 'floatingip')
            if common.owns(context, f)]


def stored_floatingip(context, fip_id):
    """The floating IP as stored (what a change writes back whole)."""
    return common.get(context, 'floatingip', fip_id)


def get_floatingip(context, fip_id):
    return _with_port_details(context, stored_floatingip(context, fip_id))


def _associate(context, fip, port_id, fixed=None):
    port = get_port(context, port_id)
    addresses = [ip['ip_address'] for ip in port['fixed_ips']]
    if not addresses:
        raise errors.bad_request(
            'Port %s does not have fixed ip.' % port_id)
    if fixed is not None and fixed not in addresses:
        raise errors.bad_request(
            'Port %s does not have fixed ip %s.' % (port_id, fixed))
    fixed = fixed or addresses[0]
    router_id = reach.router_for(context, port, fixed,
                                 fip['floating_network_id'])
    fip.update(port_id=port_id, fixed_ip_address=fixed,
               router_id=router_id, status='ACTIVE')


def _disassociate(context, fip):
    fip.update(port_id=None, fixed_ip_address=None, router_id=None,
               status='DOWN')
    net_obj.update(context, 'floatingip', common.touch(fip))


def create_floatingip(context, values):
    common.check_keys(values, FIP_KEYS, 'floatingip')
    common.check_project(context, values)
    policy.authorize(context, 'create', 'floatingip', values)
    network_id = values.get('floating_network_id')
    if not network_id:
        raise errors.bad_request(
            "Failed to parse request. Required attribute "
            "'floating_network_id' not specified")
    network = networks.get_network(context, network_id)
    qos_policy_id = qos.check_attached(context, values)
    if not network.get('router:external'):
        raise errors.bad_request(
            'Bad floatingip request: Network %s is not a valid external '
            'network.' % network_id)
    requested = None
    if values.get('floating_ip_address'):
        requested = [{'ip_address': values['floating_ip_address']}]
    elif values.get('subnet_id'):
        requested = [{'subnet_id': values['subnet_id']}]
    fip = common.standard(context, {
        'floating_network_id': network_id, 'router_id': None,
        'port_id': None, 'fixed_ip_address': None, 'status': 'DOWN',
        'port_details': None, 'port_forwardings': [],
        'qos_policy_id': qos_policy_id, 'dns_domain': '', 'dns_name': '',
        'description': values.get('description', '')},
        values.get('project_id') or values.get('tenant_id'))

    def allocate():
        ips = _allocate(context, network_id, requested)[:1]
        if not ips:
            raise errors.conflict('ExternalGatewayForFloatingIPNotFound',
                                  'No subnet on external network %s.'
                                  % network_id)
        fip['floating_ip_address'] = ips[0][2]
        if values.get('port_id') and fip['port_id'] is None:
            _associate(context, fip, values['port_id'],
                       values.get('fixed_ip_address'))
        return ips

    _allocate_and_create(context, 'floatingip', fip, allocate, requested)
    LOG.info('Floating IP %s (%s) created', fip['id'],
             fip['floating_ip_address'])
    return _with_port_details(context, fip)


def update_floatingip(context, fip_id, values):
    fip = stored_floatingip(context, fip_id)
    policy.authorize(context, 'update', 'floatingip', fip)
    common.check_keys(values, ('port_id', 'fixed_ip_address',
                               'description', 'qos_policy_id'), 'floatingip')
    if 'description' in values:
        fip['description'] = values['description']
    if 'qos_policy_id' in values:
        fip['qos_policy_id'] = qos.check_attached(
            context, values, fip.get('qos_policy_id'))
    if 'port_id' in values:
        if values['port_id']:
            _associate(context, fip, values['port_id'],
                       values.get('fixed_ip_address'))
        else:
            fip.update(port_id=None, fixed_ip_address=None,
                       router_id=None, status='DOWN')
    net_obj.update(context, 'floatingip', common.touch(fip))
    return _with_port_details(context, fip)


def delete_floatingip(context, fip_id):
    policy.authorize(context, 'delete', 'floatingip',
                     stored_floatingip(context, fip_id))
    try:
        net_obj.destroy(context, 'floatingip', fip_id)
    except exception.NetworkResourceNotFound:
        raise errors.not_found('floatingip', fip_id)
    LOG.info('Floating IP %s deleted', fip_id)


def _invalid_ip(address):
    """Neutron's 400 for a fixed IP outside the subnet asked for."""
    return errors.bad_request(
        'IP address %s is not a valid IP for the specified subnet.'
        % address, 'InvalidIpForSubnet')


def _already_allocated(address, subnet):
    """Neutron's 409 for a fixed IP another port holds."""
    return errors.conflict(
        'IpAddressAlreadyAllocated',
        'IP address %s already allocated in subnet %s'
        % (address, subnet['id']))
