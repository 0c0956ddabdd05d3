"""Flavor access: which projects may use a private flavor (admins only)."""

import webob.exc

from nova_lite.api import policy
from nova_lite.api.schemas import flavors as schema
from nova_lite.api import util
from nova_lite.api import validation
from nova_lite import exception
from nova_lite import notifications
from nova_lite.objects import flavor as flavor_obj
from nova_lite.objects import flavor_manage


def _access_list(flavor, projects):
    return {'flavor_access': [
        {'flavor_id': flavor.flavorid, 'tenant_id': project}
        for project in sorted(projects)]}


def list_flavor_access(req):
    """GET /flavors/{flavor_id}/os-flavor-access."""
    context = util.context(req)
    policy.authorize(context, 'os-flavor-access')
    flavor, projects = flavor_manage.get_with_projects(
        context, req.urlvars['flavor_id'])
    if flavor.is_public:
        raise webob.exc.HTTPNotFound(
            'Access list not available for public flavors.')
    return util.json_response(_access_list(flavor, projects))


def flavor_action(req):
    """POST /flavors/{flavor_id}/action: add/removeTenantAccess."""
    context = util.context(req)
    data = validation.body(req, schema.ACTION)
    flavorid = req.urlvars['flavor_id']
    if 'addTenantAccess' in data:
        policy.authorize(context, 'os-flavor-access:add_tenant_access')
        flavor = flavor_obj.Flavor.get_by_flavor_id(context, flavorid)
        if flavor.is_public:
            raise webob.exc.HTTPConflict(
                'Can not add access to a public flavor.')
        try:
            flavor_manage.add_project(context, flavorid,
                                      data['addTenantAccess']['tenant'])
        except exception.Conflict as exc:
            raise webob.exc.HTTPConflict(exc.message)
    else:
        policy.authorize(context, 'os-flavor-access:remove_tenant_access')
        flavor_manage.remove_project(context, flavorid,
                                     data['removeTenantAccess']['tenant'])
    flavor, projects = flavor_manage.get_with_projects(context, flavorid)
    notifications.flavor(context, 'update', flavor, util.conf(req).host,
                         projects=projects)
    return util.json_response(_access_list(flavor, projects))


