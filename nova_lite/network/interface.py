"""What the compute API asks of the network service, as Nova asks
Neutron: the ports of a server (made at create for the networks it
asked for, deleted with it), its addresses, its security groups, and
what its network proxies read and change. The rest of nova_lite reaches
the network service only through this module.

nova_lite makes and deletes a server's ports in the API process (Nova's
computes do it while building), with the same results for a user: a port
per requested network, ``device_id`` the server, ``device_owner``
``compute:<zone>``, the fixed IPs shown in ``addresses``.
"""

import re

from oslo_log import log as logging

from nova_lite import exception
from nova_lite.network import common
from nova_lite.network import errors
from nova_lite.network import networks
from nova_lite.network import objects as net_obj
from nova_lite.network import ports as port_api
from nova_lite.network import secgroups

LOG = logging.getLogger(__name__)


class NetworkRequestError(exception.Invalid):
    msg_fmt = '%(reason)s'


class NetworkAmbiguous(exception.Conflict):
    msg_fmt = ('Multiple possible networks found, use a Network ID to be '
               'more specific.')


class SecurityGroupNotFound(exception.NotFound):
    msg_fmt = 'Security group %(name)s not found.'


def available_networks(context):
    """The networks a server of the caller's project may be on when it
    names none: the project's own and the shared ones, as Nova asks
    Neutron (an admin's server too: another project's network is not
    the admin's), with subnets and not external."""
    return [n for n in networks.list_networks(context)
            if (n.get('shared') or n['project_id'] == context.project_id)
            and not n.get('router:external') and n['subnets']]


def resolve(context, requested):
    """The networks of a create's ``networks`` (None: omitted, before
    2.37), each {'network_id', 'port_id', 'fixed_ip', 'tag'}, checked as
    Nova checks them before it accepts the request (400/409)."""
    if requested in ('none', []):
        return []
    if requested is None or requested == 'auto':
        found = available_networks(context)
        if len(found) > 1:
            raise NetworkAmbiguous()
        return [{'network_id': n['id']} for n in found]
    result = []
    for item in requested:
        port_id = item.get('port')
        net_id = item.get('uuid')
        if port_id:
            try:
                port = port_api.get_port(context, port_id)
            except Exception:  # noqa: BLE001 - a NeutronError 404
                raise NetworkRequestError(
                    reason='Port id %s could not be found.' % port_id)
            if port['device_id']:
                raise exception.Conflict(
                    reason='Port %s is still in use.' % port_id)
            result.append({'port_id': port_id, 'tag': item.get('tag')})
            continue
        try:
            network = networks.get_network(context, net_id)
        except Exception:  # noqa: BLE001 - a NeutronError 404
            raise NetworkRequestError(
                reason='Network %s could not be found.' % net_id)
        if not network['subnets']:
            raise NetworkRequestError(
                reason='Network %s requires a subnet in order to boot '
                       'instances on.' % net_id)
        result.append({'network_id': net_id,
                       'fixed_ip': item.get('fixed_ip'),
                       'tag': item.get('tag')})
    return result


def check_security_groups(context, names):
    """400 unless each named group exists for the caller (Nova:
    'Unable to find security_group with name or id'). ``default`` is
    not looked up, as in Nova: the project's default group is made on
    its first use."""
    for name in names or []:
        if name != 'default' and find_group(context, name) is None:
            raise exception.InvalidRequest(
                reason='Unable to find security_group with name or id '
                       "'%s'" % name)


def find_group(context, name_or_id):
    groups = secgroups.list_groups(context)
    for group in groups:
        if group['id'] == name_or_id:
            return group
    mine = [g for g in groups if g['name'] == name_or_id and
            g['project_id'] == context.project_id]
    named = mine or [g for g in groups if g['name'] == name_or_id]
    return named[0] if named else None


def allocate(context, instance_uuid, project_id, zone, requests,
             group_names=None):
    """Make (or bind) the server's ports; returns them. On a failure the
    ports made so far are deleted again."""
    groups = None
    if group_names:
        groups = [find_group(context, n)['id'] for n in group_names]
    owner = 'compute:%s' % (zone or 'nova')
    made = []
    try:
        for request in requests:
            if request.get('port_id'):
                port = port_api.get_port(context, request['port_id'])
                port.update(device_id=instance_uuid, device_owner=owner,
                            status='ACTIVE', _preserve_on_delete=True)
                net_obj.update(context, 'port', common.touch(port))
                made.append(port)
                continue
            values = {'network_id': request['network_id'],
                      'device_id': instance_uuid, 'device_owner': owner,
                      'project_id': project_id}
            if request.get('fixed_ip'):
                values['fixed_ips'] = [
                    {'ip_address': request['fixed_ip']}]
            if groups is not None:
                values['security_groups'] = groups
            made.append(port_api.create_port(context.elevated(), values))
    except Exception:
        for port in made:
            if not port.get('_preserve_on_delete'):
                port_api.delete_port(context.elevated(), port['id'])
        raise
    return made


class PortNotFound(exception.NotFound):
    msg_fmt = '%(reason)s'


class PortInUse(exception.Conflict):
    msg_fmt = 'Port %(port_id)s is still in use.'


def _neutron_to_compute(exc, not_found):
    """A NeutronError of the network service as the compute API's error
    (Nova's mapping of Neutron's answers for os-interface)."""
    if exc.code == 404:
        return not_found(reason=exc.explanation)
    if exc.code == 409:
        return exception.Conflict(reason=exc.explanation)
    return NetworkRequestError(reason=exc.explanation)


def attach_port(context, instance, network_id=None, port_id=None,
                fixed_ip=None, tag=None):
    """A port for ``instance`` after boot (os-interface POST), as Nova's
    compute gets one from Neutron: the caller's port bound to it
    (``port_id``; 404 unknown, 409 bound elsewhere), else a new port on
    ``network_id`` (404 unknown; ``fixed_ip`` taken: 409), else on the
    one network the project may use (400 none or several). The port is
    the server's (``device_id``, ``device_owner`` ``compute:<zone>``,
    bound to its host, ``tag`` its device tag); returns it."""
    owner = 'compute:%s' % (instance.availability_zone or 'nova')
    binding = {'device_id': instance.uuid, 'device_owner': owner,
               'binding:host_id': instance.host or ''}
    if tag:
        binding['_tag'] = tag
    admin = context.elevated()
    if port_id:
        try:
            port = port_api.get_port(context, port_id)
        except errors.NeutronError:
            raise PortNotFound(reason='Port %s could not be found.'
                               % port_id)
        if port['device_id']:
            raise PortInUse(port_id=port_id)
        port.update(binding, status='ACTIVE', _preserve_on_delete=True)
        net_obj.update(admin, 'port', common.touch(port))
        LOG.info('Port %s bound to server %s', port_id, instance.uuid)
        return port
    if not network_id:
        found = available_networks(context)
        if not found:
            raise NetworkRequestError(
                reason='No specific network was requested and none are '
                       'available for project %s.' % context.project_id)
        if len(found) > 1:
            raise NetworkRequestError(reason=NetworkAmbiguous.msg_fmt)
        network_id = found[0]['id']
    try:
        networks.get_network(context, network_id)
        values = dict(binding, network_id=network_id,
                      project_id=instance.project_id)
        if fixed_ip:
            values['fixed_ips'] = [{'ip_address': fixed_ip}]
        tagged = values.pop('_tag', None)
        port = port_api.create_port(admin, values)
        if tagged:
            port['_tag'] = tagged
            port = net_obj.update(admin, 'port', port)
    except errors.NeutronError as exc:
        raise _neutron_to_compute(exc, exception.NotFound)
    LOG.info('Port %s made for server %s on network %s', port['id'],
             instance.uuid, network_id)
    return port


def bound_port(context, instance_uuid, port_id):
    """The port ``port_id`` if it is bound to the server; 404 otherwise
    (Nova: the port is not attached)."""
    for port in server_ports(context.elevated(), instance_uuid):
        if port['id'] == port_id:
            return port
    raise PortNotFound(reason='Port %s is not attached' % port_id)


def detach_port(context, port):
    """The end of a detach, as Nova's deallocation of one port: a port
    the network service made for the server is deleted, one the caller
    gave is unbound and kept."""
    admin = context.elevated()
    if port.pop('_preserve_on_delete', False):
        port.update({'device_id': '', 'device_owner': '',
                     'binding:host_id': '', 'status': 'DOWN'})
        net_obj.update(admin, 'port', common.touch(port))
        LOG.info('Port %s unbound from its server', port['id'])
    else:
        port_api.delete_port(admin, port['id'])


class Snapshot:
    """The ports, networks, floating IPs and groups one compute API
    request shows servers with, each read once and only when a server has
    ports. Ports are read by device through the index: those of
    ``device_ids`` (a list's page of servers) in one query on the first
    server asked for, else those of each server asked for."""

    def __init__(self, context, device_ids=None):
        self.context = context.elevated()
        self._device_ids = set(device_ids or ())
        self._ports = {}
        self._networks = None
        self._groups = None
        self._fips = None

    def ports_of(self, instance_uuid):
        """The ports bound to the server."""
        if instance_uuid not in self._ports:
            wanted = {instance_uuid}
            if instance_uuid in self._device_ids:
                wanted |= self._device_ids - set(self._ports)
            found = {device: [] for device in wanted}
            for port in net_obj.get_by_devices(self.context, 'port',
                                               sorted(wanted)):
                found[port['device_id']].append(port)
            self._ports.update(found)
        return self._ports[instance_uuid]

    def networks(self):
        if self._networks is None:
            self._networks = net_obj.get_all(self.context, 'network')
        return self._networks

    def groups(self):
        if self._groups is None:
            self._groups = {g['id']: g for g in net_obj.get_all(
                self.context, secgroups.SG)}
        return self._groups

    def floating_ips(self):
        """{port id: [floating IPs on it]}."""
        if self._fips is None:
            self._fips = {}
            for fip in net_obj.get_all(self.context, 'floatingip'):
                if fip.get('port_id'):
                    self._fips.setdefault(fip['port_id'], []).append(fip)
        return self._fips

    def addresses(self, instance_uuid):
        ports = self.ports_of(instance_uuid)
        if not ports:
            return {}
        return _addresses(ports, self.networks(), self.floating_ips())

    def group_names(self, instance_uuid):
        """Names of the groups on the server's ports (None: no ports)."""
        ports = self.ports_of(instance_uuid)
        if not ports:
            return None
        ids = []
        for port in ports:
            ids.extend(g for g in port['security_groups'] if g not in ids)
        groups = self.groups()
        return [groups[i]['name'] for i in ids if i in groups]


def server_ports(context, instance_uuid):
    """The ports bound to the server (read through the device index)."""
    return net_obj.get_by_devices(context, 'port', [instance_uuid])


def deallocate(context, instance_uuid):
    """Delete the ports made for a server; unbind the ones given."""
    admin = context.elevated()
    ports = server_ports(admin, instance_uuid)
    if not ports:
        return
    for port in ports:
        if not port.pop('_preserve_on_delete', False):
            port_api.delete_port(admin, port['id'])
        else:
            port.update({'device_id': '', 'device_owner': '',
                         'binding:host_id': '', 'status': 'DOWN'})
            net_obj.update(admin, 'port', common.touch(port))
    LOG.info('Ports of server %s released', instance_uuid)


def _addresses(ports, networks, fips):
    names = {n['id']: n['name'] for n in networks}
    result = {}
    for port in ports:
        entries = result.setdefault(names.get(port['network_id'],
                                              port['network_id']), [])
        for ip in port['fixed_ips']:
            entries.append({'version': 6 if ':' in ip['ip_address'] else 4,
                            'addr': ip['ip_address'],
                            'OS-EXT-IPS:type': 'fixed',
                            'OS-EXT-IPS-MAC:mac_addr': port['mac_address']})
        for fip in fips.get(port['id'], []):
            entries.append({'version': 4,
                            'addr': fip['floating_ip_address'],
                            'OS-EXT-IPS:type': 'floating',
                            'OS-EXT-IPS-MAC:mac_addr': port['mac_address']})
    return result


def servers_with_ip(context, pattern, version=4):
    """The uuids of the servers with a fixed IP of ``version`` matching
    the regular expression ``pattern`` from its start (Nova's ``ip`` and
    ``ip6`` list filters); ValueError for a bad expression."""
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ValueError(str(exc))
    found = set()
    for port in net_obj.get_all(context.elevated(), 'port'):
        if not port['device_id']:
            continue
        for ip in port['fixed_ips']:
            address = ip['ip_address']
            if (':' in address) == (version == 6) and regex.match(address):
                found.add(port['device_id'])
    return found


# -- what the compute API's network proxies (os-networks,
# os-security-groups, os-floating-ips) call, as Nova's proxies call
# Neutron's API ---------------------------------------------------------
NeutronError = errors.NeutronError
list_networks = networks.list_networks
get_network = networks.get_network
SG = secgroups.SG
list_groups = secgroups.list_groups
get_group = secgroups.get_group
create_group = secgroups.create_group
update_group = secgroups.update_group
delete_group = secgroups.delete_group
create_rule = secgroups.create_rule
delete_rule = secgroups.delete_rule
group_view = secgroups.view
list_floatingips = port_api.list_floatingips
get_floatingip = port_api.get_floatingip
create_floatingip = port_api.create_floatingip
update_floatingip = port_api.update_floatingip
delete_floatingip = port_api.delete_floatingip


def get_port(context, port_id):
    """A port, whoever owns it (NetworkResourceNotFound when gone)."""
    return net_obj.get(context, 'port', port_id)


def all_floatingips(context):
    """Every floating IP, whoever owns it."""
    return net_obj.get_all(context, 'floatingip')


def all_security_groups(context):
    """Every security group, whoever owns it."""
    return net_obj.get_all(context, secgroups.SG)


def set_port_security_groups(context, port, group_ids):
    """Give ``port`` exactly the security groups ``group_ids``."""
    port['security_groups'] = list(group_ids)
    return net_obj.update(context, 'port', port)
