"""Neutron's ``network-ip-availability``: addresses used and total.

``GET /v2.0/network-ip-availabilities[/{network_id}]`` (admins, as
Neutron's default policy): per network and per subnet, the addresses
of its allocation pools (``total_ips``) and those held (``used_ips``:
ports' fixed IPs and floating IPs).
"""

import ipaddress

from nova_lite.network import common
from nova_lite.network import errors
from nova_lite.network import objects as net_obj
from nova_lite.wsgi import util


def _pool_size(subnet):
    return sum(int(ipaddress.ip_address(p['end'])) -
               int(ipaddress.ip_address(p['start'])) + 1
               for p in subnet['allocation_pools'])


def _availability(context, network, subnets):
    used = net_obj.addresses_in_use(context, network['id'])
    rows = []
    for subnet in subnets:
        cidr = ipaddress.ip_network(subnet['cidr'])
        rows.append({'subnet_id': subnet['id'],
                     'subnet_name': subnet['name'],
                     'cidr': subnet['cidr'],
                     'ip_version': subnet['ip_version'],
                     'total_ips': _pool_size(subnet),
                     'used_ips': sum(1 for a in used
                                     if ipaddress.ip_address(a) in cidr)})
    return {'network_id': network['id'], 'network_name': network['name'],
            'project_id': network['project_id'],
            'tenant_id': network['project_id'],
            'total_ips': sum(r['total_ips'] for r in rows),
            'used_ips': sum(r['used_ips'] for r in rows),
            'subnet_ip_availability': rows}


def _admin(context):
    if not context.is_admin:
        raise errors.forbidden(
            '(rule:get_network_ip_availability) is disallowed by policy',
            'PolicyNotAuthorized')


def _subnets_by_network(context):
    by_network = {}
    for subnet in net_obj.get_all(context, 'subnet'):
        by_network.setdefault(subnet['network_id'], []).append(subnet)
    return by_network


def list_availabilities(req):
    context = util.context(req)
    _admin(context)
    subnets = _subnets_by_network(context)
    items = [_availability(context, n, subnets.get(n['id'], []))
             for n in net_obj.get_all(context, 'network')]
    # Neutron filters on ip_version through the subnets.
    versions = req.GET.getall('ip_version')
    items = [i for i in items if not versions or any(
        str(s['ip_version']) in versions
        for s in i['subnet_ip_availability'])]
    return util.json_response({'network_ip_availabilities':
                               common.filtered(_without(req, 'ip_version'),
                                               items)})


def _without(req, key):
    """A copy of ``req`` without the ``key`` filter (applied already)."""
    copy = req.copy()
    while key in copy.GET:
        del copy.GET[key]
    return copy


def show_availability(req):
    context = util.context(req)
    _admin(context)
    network_id = req.urlvars['network_id']
    network = common.get(context, 'network', network_id)
    subnets = _subnets_by_network(context).get(network_id, [])
    return util.json_response({'network_ip_availability': common.shown(
        req, _availability(context, network, subnets))})


def routes(prefix):
    base = prefix + '/v2.0/network-ip-availabilities'
    return {base: {'GET': list_availabilities},
            base + '/{network_id}': {'GET': show_availability}}
