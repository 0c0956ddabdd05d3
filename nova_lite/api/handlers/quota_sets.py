"""os-quota-sets: show, update and reset a project's limits.

Shown: the ``[quota]`` defaults overridden by the project's (and, with
``user_id``, the user's) own limits. Updating below what is in use is
refused unless ``force`` is set. Network quotas are not shown from 2.36,
file-injection quotas not from 2.57.
"""

import webob.exc

from nova_lite.api import microversion
from nova_lite.api import policy
from nova_lite.api import quota
from nova_lite.api.schemas import common
from nova_lite.api import util
from nova_lite.api import validation
from nova_lite.objects import quotas

# The nova-network quotas shown and accepted below 2.36 (unlimited unless
# set: Nova keeps what is set, and nothing counts against them).
_LEGACY_NETWORK = {'fixed_ips': -1, 'floating_ips': -1,
                   'security_groups': -1, 'security_group_rules': -1}


def _resources(req):
    if microversion.at_least(req, '2.57'):
        return [r for r in quota.RESOURCES if r not in quota.FILE_RESOURCES]
    return list(quota.RESOURCES)


def update_schema(req):
    properties = {name: common.QUOTA_LIMIT for name in _resources(req)}
    if not microversion.at_least(req, '2.36'):
        properties.update({name: common.QUOTA_LIMIT
                           for name in _LEGACY_NETWORK})
    properties['force'] = common.BOOLEAN
    return common.wrapped('quota_set', common.obj(properties))


QUERY = {'type': 'object',
         'properties': {'user_id': {'type': 'string', 'minLength': 1,
                                    'maxLength': 255}},
         'additionalProperties': True}


def _user_id(req):
    validation.query(req, QUERY)
    return req.GET.get('user_id')


def _quota_set(req, project_id, values, legacy=None):
    """The set; ``project_id`` None: without ``id`` (Nova's PUT)."""
    body = {} if project_id is None else {'id': project_id}
    body.update({name: values[name] for name in _resources(req)})
    if not microversion.at_least(req, '2.36'):
        body.update(legacy or {name: values.get(name, default)
                               for name, default in _LEGACY_NETWORK.items()})
    return util.json_response({'quota_set': body})


def _authorize(req, rule):
    project_id = req.urlvars['project_id']
    policy.authorize(util.context(req), rule, {'project_id': project_id})
    return project_id


def show_quota_set(req):
    """GET /os-quota-sets/{project_id}[?user_id=]."""
    project_id = _authorize(req, 'os-quota-sets:show')
    limits = quota.limits_for(util.context(req), project_id, _user_id(req))
    return _quota_set(req, project_id, limits)


def show_quota_set_detail(req):
    """GET /os-quota-sets/{project_id}/detail: limit, in_use, reserved."""
    project_id = _authorize(req, 'os-quota-sets:show')
    context = util.context(req)
    user_id = _user_id(req)
    limits = quota.limits_for(context, project_id, user_id)
    usage = quota.usage_for(context, project_id, user_id)
    detail = {name: {'limit': limits[name], 'in_use': usage[name],
                     'reserved': 0} for name in quota.RESOURCES}
    legacy = {name: {'limit': limits.get(name, default), 'in_use': 0,
                     'reserved': 0}
              for name, default in _LEGACY_NETWORK.items()}
    return _quota_set(req, project_id, detail, legacy)


def show_defaults(req):
    """GET /os-quota-sets/{project_id}/defaults."""
    project_id = _authorize(req, 'os-quota-sets:defaults')
    return _quota_set(req, project_id, quota.default_limits())


def update_quota_set(req):
    """PUT /os-quota-sets/{project_id}[?user_id=]: 200 with the set
    (no ``id``, as Nova)."""
    project_id = _authorize(req, 'os-quota-sets:update')
    context = util.context(req)
    user_id = _user_id(req)
    data = dict(validation.body(req, update_schema(req))['quota_set'])
    force = str(data.pop('force', False)).lower() in ('true', '1', 'yes',
                                                      'on')
    usage = {} if force else quota.usage_for(context, project_id, user_id)
    wanted = {name: validation.integer(name, value)
              for name, value in data.items()}
    # Every value is checked before any is written (a 400 changes nothing).
    for name, value in wanted.items():
        if not force and 0 <= value < usage.get(name, 0):
            raise webob.exc.HTTPBadRequest(
                'Quota limit %d for %s must be greater than or equal to '
                'already used and reserved %d.' % (value, name, usage[name]))
    for name, value in wanted.items():
        quotas.set_limit(context, project_id, name, value, user_id=user_id)
    return _quota_set(req, None,
                      quota.limits_for(context, project_id, user_id))


def delete_quota_set(req):
    """DELETE /os-quota-sets/{project_id}: back to defaults, 202."""
    project_id = _authorize(req, 'os-quota-sets:delete')
    quotas.destroy_all_by_project(util.context(req), project_id,
                                  user_id=_user_id(req))
    return util.no_content(202)
