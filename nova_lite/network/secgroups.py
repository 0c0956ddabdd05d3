"""Security groups and their rules, as Neutron keeps them.

Each project has a ``default`` group, made the first time the project
uses the service (a listing, a port, a group), with Neutron's default
rules: all egress (IPv4 and IPv6) and ingress from members of the group
itself. Only an admin deletes a project's default group; a group used by
a port cannot be deleted (409). Rules are rows of their own, shown inside
their group as ``security_group_rules``.
"""

import ipaddress
import uuid as uuid_mod

from oslo_log import log as logging

from nova_lite import exception
from nova_lite.network import common
from nova_lite.network import errors
from nova_lite.network import objects as net_obj
from nova_lite.network import policy
from nova_lite.network import rbac

LOG = logging.getLogger(__name__)

SG = 'security_group'
RULE = 'security_group_rule'
# The default group's id is derived from its project, so two first uses
# at once make one group.
_DEFAULT_NS = uuid_mod.UUID('6f7f5b3a-4c2e-4d7a-9b0e-1c5d3e2a9f10')
PROTOCOLS = {'tcp': 6, 'udp': 17, 'icmp': 1, 'icmpv6': 58, 'ipv6-icmp': 58,
             'sctp': 132, 'ah': 51, 'esp': 50, 'gre': 47, 'igmp': 2,
             'ipip': 4, 'udplite': 136, 'vrrp': 112, 'dccp': 33,
             'ipv6-encap': 41, 'ipv6-frag': 44, 'ipv6-nonxt': 59,
             'ipv6-opts': 60, 'ipv6-route': 43, 'ospf': 89, 'pgm': 113,
             'rsvp': 46, 'icmp6': 58}
RULE_KEYS = ('security_group_id', 'direction', 'ethertype', 'protocol',
             'port_range_min', 'port_range_max', 'remote_ip_prefix',
             'remote_group_id', 'remote_address_group_id', 'description',
             'project_id', 'tenant_id')


def default_id(project_id):
    return str(uuid_mod.uuid5(_DEFAULT_NS, project_id))


def _rule(context, group_id, project_id, direction, ethertype, **values):
    rule = {'security_group_id': group_id, 'direction': direction,
            'ethertype': ethertype, 'protocol': None,
            'port_range_min': None, 'port_range_max': None,
            'remote_ip_prefix': None, 'remote_group_id': None,
            'remote_address_group_id': None, 'normalized_cidr': None,
            'belongs_to_default_sg': False}
    rule.update(values)
    return common.standard(context, rule, project_id)


def ensure_default(context, project_id):
    """The project's default group, made now if it has none."""
    if not project_id:
        return None
    group_id = default_id(project_id)
    try:
        return net_obj.get(context, SG, group_id)
    except exception.NetworkResourceNotFound:
        pass
    group = common.standard(context, {
        'id': group_id, 'name': 'default',
        'description': 'Default security group', 'stateful': True,
        'shared': False}, project_id)
    try:
        net_obj.create(context, SG, group)
    except exception.NetworkResourceExists:
        return net_obj.get(context, SG, group_id)
    for ethertype in ('IPv4', 'IPv6'):
        net_obj.create(context, RULE, _rule(
            context, group_id, project_id, 'egress', ethertype,
            belongs_to_default_sg=True))
        net_obj.create(context, RULE, _rule(
            context, group_id, project_id, 'ingress', ethertype,
            remote_group_id=group_id, belongs_to_default_sg=True))
    LOG.info('Default security group %s made for project %s', group_id,
             project_id)
    return group


def view(context, group, rules=None):
    if rules is None:
        rules = net_obj.get_all(context, RULE)
    body = dict(group)
    body['security_group_rules'] = [r for r in rules
                                    if r['security_group_id'] == group['id']]
    return body


def visible(context, group):
    """The caller's project's groups (all for an admin) and those an
    RBAC policy shares with it."""
    return common.owns(context, group) or rbac.granted(
        rbac.grants(context, group['id']).get(group['id'], set()),
        rbac.SHARED, context.project_id)


def _shared(context, group, grants):
    group['shared'] = rbac.granted(grants.get(group['id'], set()),
                                   rbac.SHARED, context.project_id)
    return group


def list_groups(context, project_filter=None):
    """The groups the caller sees (its project's and those shared with
    it, or all for an admin), making the default group of the project
    asked about first."""
    ensure_default(context, project_filter or context.project_id)
    grants = rbac.grants(context)
    groups = [_shared(context, g, grants)
              for g in net_obj.get_all(context, SG)]
    rules = net_obj.get_all(context, RULE)
    return [view(context, g, rules) for g in groups
            if common.owns(context, g) or g['shared']]


def get_group(context, group_id):
    group = common.get(context, SG, group_id, visible)
    return view(context, _shared(context, group, rbac.grants(
        context, group_id)))


def create_group(context, values):
    common.check_keys(values, ('name', 'description', 'project_id',
                               'tenant_id', 'stateful'), SG)
    common.check_string(values, 'name')
    common.check_string(values, 'description')
    common.check_project(context, values)
    policy.authorize(context, 'create', 'security_group', values)
    if values.get('name') == 'default':
        raise errors.conflict(
            'SecurityGroupDefaultAlreadyExists',
            'Default security group already exists.')
    group = common.standard(context, {
        'name': values.get('name', ''),
        'description': values.get('description', ''),
        'stateful': values.get('stateful', True), 'shared': False},
        values.get('project_id') or values.get('tenant_id'))
    ensure_default(context, group['project_id'])
    net_obj.create(context, SG, group)
    for ethertype in ('IPv4', 'IPv6'):
        net_obj.create(context, RULE, _rule(
            context, group['id'], group['project_id'], 'egress', ethertype))
    LOG.info('Security group %s created', group['id'])
    return view(context, group)


def update_group(context, group_id, values):
    group = common.get(context, SG, group_id)
    policy.authorize(context, 'update', 'security_group', group)
    common.check_keys(values, ('name', 'description', 'stateful'), SG)
    common.check_string(values, 'name')
    common.check_string(values, 'description')
    if group['name'] == 'default' and values.get('name', 'default') != \
            'default':
        raise errors.conflict('SecurityGroupCannotUpdateDefault',
                              'Updating default security group not '
                              'allowed.')
    group.update(values)
    net_obj.update(context, SG, common.touch(group))
    return view(context, group)


def delete_group(context, group_id):
    group = common.get(context, SG, group_id)
    policy.authorize(context, 'delete', 'security_group', group)
    if group['name'] == 'default' and not context.is_admin:
        raise errors.conflict('SecurityGroupCannotRemoveDefault',
                              'Insufficient rights for removing default '
                              'security group.')
    in_use = [p for p in net_obj.get_all(context, 'port')
              if group_id in p.get('security_groups', [])]
    if in_use:
        raise errors.conflict(
            'SecurityGroupInUse',
            'Security Group %s in use.' % group_id)
    for rule in net_obj.get_all(context, RULE):
        if rule['security_group_id'] == group_id:
            _destroy(context, RULE, rule['id'])
    _destroy(context, SG, group_id)
    rbac.purge(context, group_id)
    LOG.info('Security group %s deleted', group_id)


def _destroy(context, kind, uuid):
    try:
        net_obj.destroy(context, kind, uuid)
    except exception.NetworkResourceNotFound:
        raise errors.not_found(kind, uuid)


# -- rules -------------------------------------------------------------------

def _protocol(value):
    if value is None or value == 'any':
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).lower()
    if text in PROTOCOLS:
        return text
    if text.isdigit() and 0 <= int(text) <= 255:
        return text
    raise errors.bad_request(
        'Security group rule protocol %s not supported. Only protocol '
        'values %s and integer representations [0 to 255] are supported.'
        % (value, sorted(PROTOCOLS)), 'SecurityGroupRuleInvalidProtocol')


def _port(value, name):
    if value is None:
        return None
    try:
        port = int(value)
    except (TypeError, ValueError):
        port = -1
    if isinstance(value, bool) or not 0 <= port <= 65535:
        raise errors.bad_request(
            'Invalid value for port %s.' % value,
            'SecurityGroupInvalidPortValue')
    return port


def check_rule(values):
    """Neutron's rule checks; returns the normalized rule fields."""
    direction = values.get('direction')
    if direction not in ('ingress', 'egress'):
        raise errors.bad_request(
            "Invalid input for direction. Reason: %s is not in "
            "['ingress', 'egress']." % direction)
    ethertype = values.get('ethertype', 'IPv4')
    if ethertype not in ('IPv4', 'IPv6'):
        raise errors.bad_request(
            "Invalid input for ethertype. Reason: %s is not in "
            "['IPv4', 'IPv6']." % ethertype)
    protocol = _protocol(values.get('protocol'))
    low = _port(values.get('port_range_min'), 'min')
    high = _port(values.get('port_range_max'), 'max')
    if protocol in ('tcp', 'udp', 'sctp', '6', '17', '132') and \
            low is not None and high is not None and low > high:
        raise errors.bad_request(
            'For TCP/UDP protocols, port_range_min must be <= '
            'port_range_max', 'SecurityGroupInvalidPortRange')
    if protocol in ('icmp', 'icmpv6', 'ipv6-icmp', '1', '58') and \
            low is not None and low > 255:
        raise errors.bad_request(
            'Invalid value for ICMP type %s.' % low,
            'SecurityGroupInvalidIcmpValue')
    prefix = values.get('remote_ip_prefix')
    if prefix is not None:
        try:
            net = ipaddress.ip_network(prefix, strict=False)
        except ValueError:
            raise errors.bad_request(
                "Invalid input for remote_ip_prefix. Reason: '%s' is not "
                "a valid IP subnet." % prefix)
        if (net.version == 4) != (ethertype == 'IPv4'):
            raise errors.bad_request(
                'Conflicting value ethertype %s for CIDR %s' % (
                    ethertype, prefix), 'SecurityGroupRuleParameterConflict')
        prefix = str(net) if str(net) == prefix else prefix
    if prefix is not None and values.get('remote_group_id'):
        raise errors.bad_request(
            'Only remote_ip_prefix or remote_group_id may be provided.',
            'SecurityGroupRemoteGroupAndRemoteIpPrefix')
    return {'direction': direction, 'ethertype': ethertype,
            'protocol': protocol, 'port_range_min': low,
            'port_range_max': high, 'remote_ip_prefix': prefix,
            'normalized_cidr': str(ipaddress.ip_network(
                prefix, strict=False)) if prefix else None,
            'remote_group_id': values.get('remote_group_id'),
            'description': values.get('description', '')}


def _same(a, b):
    keys = ('direction', 'ethertype', 'protocol', 'port_range_min',
            'port_range_max', 'normalized_cidr', 'remote_group_id')
    return all(a.get(k) == b.get(k) for k in keys)


def create_rule(context, values):
    common.check_keys(values, RULE_KEYS, RULE)
    group_id = values.get('security_group_id')
    if not group_id:
        raise errors.bad_request(
            "Failed to parse request. Required attribute "
            "'security_group_id' not specified")
    group = common.get(context, SG, group_id)
    policy.authorize(context, 'create', 'security_group_rule', group)
    fields = check_rule(values)
    if fields['remote_group_id']:
        common.get(context, SG, fields['remote_group_id'])
    for rule in net_obj.get_all(context, RULE):
        if rule['security_group_id'] == group_id and _same(rule, fields):
            raise errors.conflict(
                'SecurityGroupRuleExists',
                'Security group rule already exists. Rule id is %s.'
                % rule['id'])
    rule = _rule(context, group_id, group['project_id'],
                 fields.pop('direction'), fields.pop('ethertype'),
                 **fields)
    net_obj.create(context, RULE, rule)
    LOG.info('Security group rule %s created in %s', rule['id'], group_id)
    return rule


def get_rule(context, rule_id):
    return common.get(context, RULE, rule_id)


def list_rules(context):
    project = None if context.is_admin else context.project_id
    ensure_default(context, context.project_id)
    return net_obj.get_all(context, RULE, project)


def delete_rule(context, rule_id):
    policy.authorize(context, 'delete', 'security_group_rule',
                     common.get(context, RULE, rule_id))
    _destroy(context, RULE, rule_id)
    LOG.info('Security group rule %s deleted', rule_id)
