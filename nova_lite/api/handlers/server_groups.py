"""os-server-groups: (anti-)affinity groups of a project's servers.

Below 2.64 a group has ``policies`` (a one-element list, the soft ones
from 2.15); from 2.64 a ``policy`` and ``rules`` (``max_server_per_host``
for anti-affinity only). 2.13 adds ``project_id`` and ``user_id``.
Groups are counted against the ``server_groups`` quota.
"""

import webob.exc

from nova_lite.api import microversion
from nova_lite.api import policy
from nova_lite.api import quota
from nova_lite.api.schemas import server_groups as schema
from nova_lite.api import util
from nova_lite.api import validation
from nova_lite import notifications
from nova_lite import exception
from nova_lite.objects import instance_group as group_obj


def view(req, group):
    group_policy, rules = group.policy, group.rules
    item = {'id': group.uuid, 'name': group.name, 'members': group.members}
    if microversion.at_least(req, '2.64'):
        item['policy'] = group_policy
        item['rules'] = rules or {}
    else:
        item['policies'] = [group_policy] if group_policy else []
        item['metadata'] = {}
    if microversion.at_least(req, '2.13'):
        item['project_id'] = group.project_id
        item['user_id'] = group.user_id
    return item


def _owner(group):
    return {'project_id': group.project_id, 'user_id': group.user_id}


def _get(req, rule):
    context = util.context(req)
    group_uuid = req.urlvars['group_id']
    try:
        group = group_obj.InstanceGroup.get_by_uuid(context, group_uuid)
    except exception.InstanceGroupNotFound:
        raise webob.exc.HTTPNotFound(
            'Server group %s could not be found.' % group_uuid)
    policy.authorize(context, rule, _owner(group))
    return group


def list_query_schema(req):
    """The query schema of the group list at ``req``'s version."""
    return (schema.LIST_QUERY_V2_75 if microversion.at_least(req, '2.75')
            else schema.LIST_QUERY)


def create_schema(req):
    """The body schema of POST at ``req``'s version."""
    if microversion.at_least(req, '2.64'):
        return schema.CREATE_V2_64
    if microversion.at_least(req, '2.15'):
        return schema.CREATE_V2_15
    return schema.CREATE


def list_server_groups(req):
    """GET /os-server-groups[?all_projects=True&limit=&offset=]."""
    context = util.context(req)
    policy.authorize(context, 'os-server-groups:index')
    validation.query(req, list_query_schema(req))
    project = context.project_id
    if util.query_bool(req, 'all_projects', False) and policy.check(
            context, 'os-server-groups:index:all_projects'):
        project = None
    groups = group_obj.InstanceGroup.get_all(context, project_id=project)
    offset = util.query_int(req, 'offset', default=0)
    limit = util.query_int(req, 'limit',
                           default=util.conf(req).api.max_limit)
    groups = groups[offset:offset + min(limit, util.conf(req).api.max_limit)]
    return util.json_response({'server_groups': [view(req, g)
                                                 for g in groups]})


def show_server_group(req):
    """GET /os-server-groups/{group_id}."""
    group = _get(req, 'os-server-groups:show')
    return util.json_response({'server_group': view(req, group)})


def _policy_and_rules(req, data):
    if microversion.at_least(req, '2.64'):
        rules = data.get('rules') or {}
        if rules and data['policy'] != 'anti-affinity':
            raise webob.exc.HTTPBadRequest(
                'Invalid input for field/attribute rules: only the '
                'anti-affinity policy takes rules.')
        if 'max_server_per_host' in rules:
            rules = {'max_server_per_host': int(rules['max_server_per_host'])}
        return data['policy'], rules
    return data['policies'][0], {}


def create_server_group(req):
    """POST /os-server-groups: 200 with the group."""
    context = util.context(req)
    policy.authorize(context, 'os-server-groups:create')
    data = validation.body(req, create_schema(req))['server_group']
    group_policy, rules = _policy_and_rules(req, data)
    limits = quota.limits_for(context, context.project_id, context.user_id)
    used = len(group_obj.InstanceGroup.get_all(context,
                                               context.project_id))
    quota.check_count('server_groups', 1, used, limits['server_groups'])
    group = group_obj.InstanceGroup.create(
        context, {'name': data['name'], 'project_id': context.project_id,
                  'user_id': context.user_id},
        policy=group_policy, rules=rules)
    notifications.server_group(context, 'create', group,
                               util.conf(req).host)
    return util.json_response({'server_group': view(req, group)})


def delete_server_group(req):
    """DELETE /os-server-groups/{group_id}: 204."""
    group = _get(req, 'os-server-groups:delete')
    group.destroy()
    notifications.server_group(util.context(req), 'delete', group,
                               util.conf(req).host)
    return util.no_content(204)
