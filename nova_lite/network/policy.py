"""The network service's policy: Neutron's rule names and defaults.

Neutron's defaults: members of a project write its resources, readers
only read them, admins do anything; the ``binding:*`` attributes of a
port (which host it is bound to and how) are the admin's alone, to set
and to see. The rules have Neutron's names (``create_network``,
``create_port:binding:host_id``), so a Neutron policy file's overrides
read the same here. Who *sees* what (a project's own resources, shared
and external networks) is the service's logic (:mod:`.networks`); these
rules say who may write, and which attributes of a port an admin alone
sees.
"""

from oslo_policy import policy as oslo_policy

from nova_lite.network import errors
from nova_lite.wsgi import policy as wsgi_policy

ADMIN = 'rule:context_is_admin'
MEMBER = '(%s) or (role:member and project_id:%%(project_id)s)' % ADMIN
# Neutron's QoS defaults: the project's managers write, its readers read
# (a rule's project is its policy's).
MANAGER = '(%s) or (role:manager and project_id:%%(project_id)s)' % ADMIN
READER = '(%s) or (role:reader and project_id:%%(project_id)s)' % ADMIN

BINDING = ('binding:host_id', 'binding:profile', 'binding:vif_type',
           'binding:vif_details')

_RESOURCES = (
    ('network', '/networks'), ('subnet', '/subnets'), ('port', '/ports'),
    ('security_group', '/security-groups'),
    ('security_group_rule', '/security-group-rules'),
    ('floatingip', '/floatingips'), ('subnetpool', '/subnetpools'),
    ('address_scope', '/address-scopes'), ('rbac_policy', '/rbac-policies'),
    ('trunk', '/trunks'))

_ADMIN_ATTRIBUTES = (
    ('create_network', ('shared', 'router:external', 'is_default',
                        'provider:network_type',
                        'provider:physical_network',
                        'provider:segmentation_id')),
    ('update_network', ('shared', 'router:external', 'is_default')),
    ('create_port', ('binding:host_id', 'binding:profile')),
    ('update_port', ('binding:host_id', 'binding:profile')),
    ('get_port', BINDING),
    ('create_subnetpool', ('shared', 'is_default')),
    ('update_subnetpool', ('is_default',)),
    ('create_address_scope', ('shared',)),
    ('update_address_scope', ('shared',)),
)

# Neutron's admin-only rules: (rule, method, path). The agents and their
# schedulers; the flavors extension, where everyone reads flavors and
# admins alone read service profiles.
_NET = '/network/v2.0'
_FLAVORS = _NET + '/flavors'
_PROFILES = _NET + '/service_profiles'
_BINDING = _FLAVORS + '/{id}/service_profiles'
_ADMIN_ONLY = (
    ('get_agent', 'GET', _NET + '/agents'),
    ('update_agent', 'PUT', _NET + '/agents/{id}'),
    ('delete_agent', 'DELETE', _NET + '/agents/{id}'),
    ('get_l3-routers', 'GET', _NET + '/agents/{id}/l3-routers'),
    ('create_l3-router', 'POST', _NET + '/agents/{id}/l3-routers'),
    ('delete_l3-router', 'DELETE',
     _NET + '/agents/{id}/l3-routers/{router_id}'),
    ('get_l3-agents', 'GET', _NET + '/routers/{id}/l3-agents'),
    ('get_dhcp-networks', 'GET', _NET + '/agents/{id}/dhcp-networks'),
    ('create_dhcp-network', 'POST', _NET + '/agents/{id}/dhcp-networks'),
    ('delete_dhcp-network', 'DELETE',
     _NET + '/agents/{id}/dhcp-networks/{network_id}'),
    ('get_dhcp-agents', 'GET', _NET + '/networks/{id}/dhcp-agents'),
    ('create_flavor', 'POST', _FLAVORS),
    ('update_flavor', 'PUT', _FLAVORS + '/{id}'),
    ('delete_flavor', 'DELETE', _FLAVORS + '/{id}'),
    ('get_service_profile', 'GET', _PROFILES + '/{id}'),
    ('create_service_profile', 'POST', _PROFILES),
    ('update_service_profile', 'PUT', _PROFILES + '/{id}'),
    ('delete_service_profile', 'DELETE', _PROFILES + '/{id}'),
    ('get_flavor_service_profile', 'GET', _BINDING + '/{profile_id}'),
    ('create_flavor_service_profile', 'POST', _BINDING),
    ('delete_flavor_service_profile', 'DELETE',
     _BINDING + '/{profile_id}'),
)


_QOS = _NET + '/qos'
# the QoS rule types (:mod:`.qos`) and those with alias routes
QOS_RULE_TYPES = ('bandwidth_limit', 'dscp_marking', 'minimum_bandwidth',
                  'packet_rate_limit', 'minimum_packet_rate')
QOS_ALIASED = ('bandwidth_limit', 'dscp_marking', 'minimum_bandwidth',
               'minimum_packet_rate')


def _qos_rules():
    """Neutron's rules of QoS policies, their rules and rule types."""
    policies = _QOS + '/policies'
    found = [
        ('create_policy', MANAGER, 'Create a QoS policy',
         [('POST', policies)]),
        ('update_policy', MANAGER, 'Update a QoS policy',
         [('PUT', policies + '/{id}')]),
        ('delete_policy', MANAGER, 'Delete a QoS policy',
         [('DELETE', policies + '/{id}')]),
        ('get_rule_type', 'role:reader', 'Get the QoS rule types',
         [('GET', _QOS + '/rule-types'),
          ('GET', _QOS + '/rule-types/{rule_type}')]),
    ]
    for kind in QOS_RULE_TYPES:
        base = '%s/{policy_id}/%s_rules' % (policies, kind)
        text = kind.replace('_', ' ')
        for action, check, operations in (
                ('get', READER, [('GET', base), ('GET', base + '/{rule_id}')]),
                ('create', MANAGER, [('POST', base)]),
                ('update', MANAGER, [('PUT', base + '/{rule_id}')]),
                ('delete', MANAGER, [('DELETE', base + '/{rule_id}')])):
            found.append(('%s_policy_%s_rule' % (action, kind), check,
                          '%s a QoS %s rule' % (action.capitalize(), text),
                          operations))
    for kind in QOS_ALIASED:
        path = '%s/alias_%s_rules/{rule_id}' % (_QOS, kind)
        text = kind.replace('_', ' ')
        for action, check, method in (('get', READER, 'GET'),
                                      ('update', MANAGER, 'PUT'),
                                      ('delete', MANAGER, 'DELETE')):
            found.append(('%s_alias_%s_rule' % (action, kind), check,
                          '%s a QoS %s rule through its alias'
                          % (action.capitalize(), text),
                          [(method, path)]))
    return [oslo_policy.DocumentedRuleDefault(
        name, check, text, [{'method': m, 'path': p} for m, p in ops])
        for name, check, text, ops in found]


def _operations(kind, path, action):
    base = '/network/v2.0' + path
    return {'create': [{'method': 'POST', 'path': base}],
            'get': [{'method': 'GET', 'path': base},
                    {'method': 'GET', 'path': base + '/{id}'}],
            'update': [{'method': 'PUT', 'path': base + '/{id}'}],
            'delete': [{'method': 'DELETE', 'path': base + '/{id}'}],
            }[action]


def list_rules():
    """Neutron's defaults for the resources the service serves."""
    rules = [oslo_policy.RuleDefault('context_is_admin', 'role:admin',
                                     'Admins (Neutron\'s base rule).')]
    for kind, path in _RESOURCES:
        for action in ('create', 'update', 'delete'):
            if (kind, action) == ('security_group_rule', 'update'):
                continue    # rules are not updated, as in Neutron
            rules.append(oslo_policy.DocumentedRuleDefault(
                '%s_%s' % (action, kind), MEMBER,
                '%s a %s (members of its project, or admins)'
                % (action.capitalize(), kind.replace('_', ' ')),
                _operations(kind, path, action)))
    for rule, attributes in _ADMIN_ATTRIBUTES:
        kind = rule.split('_', 1)[1]
        path = dict(_RESOURCES)[kind]
        for attribute in attributes:
            rules.append(oslo_policy.DocumentedRuleDefault(
                '%s:%s' % (rule, attribute), ADMIN,
                '%s a %s\'s %s (admins only)' % (
                    'See' if rule.startswith('get') else 'Set',
                    kind, attribute),
                _operations(kind, path, rule.split('_', 1)[0])))
    for rule, method, path in _ADMIN_ONLY:
        rules.append(oslo_policy.DocumentedRuleDefault(
            rule, ADMIN, '%s (admins only)' % rule.replace('_', ' ')
            .capitalize(), [{'method': method, 'path': path}]))
    return rules + _qos_rules()


_POLICY = wsgi_policy.Policy(list_rules, prefix='')


def _target(context, resource):
    project = (resource or {}).get('project_id') or \
        (resource or {}).get('tenant_id') or context.project_id
    return {'project_id': project, 'tenant_id': project,
            'user_id': context.user_id}


def check(context, rule, resource=None):
    """True when ``context`` may use ``rule`` on ``resource`` (a dict
    with its ``project_id``; the caller's project when none)."""
    return _POLICY.check(context, rule, _target(context, resource))


def authorize(context, action, kind, resource=None, values=()):
    """Neutron's 403 unless ``context`` may ``action`` (create, update,
    delete) the ``kind`` ``resource``, and set each admin-only attribute
    named in ``values``."""
    rule = '%s_%s' % (action, kind)
    if not check(context, rule, resource):
        raise _refused([rule])
    for name, attributes in _ADMIN_ATTRIBUTES:
        if name != rule:
            continue
        for attribute in attributes:
            if attribute in values and not check(
                    context, '%s:%s' % (rule, attribute), resource):
                raise _refused([rule, '%s:%s' % (rule, attribute)])


def authorize_owner(context, action, kind, resource):
    """:func:`authorize` for a kind with Neutron's rules here; for one
    without (a collection another module adds), its project's own."""
    rule = '%s_%s' % (action, kind)
    if rule in _POLICY.get_enforcer().registered_rules:
        authorize(context, action, kind, resource)
    elif not (context.is_admin or
              resource.get('project_id') == context.project_id):
        raise _refused([rule])


def hide(context, kind, resource):
    """``resource`` without the attributes ``context`` may not see
    (a port's ``binding:*`` for non-admins, as Neutron)."""
    if kind != 'port':
        return resource
    hidden = [a for a in BINDING
              if a in resource and not check(context, 'get_port:' + a,
                                             resource)]
    if not hidden:
        return resource
    return {k: v for k, v in resource.items() if k not in hidden}


def _refused(rules):
    return errors.forbidden(
        '(%s) is disallowed by policy'
        % ' and '.join('rule:' + r for r in rules), 'PolicyNotAuthorized')
