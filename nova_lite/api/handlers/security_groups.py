"""Nova's security group proxies of the network service.

``os-security-groups`` and ``os-security-group-rules`` (up to 2.35, 404
after), ``/servers/{id}/os-security-groups`` and the ``addSecurityGroup``
/ ``removeSecurityGroup`` actions, answered in Nova's shapes from the
network service's groups (:mod:`nova_lite.network.secgroups`), with
Nova's translation of its errors: a group in use or the default group
is a 400, a missing one a 404. Only ingress rules are shown, as Nova.
"""

import ipaddress

from oslo_utils import uuidutils
import webob.exc

from nova_lite.api.handlers import servers
from nova_lite.api import microversion
from nova_lite.api import policy
from nova_lite.api import util
from nova_lite.api import validation
from nova_lite.network import interface as net_compute

MAX_PROXY_VERSION = '2.35'
_TCP_UDP = ('tcp', 'udp')


def _rule_view(rule, groups):
    protocol = rule['protocol']
    low, high = rule['port_range_min'], rule['port_range_max']
    if protocol and low is None and high is None:
        low, high = (1, 65535) if protocol in _TCP_UDP else (-1, -1)
    item = {'id': rule['id'], 'parent_group_id': rule['security_group_id'],
            'ip_protocol': protocol, 'from_port': low, 'to_port': high,
            'group': {}, 'ip_range': {}}
    if rule['remote_group_id']:
        source = groups.get(rule['remote_group_id'])
        if source is None:
            return None
        item['group'] = {'name': source['name'],
                         'tenant_id': source['project_id']}
    else:
        item['ip_range'] = {'cidr': rule['remote_ip_prefix'] or
                            ('0.0.0.0/0' if rule['ethertype'] == 'IPv4'
                             else '::/0')}
    return item


def _group_view(group, groups):
    rules = [_rule_view(r, groups) for r in group['security_group_rules']
             if r['direction'] == 'ingress']
    return {'id': group['id'], 'name': group['name'],
            'description': group['description'],
            'tenant_id': group['project_id'],
            'rules': [r for r in rules if r is not None]}


def _groups_by_id(context):
    return {g['id']: g for g in net_compute.all_security_groups(
        context.elevated())}


def _translate(func, *args):
    """Run a network service call, answering its errors as Nova does."""
    try:
        return func(*args)
    except net_compute.NeutronError as exc:
        message = str(exc.detail)
        if exc.code == 404:
            raise webob.exc.HTTPNotFound(message)
        raise webob.exc.HTTPBadRequest(message)


def _ctx(req, rule):
    context = util.context(req)
    policy.authorize(context, rule)
    return context


def _check_id(value, what='Security group'):
    if not uuidutils.is_uuid_like(value):
        raise webob.exc.HTTPBadRequest('%s id should be uuid' % what)


GROUP_SCHEMA = {
    'type': 'object',
    'properties': {'security_group': {
        'type': 'object',
        'properties': {'name': {'type': 'string'},
                       'description': {'type': 'string'}},
        'required': ['name', 'description']}},
    'required': ['security_group']}


@microversion.require(max_version=MAX_PROXY_VERSION)
def list_groups(req):
    """GET /os-security-groups."""
    context = _ctx(req, 'os-security-groups:get')
    groups = net_compute.list_groups(context)
    if not (context.is_admin and util.query_bool(req, 'all_tenants',
                                                  False)):
        groups = [g for g in groups
                  if g['project_id'] == context.project_id]
    by_id = _groups_by_id(context)
    items = [_group_view(g, by_id) for g in groups]
    items = util.paginate(items, req, lambda g: g['id'], 1000)
    return util.json_response({'security_groups': items})


@microversion.require(max_version=MAX_PROXY_VERSION)
def show_group(req):
    context = _ctx(req, 'os-security-groups:show')
    group_id = req.urlvars['group_id']
    _check_id(group_id)
    group = _translate(net_compute.get_group, context, group_id)
    return util.json_response({'security_group': _group_view(
        group, _groups_by_id(context))})


@microversion.require(max_version=MAX_PROXY_VERSION)
def create_group(req):
    context = _ctx(req, 'os-security-groups:create')
    values = validation.body(req, GROUP_SCHEMA)['security_group']
    group = _translate(net_compute.create_group, context, {
        'name': values['name'], 'description': values['description']})
    return util.json_response({'security_group': _group_view(
        group, _groups_by_id(context))})


@microversion.require(max_version=MAX_PROXY_VERSION)
def update_group(req):
    context = _ctx(req, 'os-security-groups:update')
    group_id = req.urlvars['group_id']
    _check_id(group_id)
    values = validation.body(req, GROUP_SCHEMA)['security_group']
    group = _translate(net_compute.update_group, context, group_id, {
        'name': values['name'], 'description': values['description']})
    return util.json_response({'security_group': _group_view(
        group, _groups_by_id(context))})


@microversion.require(max_version=MAX_PROXY_VERSION)
def delete_group(req):
    context = _ctx(req, 'os-security-groups:delete')
    group_id = req.urlvars['group_id']
    _check_id(group_id)
    group = _translate(net_compute.get_group, context, group_id)
    if group['name'] == 'default':
        raise webob.exc.HTTPBadRequest(
            'Removing default security group not allowed.')
    _translate(net_compute.delete_group, context, group_id)
    return util.no_content(202)


# -- rules -------------------------------------------------------------------

RULE_SCHEMA = {
    'type': 'object',
    'properties': {'security_group_rule': {
        'type': 'object',
        'properties': {
            'group_id': {'type': ['string', 'null']},
            'parent_group_id': {'type': 'string'},
            'to_port': {'type': ['integer', 'string']},
            'from_port': {'type': ['integer', 'string']},
            'ip_protocol': {'type': ['string', 'null']},
            'cidr': {'type': ['string', 'null']}},
        'required': ['parent_group_id']}},
    'required': ['security_group_rule']}


def _port_value(value, name):
    try:
        return int(value)
    except (TypeError, ValueError):
        raise webob.exc.HTTPBadRequest(
            'Invalid port range %s:%s. %s must be an integer.' % (
                value, value, name))


def _rule_values(values):
    """Nova's checks of a rule, as the network service's fields."""
    protocol = (values.get('ip_protocol') or '').lower() or None
    if protocol not in (None, 'tcp', 'udp', 'icmp'):
        raise webob.exc.HTTPBadRequest(
            'Invalid IP protocol %s.' % values.get('ip_protocol'))
    low = values.get('from_port')
    high = values.get('to_port')
    if protocol is not None and (low is None or high is None):
        raise webob.exc.HTTPBadRequest(
            'Invalid port range: from_port and to_port are required.')
    if low is not None:
        low, high = _port_value(low, 'from_port'), \
            _port_value(high, 'to_port')
        if protocol in _TCP_UDP:
            if not (1 <= low <= 65535 and 1 <= high <= 65535) or \
                    low > high:
                raise webob.exc.HTTPBadRequest(
                    'Invalid port range %s:%s. Valid TCP ports should be '
                    'between 1-65535' % (low, high))
        elif protocol == 'icmp':
            if not (-1 <= low <= 255 and -1 <= high <= 255):
                raise webob.exc.HTTPBadRequest(
                    'Invalid port range %s:%s. For ICMP, the type:code '
                    'must be valid' % (low, high))
            low = None if low == -1 else low
            high = None if high == -1 else high
    cidr = values.get('cidr')
    fields = {'direction': 'ingress', 'protocol': protocol,
              'port_range_min': low, 'port_range_max': high,
              'ethertype': 'IPv4'}
    if values.get('group_id'):
        _check_id(values['group_id'])
        fields['remote_group_id'] = values['group_id']
    elif cidr:
        try:
            net = ipaddress.ip_network(cidr, strict=False)
        except ValueError:
            raise webob.exc.HTTPBadRequest('Invalid cidr %s.' % cidr)
        fields['remote_ip_prefix'] = cidr
        fields['ethertype'] = 'IPv%d' % net.version
    else:
        fields['remote_ip_prefix'] = '0.0.0.0/0'
    return fields


@microversion.require(max_version=MAX_PROXY_VERSION)
def create_rule(req):
    context = _ctx(req, 'os-security-group-rules:create')
    values = validation.body(req, RULE_SCHEMA)['security_group_rule']
    parent = values['parent_group_id']
    _check_id(parent)
    _translate(net_compute.get_group, context, parent)
    fields = _rule_values(values)
    if fields.get('remote_group_id'):
        _translate(net_compute.get_group, context, fields['remote_group_id'])
    fields['security_group_id'] = parent
    rule = _translate(net_compute.create_rule, context, fields)
    return util.json_response({'security_group_rule': _rule_view(
        rule, _groups_by_id(context))})


@microversion.require(max_version=MAX_PROXY_VERSION)
def delete_rule(req):
    context = _ctx(req, 'os-security-group-rules:delete')
    rule_id = req.urlvars['rule_id']
    _check_id(rule_id, 'Security group rule')
    _translate(net_compute.delete_rule, context, rule_id)
    return util.no_content(202)


# -- the groups of a server ---------------------------------------------------

def server_groups(req):
    """GET /servers/{id}/os-security-groups."""
    server = servers.get_server(req, req.urlvars['server_id'],
                                'os-security-groups:list')
    context = util.context(req)
    snapshot = net_compute.Snapshot(context)
    groups = snapshot.groups()
    ids = []
    for port in snapshot.ports_of(server.uuid):
        ids.extend(g for g in port['security_groups'] if g not in ids)
    items = [_group_view(net_compute.group_view(context, groups[i]), groups)
             for i in ids if i in groups]
    return util.json_response({'security_groups': items})


def add_group(req, api, context, server, body):
    """addSecurityGroup: the group on every port of the server."""
    _change_ports(context, server, body['addSecurityGroup']['name'], True)


def remove_group(req, api, context, server, body):
    _change_ports(context, server, body['removeSecurityGroup']['name'],
                  False)


def _change_ports(context, server, name, add):
    group = net_compute.find_group(context, name)
    if group is None:
        raise webob.exc.HTTPNotFound('Security group %s not found.' % name)
    admin = context.elevated()
    ports = net_compute.server_ports(admin, server.uuid)
    if not ports:
        raise webob.exc.HTTPNotFound(
            'instance_id %s could not be found as device id on any ports'
            % server.uuid)
    if not add and not any(group['id'] in p['security_groups']
                           for p in ports):
        raise webob.exc.HTTPBadRequest(
            'Security group %s not associated with the instance %s'
            % (name, server.uuid))
    for port in ports:
        groups = [g for g in port['security_groups'] if g != group['id']]
        if add:
            groups.append(group['id'])
        if groups != port['security_groups']:
            net_compute.set_port_security_groups(admin, port, groups)


ACTION_SCHEMAS = {
    name: {'type': 'object', 'properties': {name: {
        'type': 'object', 'properties': {'name': {
            'type': 'string', 'minLength': 1, 'maxLength': 255}},
        'required': ['name']}}, 'required': [name]}
    for name in ('addSecurityGroup', 'removeSecurityGroup')}

ACTIONS = {
    'addSecurityGroup': ('os-security-groups:add', add_group),
    'removeSecurityGroup': ('os-security-groups:remove', remove_group),
}
