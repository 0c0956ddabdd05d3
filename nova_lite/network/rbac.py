"""Neutron's ``rbac-policies``: sharing an object with other projects.

A policy grants one project (or every project, ``*``) an ``action`` on
an object its owner holds: ``access_as_shared`` lets the project see and
use a network (ports and subnets on it), a subnet pool, an address
scope, a security group or a QoS policy; ``access_as_external`` makes a
network external to the project (a router gateway or floating IPs on
it). ``shared: true`` on an object is the same as a ``*``
``access_as_shared`` policy of its owner, and ``router:external: true``
on a network a ``*`` ``access_as_external`` one: setting the attribute
makes the policy, deleting the policy clears the attribute. A policy
whose target project has things on the object (ports, subnets, gateways,
floating IPs, what carries a QoS policy) that no other policy covers
cannot be deleted nor retargeted (409 ``RbacPolicyInUse``). A project
sees and changes its own policies, an admin any; only an admin shares
with ``*`` or manipulates policies on an object another project owns.
"""

from oslo_log import log as logging
from oslo_utils import uuidutils

from nova_lite import exception
from nova_lite.network import common
from nova_lite.network import errors
from nova_lite.network import objects as net_obj
from nova_lite.network import policy

LOG = logging.getLogger(__name__)

KIND = 'rbac_policy'
SHARED = 'access_as_shared'
EXTERNAL = 'access_as_external'
WILDCARD = '*'
# object type -> the actions a policy on it may grant
ACTIONS = {'network': (SHARED, EXTERNAL), 'subnetpool': (SHARED,),
           'address_scope': (SHARED,), 'security_group': (SHARED,),
           'qos_policy': (SHARED,)}
# (object type, action) -> the attribute a '*' policy stands for
FLAGS = {('network', SHARED): 'shared',
         ('network', EXTERNAL): 'router:external',
         ('subnetpool', SHARED): 'shared',
         ('address_scope', SHARED): 'shared',
         ('qos_policy', SHARED): 'shared'}
KEYS = ('object_type', 'object_id', 'action', 'target_tenant',
        'project_id', 'tenant_id')


# -- what the other modules ask -----------------------------------------------

def grants(context, object_id=None):
    """{object id: {(action, target project)}} of every policy (of one
    object when ``object_id`` is given)."""
    found = {}
    for entry in net_obj.get_all(context, KIND):
        if object_id is None or entry['object_id'] == object_id:
            found.setdefault(entry['object_id'], set()).add(
                (entry['action'], entry['target_tenant']))
    return found


def granted(grants_of, action, project):
    """Whether the grants of one object give ``project`` ``action``."""
    return (action, WILDCARD) in grants_of or (action, project) in grants_of


def set_wildcard(context, object_type, obj, action, on):
    """Make (``on``) or drop the ``*`` policy an attribute stands for
    (a network no longer external drops every external policy, as in
    Neutron); dropping one in use is a 409."""
    entries = [e for e in _entries_of(context, obj['id'])
               if e['action'] == action and (
                   e['target_tenant'] == WILDCARD or
                   (action == EXTERNAL and not on))]
    if on and not entries:
        _store(context, object_type, obj['id'], action, WILDCARD,
               obj['project_id'])
    elif not on:
        kept = [e for e in _entries_of(context, obj['id'])
                if e not in entries]
        for entry in entries:
            _check_unused(context, entry, kept)
        for entry in entries:
            net_obj.destroy(context, KIND, entry['id'])


def purge(context, object_id):
    """Drop the policies of an object that is going away."""
    for entry in _entries_of(context, object_id):
        net_obj.destroy(context, KIND, entry['id'])


# -- the REST resource --------------------------------------------------------

def _visible(context, entry):
    return common.owns(context, entry)


def list_policies(context):
    return [e for e in net_obj.get_all(context, KIND)
            if _visible(context, e)]


def get_policy(context, policy_id):
    return common.get(context, KIND, policy_id, _visible)


def _entries_of(context, object_id):
    return [e for e in net_obj.get_all(context, KIND)
            if e['object_id'] == object_id]


def _store(context, object_type, object_id, action, target, project):
    entry = {'id': uuidutils.generate_uuid(), 'object_type': object_type,
             'object_id': object_id, 'action': action,
             'target_tenant': target, 'project_id': project,
             'tenant_id': project}
    net_obj.create(context, KIND, entry)
    LOG.info('RBAC policy %s grants %s on %s %s to %s', entry['id'],
             action, object_type, object_id, target)
    return entry


def _object(context, object_type, object_id):
    """The object a policy is on: 404 when it does not exist or the
    caller may not see it, 400 when another project owns it and the
    caller is not an admin."""
    try:
        obj = net_obj.get(context, object_type, object_id)
    except exception.NetworkResourceNotFound:
        raise errors.not_found(object_type, object_id)
    if common.owns(context, obj):
        return obj
    mine = grants(context, object_id).get(object_id, set())
    if not any(granted(mine, action, context.project_id)
               for action in ACTIONS[object_type]):
        raise errors.not_found(object_type, object_id)
    raise errors.bad_request(
            'Invalid input for operation: Only admins can manipulate '
            'policies on %ss they do not own.' % object_type.replace(
                '_', ' '), 'InvalidInput')


def _check_values(context, values):
    common.check_keys(values, KEYS, KIND)
    for name in ('object_type', 'object_id', 'action', 'target_tenant'):
        if not values.get(name):
            raise errors.bad_request(
                "Failed to parse request. Required attribute '%s' not "
                "specified" % name)
        common.check_string(values, name)
    object_type = values['object_type']
    if object_type not in ACTIONS:
        raise errors.bad_request(
            "Invalid input for object_type. Reason: '%s' is not in %s."
            % (object_type, sorted(ACTIONS)))
    if values['action'] not in ACTIONS[object_type]:
        raise errors.bad_request(
            "Invalid input for operation: Action '%s' for object type "
            "'%s' is not supported." % (values['action'], object_type),
            'InvalidInput')
    _authorize_target(context, 'create', values, values['target_tenant'])


def _authorize_target(context, action, resource, target):
    policy.authorize(context, action, KIND, resource)
    if target == WILDCARD and not context.is_admin:
        rule = '%s_rbac_policy' % action
        raise errors.forbidden(
            '(rule:%s and rule:%s:target_tenant) is disallowed by policy'
            % (rule, rule), 'PolicyNotAuthorized')


def create_policy(context, values):
    _check_values(context, values)
    common.check_project(context, values)
    obj = _object(context, values['object_type'], values['object_id'])
    action, target = values['action'], values['target_tenant']
    if (action, target) in grants(context, obj['id']).get(obj['id'], ()):
        raise errors.conflict(
            'DuplicateRbacPolicy',
            'An RBAC policy already exists with those values.')
    project = values.get('project_id') or values.get('tenant_id') or \
        context.project_id
    entry = _store(context, values['object_type'], obj['id'], action,
                   target, project)
    _reflect(context, values['object_type'], obj)
    return entry


def update_policy(context, policy_id, values):
    entry = get_policy(context, policy_id)
    common.check_keys(values, ('target_tenant',), KIND)
    common.check_string(values, 'target_tenant')
    target = values.get('target_tenant', entry['target_tenant'])
    _authorize_target(context, 'update', entry, target)
    if target != entry['target_tenant']:
        others = [e for e in _entries_of(context, entry['object_id'])
                  if e['id'] != entry['id']]
        if (entry['action'], target) in {
                (e['action'], e['target_tenant']) for e in others}:
            raise errors.conflict(
                'DuplicateRbacPolicy',
                'An RBAC policy already exists with those values.')
        _check_unused(context, entry, others)
    entry.update(values)
    net_obj.update(context, KIND, entry)
    _reflect(context, entry['object_type'],
             net_obj.get(context, entry['object_type'],
                         entry['object_id']))
    LOG.info('RBAC policy %s now targets %s', policy_id, target)
    return entry


def delete_policy(context, policy_id):
    entry = get_policy(context, policy_id)
    policy.authorize(context, 'delete', KIND, entry)
    others = [e for e in _entries_of(context, entry['object_id'])
              if e['id'] != entry['id']]
    _check_unused(context, entry, others)
    net_obj.destroy(context, KIND, policy_id)
    try:
        obj = net_obj.get(context, entry['object_type'], entry['object_id'])
    except exception.NetworkResourceNotFound:
        obj = None
    if obj is not None:
        _reflect(context, entry['object_type'], obj)
    LOG.info('RBAC policy %s deleted', policy_id)


def _reflect(context, object_type, obj):
    """Keep the attribute a ``*`` policy stands for in step with the
    policies (``router:external`` is true while any external one is)."""
    entries = _entries_of(context, obj['id'])
    changed = False
    for (kind, action), flag in FLAGS.items():
        if kind != object_type:
            continue
        if action == EXTERNAL:
            value = any(e['action'] == action for e in entries)
        else:
            value = any(e['action'] == action and
                        e['target_tenant'] == WILDCARD for e in entries)
        if bool(obj.get(flag)) != value:
            obj[flag] = value
            changed = True
    if changed:
        net_obj.update(context, object_type, common.touch(obj))


# -- in use -------------------------------------------------------------------

def _users(context, entry):
    """The projects other than the owner that hold something on the
    object through a policy of ``entry``'s action."""
    object_id = entry['object_id']
    elevated = context.elevated()
    kinds = {('network', SHARED): (('port', 'network_id'),
                                   ('subnet', 'network_id')),
             ('network', EXTERNAL): (('floatingip', 'floating_network_id'),
                                     ('router', None)),
             ('subnetpool', SHARED): (('subnet', 'subnetpool_id'),),
             ('address_scope', SHARED): (('subnetpool',
                                          'address_scope_id'),),
             ('security_group', SHARED): (('port', None),),
             ('qos_policy', SHARED): (('port', 'qos_policy_id'),
                                      ('network', 'qos_policy_id'),
                                      ('floatingip', 'qos_policy_id'),
                                      ('router', 'qos_policy_id'))}
    projects = set()
    for kind, key in kinds.get((entry['object_type'], entry['action']), ()):
        for item in net_obj.get_all(elevated, kind):
            if _holds(kind, key, item, object_id):
                projects.add(item.get('project_id'))
    return projects


def _holds(kind, key, item, object_id):
    if kind == 'router':
        info = item.get('external_gateway_info') or {}
        return info.get(key or 'network_id') == object_id
    if key is None:
        return object_id in (item.get('security_groups') or [])
    return item.get(key) == object_id


def _check_unused(context, entry, others):
    """409 when a project relies on ``entry`` and on no other policy."""
    try:
        owner = net_obj.get(context, entry['object_type'],
                            entry['object_id'])['project_id']
    except exception.NetworkResourceNotFound:
        return
    left = {(e['action'], e['target_tenant']) for e in others}
    for project in _users(context, entry) - {owner}:
        if project != entry['target_tenant'] and \
                entry['target_tenant'] != WILDCARD:
            continue
        if not granted(left, entry['action'], project):
            raise errors.conflict(
                'RbacPolicyInUse',
                'RBAC policy on object %s cannot be removed because other '
                'objects depend on it.\nDetails: project %s uses it.'
                % (entry['object_id'], project))
