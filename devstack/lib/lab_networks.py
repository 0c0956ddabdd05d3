"""Make devstack's default networks in a stacked lab.

Run by devstack/lib/networks.sh with the lab virtualenv's Python once the
services are up and clouds.yaml is written, as devstack's
lib/neutron_plugins/services/l3 does: an admin makes the external network
``public`` (subnets ``public-subnet`` and ``ipv6-public-subnet``); the
member cloud (the demo project) makes ``private`` (``private-subnet``,
``ipv6-private-subnet``, SLAAC) and ``router1`` with its gateway on
``public`` and an interface on each private subnet.

Idempotent: what exists (by name) is kept, so a re-run of stack.sh (a lab
growing) changes nothing. The API is called directly through
keystoneauth sessions of the clouds in clouds.yaml (whatever their auth
type), one request per missing piece.

usage: lab_networks.py NETWORK_URL IP_VERSION FIXED_RANGE FLOATING_RANGE
       PUBLIC_GATEWAY
"""

import random
import sys

from openstack import config as os_config

MEMBER, ADMIN = 'nova-lite', 'nova-lite-admin'
IPV6_PUBLIC = ('2001:db8::/64', '2001:db8::2')


class Client:
    """The network API as one cloud of clouds.yaml."""

    def __init__(self, cloud, base):
        self.session = os_config.OpenStackConfig().get_one(
            cloud=cloud).get_session()
        self.base = base.rstrip('/') + '/v2.0'

    def call(self, method, path, body=None):
        response = self.session.request(
            self.base + path, method, json=body, raise_exc=False,
            headers={'Accept': 'application/json'})
        if response.status_code >= 400:
            raise SystemExit('[nova-lite] %s %s: %s %s' % (
                method, path, response.status_code, response.text))
        return response.json() if response.content else None

    def find(self, collection, name, **query):
        query = ''.join('&%s=%s' % item for item in query.items())
        found = self.call('GET', '/%s?name=%s%s' % (collection, name, query))
        return found[collection][0] if found[collection] else None

    def ensure(self, collection, key, body, **query):
        """The resource named ``body['name']`` (matching ``query``), made
        when missing."""
        found = self.find(collection, body['name'], **query)
        if found:
            return found
        print('[nova-lite] network: %s %s' % (key, body['name']))
        return self.call('POST', '/' + collection, {key: body})[key]


def _wanted(ip_version):
    return ('4' in ip_version.split('+'), '6' in ip_version.split('+'))


def public(admin, ip_version, floating_range, gateway):
    v4, v6 = _wanted(ip_version)
    net = admin.ensure('networks', 'network', {
        'name': 'public', 'router:external': True,
        'provider:network_type': 'flat',
        'provider:physical_network': 'public'}, **{'router:external': True})
    if v4:
        admin.ensure('subnets', 'subnet', {
            'name': 'public-subnet', 'network_id': net['id'],
            'ip_version': 4, 'cidr': floating_range,
            'gateway_ip': gateway, 'enable_dhcp': False})
    if v6:
        admin.ensure('subnets', 'subnet', {
            'name': 'ipv6-public-subnet', 'network_id': net['id'],
            'ip_version': 6, 'cidr': IPV6_PUBLIC[0],
            'gateway_ip': IPV6_PUBLIC[1], 'enable_dhcp': False})
    return net


def private(member, ip_version, fixed_range):
    v4, v6 = _wanted(ip_version)
    net = member.ensure('networks', 'network', {'name': 'private'})
    subnets = []
    if v4:
        subnets.append(member.ensure('subnets', 'subnet', {
            'name': 'private-subnet', 'network_id': net['id'],
            'ip_version': 4, 'cidr': fixed_range}))
    if v6:
        # devstack's fd<global id>::/64, the id random once.
        cidr = 'fd%02x:%04x:%04x::/64' % (random.getrandbits(8),
                                          random.getrandbits(16),
                                          random.getrandbits(16))
        subnets.append(member.ensure('subnets', 'subnet', {
            'name': 'ipv6-private-subnet', 'network_id': net['id'],
            'ip_version': 6, 'cidr': cidr, 'ipv6_ra_mode': 'slaac',
            'ipv6_address_mode': 'slaac'}))
    return net, subnets


def router(member, public_net, subnets):
    found = member.ensure('routers', 'router', {
        'name': 'router1',
        'external_gateway_info': {'network_id': public_net['id']}})
    if not found.get('external_gateway_info'):
        member.call('PUT', '/routers/%s' % found['id'], {'router': {
            'external_gateway_info': {'network_id': public_net['id']}}})
    ports = member.call('GET', '/ports?device_id=%s' % found['id'])['ports']
    attached = {ip['subnet_id'] for p in ports for ip in p['fixed_ips']}
    for subnet in subnets:
        if subnet['id'] not in attached:
            member.call('PUT', '/routers/%s/add_router_interface'
                        % found['id'], {'subnet_id': subnet['id']})
            print('[nova-lite] network: router1 interface on %s'
                  % subnet['name'])
    return found


def main(argv):
    base, ip_version, fixed_range, floating_range, gateway = argv[:5]
    admin, member = Client(ADMIN, base), Client(MEMBER, base)
    public_net = public(admin, ip_version, floating_range, gateway)
    _, subnets = private(member, ip_version, fixed_range)
    router(member, public_net, subnets)
    print('[nova-lite] network: public, private and router1 are there')


if __name__ == '__main__':
    main(sys.argv[1:])
