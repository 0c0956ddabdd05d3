"""Which router carries a floating IP to a port (Neutron's L3 paths).

A floating IP of external network E maps to a fixed IP on subnet S only
through a router with its gateway on E and an interface on S; the
floating IP then shows that router's id. Kept apart from
:mod:`.routers` so that the ports module can ask without importing it.
"""

from nova_lite.network import errors
from nova_lite.network import objects as net_obj

INTERFACE = 'network:router_interface'
GATEWAY = 'network:router_gateway'


def router_ports(context, router_id, owner=None):
    """The ports of router ``router_id`` (of ``owner`` when given)."""
    return [p for p in net_obj.get_by_devices(context.elevated(), 'port',
                                              [router_id])
            if owner is None or p['device_owner'] == owner]


def router_for(context, port, fixed_ip, network_id):
    """The id of the router joining the subnet of ``port``'s
    ``fixed_ip`` to the external network ``network_id``, preferring one
    whose interface is the subnet's gateway, as Neutron does; 404
    ExternalGatewayForFloatingIPNotFound when none does."""
    admin = context.elevated()
    subnet_id = next((ip['subnet_id'] for ip in port['fixed_ips']
                      if ip['ip_address'] == fixed_ip), None)
    first = None
    for router in net_obj.get_all(admin, 'router'):
        info = router.get('external_gateway_info') or {}
        if info.get('network_id') != network_id:
            continue
        for iface in router_ports(admin, router['id'], INTERFACE):
            for ip in iface['fixed_ips']:
                if ip['subnet_id'] != subnet_id:
                    continue
                subnet = net_obj.get(admin, 'subnet', subnet_id)
                if ip['ip_address'] == subnet.get('gateway_ip'):
                    return router['id']
                first = first or router['id']
    if first:
        return first
    raise errors.NeutronError(
        404, 'ExternalGatewayForFloatingIPNotFound',
        'External network %s is not reachable from subnet %s.  Therefore, '
        'cannot associate Port %s with a Floating IP.'
        % (network_id, subnet_id, port['id']))
