"""Flavor extra specs: read by anyone who sees the flavor, set by admins.

Values are validated before they are stored (see
``nova_lite.api.extra_specs_validator``): a malformed ``resources:*``,
``trait:*``, ``group_policy`` or known ``hw:*`` spec is a 400 naming the
key.
"""

import webob.exc

from nova_lite.api.handlers import flavors
from nova_lite.api import policy
from nova_lite.api.schemas import flavors as schema
from nova_lite.api import util
from nova_lite.api import validation
from nova_lite import exception
from nova_lite import notifications
from nova_lite.objects import flavor as flavor_obj
from nova_lite.objects import flavor_manage


def _as_text(specs):
    return {key: (str(value).lower() if isinstance(value, bool)
                  else str(value)) for key, value in specs.items()}


def list_extra_specs(req):
    """GET /flavors/{flavor_id}/os-extra_specs."""
    context = util.context(req)
    policy.authorize(context, 'os-flavor-extra-specs:index')
    flavor = flavors.get_visible_flavor(context, req.urlvars['flavor_id'])
    return util.json_response({'extra_specs': flavor.extra_specs})


def show_extra_spec(req):
    """GET /flavors/{flavor_id}/os-extra_specs/{key}."""
    context = util.context(req)
    policy.authorize(context, 'os-flavor-extra-specs:show')
    flavor = flavors.get_visible_flavor(context, req.urlvars['flavor_id'])
    key = req.urlvars['key']
    if key not in flavor.extra_specs:
        raise webob.exc.HTTPNotFound(
            'Flavor %s has no extra spec with key %s.'
            % (flavor.flavorid, key))
    return util.json_response({key: flavor.extra_specs[key]})


def create_extra_specs(req):
    """POST /flavors/{flavor_id}/os-extra_specs: add or replace specs."""
    context = util.context(req)
    policy.authorize(context, 'os-flavor-extra-specs:create')
    specs = _as_text(validation.body(
        req, schema.EXTRA_SPECS_CREATE)['extra_specs'])
    flavors.validate_extra_specs(specs)
    result = flavor_manage.update_extra_specs(
        context, req.urlvars['flavor_id'], specs)
    _notify_update(req, context)
    return util.json_response({'extra_specs': result})


def update_extra_spec(req):
    """PUT /flavors/{flavor_id}/os-extra_specs/{key} with ``{key: value}``."""
    context = util.context(req)
    policy.authorize(context, 'os-flavor-extra-specs:update')
    specs = _as_text(validation.body(req, schema.EXTRA_SPEC_UPDATE))
    key = req.urlvars['key']
    if key not in specs:
        raise webob.exc.HTTPBadRequest(
            'The body key must match the URL key %s.' % key)
    flavors.validate_extra_specs(specs)
    flavor_manage.update_extra_specs(context, req.urlvars['flavor_id'],
                                     specs)
    _notify_update(req, context)
    return util.json_response(specs)


def delete_extra_spec(req):
    """DELETE /flavors/{flavor_id}/os-extra_specs/{key}: 200, no body."""
    context = util.context(req)
    policy.authorize(context, 'os-flavor-extra-specs:delete')
    flavorid = req.urlvars['flavor_id']
    flavor_obj.Flavor.get_by_flavor_id(context, flavorid)
    try:
        flavor_manage.delete_extra_spec(context, flavorid,
                                        req.urlvars['key'])
    except exception.FlavorNotFound:
        raise
    except exception.NotFound as exc:
        raise webob.exc.HTTPNotFound(exc.message)
    _notify_update(req, context)
    return util.no_content(200)


def _notify_update(req, context):
    """``flavor.update`` with the flavor as it is now (Nova sends it when
    a flavor's extra specs or projects change)."""
    def build():
        flavor, projects = flavor_manage.get_with_projects(
            context, req.urlvars['flavor_id'])
        return notifications.payloads.FlavorPayload.from_flavor(
            flavor, projects=projects)
    notifications.send(context, 'flavor.update', build, notifications.API,
                       util.conf(req).host)
