"""Neutron's QoS: policies, their rules, the rule types, and the policy a
network, port, floating IP or router gateway carries.

A QoS policy (``/v2.0/qos/policies``) belongs to a project and holds
rules, at most one of each type and direction (409
``QoSRulesConflict``): ``bandwidth_limit`` (``max_kbps``,
``max_burst_kbps``, ``direction``), ``dscp_marking`` (``dscp_mark``, one
of the valid DSCP marks), ``minimum_bandwidth`` (``min_kbps``,
``direction``), ``packet_rate_limit`` (``max_kpps``, ``max_burst_kpps``,
``direction``) and ``minimum_packet_rate`` (``min_kpps``, ``direction``
``ingress``, ``egress`` or ``any``). A minimum above the maximum of the
same direction, or a directionless minimum packet rate beside a
directional one, is Neutron's 409 ``QoSRuleParameterConflict``. Each
type has its sub-resource under the policy
(``/qos/policies/{id}/bandwidth_limit_rules``, ...) and, but the packet
rate limit, an alias reached by the rule's id alone
(``/qos/alias_bandwidth_limit_rules/{id}``). The rule types are those of
the one QoS driver the lab's ML2/Open vSwitch deployment loads
(``openvswitch``, every type); admins alone read a type's details.

``shared`` shares a policy with every project (an RBAC policy of object
type ``qos_policy``, :mod:`.rbac`); ``is_default`` marks the one policy a
project's new networks get when they name none (409
``QoSPolicyDefaultAlreadyExists`` for a second). A network, port,
floating IP or router gateway names a policy the caller may see
(``qos_policy_id``: 404 ``QosPolicyNotFound`` otherwise; a port also
shows its network's, ``qos_network_policy_id``), and a policy something
names cannot be deleted (409 ``QosPolicyInUse``). As in
Neutron, admins and the project's managers write policies and rules;
the project's readers read them. Nothing is shaped: the lab moves no
packets.
"""

from oslo_log import log as logging
from oslo_utils import uuidutils

from nova_lite import exception
from nova_lite.network import common
from nova_lite.network import errors
from nova_lite.network import objects as net_obj
from nova_lite.network import policy
from nova_lite.network import rbac
from nova_lite.wsgi import util

LOG = logging.getLogger(__name__)

KIND = 'qos_policy'
MEMBER = 'policy'            # the policy's body key and rule name
COLLECTION = 'qos/policies'
POLICY_KEYS = ('name', 'description', 'shared', 'is_default', 'project_id',
               'tenant_id')
UPDATE_KEYS = ('name', 'description', 'shared', 'is_default')

INT_MAX = 2147483647
DIRECTIONS = ('ingress', 'egress')
ANY = 'any'
DSCP_MARKS = (0, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36,
              38, 40, 44, 46, 48, 56)
_REQUIRED = object()
_RANGE = 'range'
# rule type -> {parameter: (RANGE or the valid values, default)}; a
# rule duplicates another of its type when their directions match.
RULE_TYPES = {
    'bandwidth_limit': {'max_kbps': (_RANGE, _REQUIRED),
                        'max_burst_kbps': (_RANGE, 0),
                        'direction': (DIRECTIONS, 'egress')},
    'dscp_marking': {'dscp_mark': (DSCP_MARKS, _REQUIRED)},
    'minimum_bandwidth': {'min_kbps': (_RANGE, _REQUIRED),
                          'direction': (DIRECTIONS, 'egress')},
    'packet_rate_limit': {'max_kpps': (_RANGE, _REQUIRED),
                          'max_burst_kpps': (_RANGE, 0),
                          'direction': (DIRECTIONS, 'egress')},
    'minimum_packet_rate': {'min_kpps': (_RANGE, _REQUIRED),
                            'direction': ((ANY,) + DIRECTIONS, 'egress')},
}


def parameters(rule_type):
    """{parameter: (its valid values, or None for a range of integers;
    whether a create must give it)} of ``rule_type``."""
    return {name: (None if valid == _RANGE else valid,
                   default is _REQUIRED)
            for name, (valid, default) in RULE_TYPES[rule_type].items()}


# the types with Neutron's alias routes (qos-rules-alias and
# qos-pps-minimum-rule-alias)
ALIASED = policy.QOS_ALIASED
DRIVER = 'openvswitch'

# What may carry a policy: (kind, what Neutron's 409 calls it).
_HOLDERS = (('port', 'port'), ('network', 'network'),
            ('floatingip', 'fip'), ('router', 'router'))


def _not_found(policy_id):
    return errors.NeutronError(
        404, 'QosPolicyNotFound',
        'QoS policy %s could not be found.' % policy_id)


def _rule_not_found(policy_id, rule_id):
    return errors.NeutronError(
        404, 'QosRuleNotFound',
        'QoS rule %s for policy %s could not be found.'
        % (rule_id, policy_id))


# -- policies -----------------------------------------------------------------

def _seen(context, item, grants):
    """``item`` as the caller sees it (``shared`` when shared with its
    project), or None when it may not see it."""
    shared = rbac.granted(grants.get(item['id'], set()), rbac.SHARED,
                          context.project_id)
    if not (common.owns(context, item) or shared):
        return None
    item['shared'] = shared
    return item


def _stored(context, policy_id):
    """The stored policy, 404 when missing or not the caller's to see."""
    try:
        item = net_obj.get(context, KIND, policy_id)
    except exception.NetworkResourceNotFound:
        raise _not_found(policy_id)
    if _seen(context, dict(item), rbac.grants(context, policy_id)) is None:
        raise _not_found(policy_id)
    return item


def visible(context, policy_id):
    try:
        _stored(context, policy_id)
    except errors.NeutronError:
        return False
    return True


def list_policies(context):
    grants = rbac.grants(context)
    return [p for p in (_seen(context, p, grants)
                        for p in net_obj.get_all(context, KIND))
            if p is not None]


def get_policy(context, policy_id):
    _stored(context, policy_id)
    return _seen(context, net_obj.get(context, KIND, policy_id),
                 rbac.grants(context, policy_id))


def stored_policy(context, policy_id):
    """The policy as stored (what a tag change writes back whole)."""
    return _stored(context, policy_id)


def _check_policy_values(values, allowed):
    common.check_keys(values, allowed, MEMBER)
    common.check_string(values, 'name')
    common.check_string(values, 'description')
    for key in ('shared', 'is_default'):
        common.check_bool(values, key)


def _check_default(context, project_id, policy_id=None):
    for item in net_obj.get_all(context.elevated(), KIND, project_id):
        if item.get('is_default') and item['id'] != policy_id:
            raise errors.conflict(
                'QoSPolicyDefaultAlreadyExists',
                'A default QoS policy exists for project %s.' % project_id)


def default_policy_id(context, project_id):
    """The id of ``project_id``'s default policy (qos-default), or None."""
    for item in net_obj.get_all(context.elevated(), KIND, project_id):
        if item.get('is_default'):
            return item['id']
    return None


def create_policy(context, values):
    _check_policy_values(values, POLICY_KEYS)
    common.check_project(context, values)
    project = values.get('project_id') or values.get('tenant_id') or \
        context.project_id
    policy.authorize(context, 'create', MEMBER, {'project_id': project})
    if values.get('is_default'):
        _check_default(context, project)
    item = common.standard(context, {
        'name': values.get('name', ''),
        'description': values.get('description', ''),
        'shared': values.get('shared', False),
        'is_default': values.get('is_default', False), 'rules': []},
        project)
    net_obj.create(context, KIND, item)
    if item['shared']:
        rbac.set_wildcard(context, KIND, item, rbac.SHARED, True)
    LOG.info('QoS policy %s created for project %s', item['id'], project)
    return get_policy(context, item['id'])


def update_policy(context, policy_id, values):
    item = _stored(context, policy_id)
    policy.authorize(context, 'update', MEMBER, item)
    _check_policy_values(values, UPDATE_KEYS)
    if values.get('is_default') and not item.get('is_default'):
        _check_default(context, item['project_id'], policy_id)
    if 'shared' in values and values['shared'] != item.get('shared'):
        rbac.set_wildcard(context, KIND, item, rbac.SHARED,
                          values['shared'])
    item.update(values)
    net_obj.update(context, KIND, common.touch(item))
    return get_policy(context, policy_id)


def _holds(kind, item, policy_id):
    if kind == 'router':
        info = item.get('external_gateway_info') or {}
        return info.get('qos_policy_id') == policy_id
    return item.get('qos_policy_id') == policy_id


def holders(context, policy_id):
    """[(kind, item)] of what names the policy, any project's."""
    elevated = context.elevated()
    return [(kind, item) for kind, _label in _HOLDERS
            for item in net_obj.get_all(elevated, kind)
            if _holds(kind, item, policy_id)]


def delete_policy(context, policy_id):
    item = _stored(context, policy_id)
    policy.authorize(context, 'delete', MEMBER, item)
    labels = dict(_HOLDERS)
    for kind, holder in holders(context, policy_id)[:1]:
        raise errors.conflict(
            'QosPolicyInUse', 'QoS Policy %s is used by %s %s.'
            % (policy_id, labels[kind], holder['id']))
    net_obj.destroy(context, KIND, policy_id)
    rbac.purge(context, policy_id)
    LOG.info('QoS policy %s deleted', policy_id)


# -- what other resources carry -----------------------------------------------

def check_attached(context, values, old_id=None, key='qos_policy_id'):
    """The policy id ``values`` names for a resource (None: none), as
    Neutron takes it: a UUID or null (400), of a policy the caller may
    see (404); replacing a policy the caller may not see is a 403."""
    new_id = values.get(key)
    if new_id is not None and not (isinstance(new_id, str) and
                                   uuidutils.is_uuid_like(new_id)):
        raise errors.bad_request(
            "Invalid input for %s. Reason: '%s' is not a valid UUID."
            % (key, new_id))
    if old_id and old_id != new_id and not visible(context, old_id):
        raise errors.forbidden(
            'Failed to remove provided policy %s because you are not '
            'authorized.' % old_id, 'PolicyRemoveAuthorizationError')
    if new_id is not None:
        _stored(context, new_id)
    return new_id


# -- rules --------------------------------------------------------------------

def _int(name, value):
    if isinstance(value, bool):
        value = None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise errors.bad_request(
            "Invalid input for %s. Reason: '%s' is not an integer."
            % (name, value))


def _parameter(name, value, valid):
    if valid == _RANGE:
        number = _int(name, value)
        if number < 0:
            raise errors.bad_request(
                "Invalid input for %s. Reason: '%s' is too small - must be "
                "at least '0'." % (name, number))
        if number > INT_MAX:
            raise errors.bad_request(
                "Invalid input for %s. Reason: '%s' is too large - must be "
                "no larger than '%d'." % (name, number, INT_MAX))
        return number
    if name == 'dscp_mark':
        value = _int(name, value)
    if value not in valid:
        raise errors.bad_request(
            "Invalid input for %s. Reason: '%s' is not in %s."
            % (name, value, list(valid)))
    return value


def _rule_values(rule_type, values, creating):
    """The rule's parameters from a request body (Neutron's conversions
    and checks; on create, the defaults and the required ones)."""
    parameters = RULE_TYPES[rule_type]
    common.check_keys(values, parameters, rule_type + '_rule')
    result = {}
    for name, (valid, default) in parameters.items():
        if name in values:
            result[name] = _parameter(name, values[name], valid)
        elif creating and default is _REQUIRED:
            raise errors.bad_request(
                "Failed to parse request. Required attribute '%s' not "
                "specified" % name)
        elif creating:
            result[name] = default
    return result


def _parameter_conflict(item, value, existing, existing_value):
    return errors.conflict(
        'QoSRuleParameterConflict',
        'Unable to add the rule with value %s to the policy %s as the '
        'existing rule of type %s has value %s.'
        % (value, item['id'], existing, existing_value))


def _check_bandwidth(item, data):
    """A minimum above the maximum of its direction, or a maximum below
    the minimum (``data``: what the request sets)."""
    direction = data.get('direction')
    for rule in item['rules']:
        if rule['type'] == 'dscp_marking' or (
                direction and rule.get('direction') != direction):
            continue
        if rule['type'] == 'minimum_bandwidth' and 'max_kbps' in data and \
                rule['min_kbps'] > data['max_kbps']:
            raise _parameter_conflict(item, data['max_kbps'], rule['type'],
                                      rule['min_kbps'])
        if rule['type'] == 'bandwidth_limit' and 'min_kbps' in data and \
                rule['max_kbps'] < data['min_kbps']:
            raise _parameter_conflict(item, data['min_kbps'], rule['type'],
                                      rule['max_kbps'])


def _check_duplicates(item, candidate):
    """One rule per type and direction; no directionless minimum packet
    rate beside a directional one."""
    for rule in item['rules']:
        if rule['id'] == candidate['id'] or \
                rule['type'] != candidate['type']:
            continue
        if candidate['type'] == 'minimum_packet_rate' and \
                ANY in (rule['direction'], candidate['direction']) and \
                rule['direction'] != candidate['direction']:
            raise _parameter_conflict(item, candidate['direction'],
                                      rule['type'], rule['direction'])
        if rule.get('direction') == candidate.get('direction'):
            raise errors.conflict(
                'QoSRulesConflict', 'Rule %s conflicts with rule %s which '
                'already exists in QoS Policy %s.'
                % (candidate['type'], rule['id'], item['id']))


def _rule_view(rule):
    return {k: v for k, v in rule.items()
            if k not in ('type', 'qos_policy_id')}


def _authorized(context, action, rule_type, item, alias=False):
    """Neutron's rule for ``action`` on a rule of ``item`` (its parent
    owner's): a refused read is the policy's 404, a refused write 403."""
    rule = '%s_%s_%s_rule' % (action, 'alias' if alias else 'policy',
                              rule_type)
    if policy.check(context, rule, item):
        return
    if action == 'get':
        raise _not_found(item['id'])
    raise errors.forbidden('(rule:%s) is disallowed by policy' % rule,
                           'PolicyNotAuthorized')


def _rule_of(item, rule_type, rule_id):
    for rule in item['rules']:
        if rule['id'] == rule_id and rule['type'] == rule_type:
            return rule
    raise _rule_not_found(item['id'], rule_id)


def list_rules(context, rule_type, policy_id):
    item = _stored(context, policy_id)
    _authorized(context, 'get', rule_type, item)
    return [_rule_view(r) for r in item['rules'] if r['type'] == rule_type]


def get_rule(context, rule_type, policy_id, rule_id, alias=False):
    item = _stored(context, policy_id)
    _authorized(context, 'get', rule_type, item, alias)
    return _rule_view(_rule_of(item, rule_type, rule_id))


def create_rule(context, rule_type, policy_id, values):
    item = _stored(context, policy_id)
    _authorized(context, 'create', rule_type, item)
    data = _rule_values(rule_type, values, creating=True)
    _check_bandwidth(item, data)
    rule = dict(data, id=uuidutils.generate_uuid(), type=rule_type,
                qos_policy_id=policy_id)
    _check_duplicates(item, rule)
    item['rules'] = item['rules'] + [rule]
    net_obj.update(context, KIND, common.touch(item))
    LOG.info('QoS %s rule %s added to policy %s', rule_type, rule['id'],
             policy_id)
    return _rule_view(rule)


def update_rule(context, rule_type, policy_id, rule_id, values,
                alias=False):
    item = _stored(context, policy_id)
    _authorized(context, 'update', rule_type, item, alias)
    rule = _rule_of(item, rule_type, rule_id)
    data = _rule_values(rule_type, values, creating=False)
    _check_bandwidth(item, data)
    candidate = dict(rule, **data)
    _check_duplicates(item, candidate)
    item['rules'] = [candidate if r['id'] == rule_id else r
                     for r in item['rules']]
    net_obj.update(context, KIND, common.touch(item))
    return _rule_view(candidate)


def delete_rule(context, rule_type, policy_id, rule_id, alias=False):
    item = _stored(context, policy_id)
    _authorized(context, 'delete', rule_type, item, alias)
    _rule_of(item, rule_type, rule_id)
    item['rules'] = [r for r in item['rules'] if r['id'] != rule_id]
    net_obj.update(context, KIND, common.touch(item))
    LOG.info('QoS rule %s deleted from policy %s', rule_id, policy_id)


def policy_of_rule(context, rule_type, rule_id):
    """The id of the policy holding the rule (the alias routes), 404
    when the caller sees none."""
    for item in list_policies(context):
        if any(r['id'] == rule_id and r['type'] == rule_type
               for r in item['rules']):
            return item['id']
    raise _rule_not_found('', rule_id)


# -- rule types ---------------------------------------------------------------

def _supported_parameters(rule_type):
    found = []
    for name, (valid, _default) in RULE_TYPES[rule_type].items():
        if valid == _RANGE:
            found.append({'parameter_name': name,
                          'parameter_type': 'range',
                          'parameter_values': {'start': 0,
                                               'end': INT_MAX}})
        else:
            found.append({'parameter_name': name,
                          'parameter_type': 'choices',
                          'parameter_values': list(valid)})
    return found


def _check_reader(context):
    if not policy.check(context, 'get_rule_type'):
        raise errors.forbidden('(rule:get_rule_type) is disallowed by '
                               'policy', 'PolicyNotAuthorized')


def list_rule_types(req):
    """GET /qos/rule-types: the types the loaded driver supports
    (``all_rules`` and ``all_supported``, qos-rule-type-filter, name the
    same: the one driver supports every type)."""
    context = util.context(req)
    _check_reader(context)
    query = {}
    for key in ('all_rules', 'all_supported'):
        if key in req.GET:
            query[key] = req.GET[key]
            common.check_bool(query, key)
    return util.json_response({'rule_types': [
        {'type': rule_type} for rule_type in RULE_TYPES]})


def show_rule_type(req):
    """GET /qos/rule-types/{rule_type}: its drivers and parameters
    (admins only, as in Neutron)."""
    context = util.context(req)
    _check_reader(context)
    if not context.is_admin:
        raise errors.forbidden('Not authorized.', 'NotAuthorized')
    rule_type = req.urlvars['rule_type']
    if rule_type not in RULE_TYPES:
        raise errors.NeutronError(
            404, 'HTTPNotFound', 'QoS rule type %s could not be found.'
            % rule_type)
    return util.json_response({'rule_type': {
        'type': rule_type, 'drivers': [{
            'name': DRIVER,
            'supported_parameters': _supported_parameters(rule_type)}]}})


# -- the rule routes ----------------------------------------------------------

def _rule_type_of(req):
    """The rule type a rule route names (``.../dscp_marking_rules``,
    ``.../alias_dscp_marking_rules/{id}``)."""
    parts = req.path_info.rstrip('/').split('/')
    segment = parts[6] if 'policy_id' in req.urlvars else parts[4]
    if segment.startswith('alias_'):
        segment = segment[len('alias_'):]
    return segment[:-len('_rules')]


def _body(req, rule_type, alias=False):
    key = ('alias_' if alias else '') + rule_type + '_rule'
    return dict(common.body_of(req, key))


def _answer(req, rule_type, rule, status=200, alias=False):
    key = ('alias_' if alias else '') + rule_type + '_rule'
    return util.json_response({key: common.shown(req, rule)},
                              status=status)


def _rules_handler(req):
    context = util.context(req)
    rule_type = _rule_type_of(req)
    policy_id = req.urlvars['policy_id']
    if req.method == 'POST':
        return _answer(req, rule_type, create_rule(
            context, rule_type, policy_id, _body(req, rule_type)), 201)
    return util.json_response({rule_type + '_rules': common.filtered(
        req, list_rules(context, rule_type, policy_id))})


def _rule_handler(req):
    context = util.context(req)
    rule_type = _rule_type_of(req)
    policy_id = req.urlvars['policy_id']
    rule_id = req.urlvars['rule_id']
    if req.method == 'GET':
        return _answer(req, rule_type,
                       get_rule(context, rule_type, policy_id, rule_id))
    if req.method == 'PUT':
        return _answer(req, rule_type, update_rule(
            context, rule_type, policy_id, rule_id,
            _body(req, rule_type)))
    delete_rule(context, rule_type, policy_id, rule_id)
    return util.no_content()


def _alias_handler(req):
    context = util.context(req)
    rule_type = _rule_type_of(req)
    rule_id = req.urlvars['rule_id']
    policy_id = policy_of_rule(context, rule_type, rule_id)
    if req.method == 'GET':
        return _answer(req, rule_type, get_rule(
            context, rule_type, policy_id, rule_id, alias=True),
            alias=True)
    if req.method == 'PUT':
        return _answer(req, rule_type, update_rule(
            context, rule_type, policy_id, rule_id,
            _body(req, rule_type, alias=True), alias=True), alias=True)
    delete_rule(context, rule_type, policy_id, rule_id, alias=True)
    return util.no_content()


def routes(prefix):
    """The rule, alias and rule type routes (the policies' own are the
    collection handlers')."""
    base = prefix + '/v2.0/qos'
    table = {base + '/rule-types': {'GET': list_rule_types},
             base + '/rule-types/{rule_type}': {'GET': show_rule_type}}
    for rule_type in RULE_TYPES:
        rules = '%s/policies/{policy_id}/%s_rules' % (base, rule_type)
        table[rules] = {'GET': _rules_handler, 'POST': _rules_handler}
        table[rules + '/{rule_id}'] = {'GET': _rule_handler,
                                       'PUT': _rule_handler,
                                       'DELETE': _rule_handler}
    for rule_type in ALIASED:
        table['%s/alias_%s_rules/{rule_id}' % (base, rule_type)] = {
            'GET': _alias_handler, 'PUT': _alias_handler,
            'DELETE': _alias_handler}
    return table
