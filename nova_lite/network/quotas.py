"""Neutron's ``quotas`` and ``quota_details``: per-project limits.

Each project has Neutron's default limits (:data:`DEFAULTS`, ``-1`` for
none) unless an admin set its own (``PUT /v2.0/quotas/{project}``, kept
as a ``quota`` record of the network service); ``DELETE`` goes back to
the defaults. Creating a resource past its project's limit is Neutron's
409 ``OverQuota``; usage is counted from the project's resources, so
nothing is reserved (``reserved`` is always 0). With ``check_limit:
true`` in the body (Neutron's ``quota-check-limit``, which
python-openstackclient's ``quota set`` sends) a limit below what the
project already uses is a 400 and nothing changes; ``force: true``
skips the check, and ``-1`` (unlimited) needs none.
"""

import uuid

from nova_lite import exception
from nova_lite.network import common
from nova_lite.network import errors
from nova_lite.network import objects as net_obj
from nova_lite.wsgi import util

KIND = 'quota'
DEFAULTS = {'network': 100, 'subnet': 100, 'port': 500, 'router': 10,
            'floatingip': 50, 'security_group': 10,
            'security_group_rule': 100, 'subnetpool': -1,
            'rbac_policy': 10}
_NAMESPACE = uuid.UUID('5b4a4f0e-7c1e-4c57-9a51-2f1f6c0e3a11')


def _record_id(project_id):
    return str(uuid.uuid5(_NAMESPACE, project_id))


def _stored(context, project_id):
    try:
        return net_obj.get(context, KIND, _record_id(project_id))
    except exception.NetworkResourceNotFound:
        return None


def limits(context, project_id):
    """The project's limits: its own where set, Neutron's defaults
    elsewhere."""
    result = dict(DEFAULTS)
    stored = _stored(context, project_id)
    if stored:
        result.update({k: v for k, v in stored['limits'].items()
                       if k in DEFAULTS})
    return result


def usage(context, kind, project_id):
    return len(net_obj.get_all(context, kind, project_id))


def check(context, kind, project_id, count=1):
    """Neutron's 409 OverQuota when ``count`` more ``kind`` would pass
    the project's limit."""
    if kind not in DEFAULTS or not project_id:
        return
    limit = limits(context, project_id)[kind]
    if limit >= 0 and usage(context, kind, project_id) + count > limit:
        raise errors.conflict(
            'OverQuota', "Quota exceeded for resources: ['%s']." % kind)


def _admin(context):
    if not context.is_admin:
        raise errors.forbidden('Only admin is authorized to access quotas '
                               'for another project',
                               'AdminRequired')


def _own_or_admin(context, project_id):
    if project_id != context.project_id:
        _admin(context)


def _shown(project_id, values):
    return dict(values, project_id=project_id, tenant_id=project_id)


def list_quotas(req):
    """GET /v2.0/quotas: the projects with limits of their own (admin)."""
    context = util.context(req)
    _admin(context)
    return util.json_response({'quotas': [
        _shown(q['project_id'], dict(DEFAULTS, **q['limits']))
        for q in net_obj.get_all(context, KIND)]})


def show_quota(req):
    context = util.context(req)
    project_id = req.urlvars['project_id']
    _own_or_admin(context, project_id)
    return util.json_response({'quota': limits(context, project_id)})


def show_default(req):
    context = util.context(req)
    _own_or_admin(context, req.urlvars['project_id'])
    return util.json_response({'quota': dict(DEFAULTS)})


def show_details(req):
    context = util.context(req)
    project_id = req.urlvars['project_id']
    _own_or_admin(context, project_id)
    return util.json_response({'quota': {
        kind: {'limit': limit, 'used': usage(context, kind, project_id),
               'reserved': 0}
        for kind, limit in limits(context, project_id).items()}})


def _values(req):
    try:
        body = req.json_body
    except ValueError:
        raise errors.bad_request('Malformed request body')
    values = body.get('quota') if isinstance(body, dict) else None
    if not isinstance(values, dict):
        raise errors.bad_request("Resource body required: expected "
                                 "'quota'")
    result = {}
    flags = {k: values.pop(k) for k in ('check_limit', 'force')
             if k in values}
    for key in flags:
        common.check_bool(flags, key)
    for key, value in values.items():
        if key in ('project_id', 'tenant_id'):
            continue    # the path names the project (clients echo it)
        if key not in DEFAULTS:
            raise errors.bad_request("Unrecognized attribute(s) '%s'" % key)
        try:
            number = int(value)
        except (TypeError, ValueError):
            number = None
        if number is None or isinstance(value, bool) or number < -1:
            raise errors.bad_request(
                "Invalid input for %s. Reason: '%s' is not a valid "
                "quota limit (an integer, -1 for unlimited)."
                % (key, value), 'InvalidInput')
        result[key] = number
    return result, bool(flags.get('check_limit')) and not flags.get('force')


def _check_usage(context, project_id, values):
    """Neutron's 400 for a limit below the project's usage."""
    for kind, limit in sorted(values.items()):
        used = usage(context, kind, project_id)
        if limit != -1 and used > limit:
            raise errors.bad_request(
                'Quota limit %s for %s must be greater than or equal to '
                'already used %s' % (limit, kind, used))


def update_quota(req):
    context = util.context(req)
    _admin(context)
    project_id = req.urlvars['project_id']
    values, check = _values(req)
    if check:
        _check_usage(context, project_id, values)
    stored = _stored(context, project_id)
    if stored is None:
        net_obj.create(context, KIND, {
            'id': _record_id(project_id), 'project_id': project_id,
            'limits': values})
    else:
        stored['limits'].update(values)
        net_obj.update(context, KIND, stored)
    return util.json_response({'quota': limits(context, project_id)})


def delete_quota(req):
    context = util.context(req)
    _admin(context)
    project_id = req.urlvars['project_id']
    try:
        net_obj.destroy(context, KIND, _record_id(project_id))
    except exception.NetworkResourceNotFound:
        raise errors.NeutronError(
            404, 'TenantQuotaNotFound',
            'Quota for tenant %s could not be found.' % project_id)
    return util.no_content()


def routes(prefix):
    base = prefix + '/v2.0/quotas'
    return {base: {'GET': list_quotas},
            base + '/{project_id}': {'GET': show_quota, 'PUT': update_quota,
                                     'DELETE': delete_quota},
            base + '/{project_id}/details': {'GET': show_details},
            base + '/{project_id}/default': {'GET': show_default}}
