"""Flavor access: which projects may use a private flavor (admins only)."""

import webob.exc

from nova_lite.api import policy
from nova_lite.api.schemas import flavors as schema
from nova_lite.api import util
from nova_lite.api import validation
from nova_lite.db.api import api as api_db
from nova_lite import exception


def _access_list(flavor):
    return {'flavor_access': [
        {'flavor_id': flavor.flavorid, 'tenant_id': project}
        for project in sorted(flavor.projects)]}


def list_flavor_access(req):
    """GET /flavors/{flavor_id}/os-flavor-access."""
    context = util.context(req)
    policy.authorize(context, 'os-flavor-access')
    flavor = api_db.flavor_get_by_flavor_id(context,
                                            req.urlvars['flavor_id'])
    if flavor.is_public:
        raise webob.exc.HTTPNotFound(
            'Access list not available for public flavors.')
    return util.json_response(_access_list(flavor))


def flavor_action(req):
    """POST /flavors/{flavor_id}/action: add/removeTenantAccess."""
    context = util.context(req)
    data = validation.body(req, schema.ACTION)
    flavorid = req.urlvars['flavor_id']
    if 'addTenantAccess' in data:
        policy.authorize(context, 'os-flavor-access:add_tenant_access')
        flavor = api_db.flavor_get_by_flavor_id(context, flavorid)
        if flavor.is_public:
            raise webob.exc.HTTPConflict(
                'Can not add access to a public flavor.')
        try:
            api_db.flavor_add_project(context, flavorid,
                                      data['addTenantAccess']['tenant'])
        except exception.Conflict as exc:
            raise webob.exc.HTTPConflict(exc.message)
    else:
        policy.authorize(context, 'os-flavor-access:remove_tenant_access')
        api_db.flavor_remove_project(context, flavorid,
                                     data['removeTenantAccess']['tenant'])
    flavor = api_db.flavor_get_by_flavor_id(context, flavorid)
    return util.json_response(_access_list(flavor))


