"""Flavors: list, detail, show; create, update (description), delete.

Anyone may read the public flavors and the private ones shared with
their project; only admins manage flavors. Listings are sorted by memory
then id and paged with ``marker`` (a flavor id) and ``limit``.
"""

from oslo_utils import strutils
from oslo_utils import uuidutils
import webob.exc

from nova_lite.api import extra_specs_validator
from nova_lite.api import microversion
from nova_lite.api import policy
from nova_lite.api.schemas import flavors as schema
from nova_lite.api import util
from nova_lite.api import validation
from nova_lite import notifications
from nova_lite import exception
from nova_lite.objects import flavor_manage

_MAX_INT = 2147483647


def _summary(req, flavor):
    item = {'id': flavor.flavorid, 'name': flavor.name,
            'links': util.links(req, 'flavors', flavor.flavorid)}
    if microversion.at_least(req, '2.55'):
        item['description'] = flavor.description
    return item


def view(req, flavor, with_extra_specs=None):
    """The detailed representation of a flavor at ``req``'s version."""
    swap = flavor.swap or 0
    if not microversion.at_least(req, '2.75') and not swap:
        swap = ''
    item = {
        'id': flavor.flavorid, 'name': flavor.name,
        'ram': flavor.memory_mb, 'disk': flavor.root_gb or 0,
        'vcpus': flavor.vcpus, 'swap': swap,
        'OS-FLV-EXT-DATA:ephemeral': flavor.ephemeral_gb or 0,
        'OS-FLV-DISABLED:disabled': bool(flavor.disabled),
        'os-flavor-access:is_public': bool(flavor.is_public),
        'rxtx_factor': flavor.rxtx_factor if flavor.rxtx_factor is not None
        else 1.0,
        'links': util.links(req, 'flavors', flavor.flavorid),
    }
    if microversion.at_least(req, '2.55'):
        item['description'] = flavor.description
    if with_extra_specs is None:
        with_extra_specs = microversion.at_least(req, '2.61') and \
            policy.check(util.context(req), 'os-flavor-extra-specs:index')
    if with_extra_specs:
        item['extra_specs'] = flavor.extra_specs
    return item


def _is_public_filter(req, context):
    """Only admins choose (``is_public=false|none``); everyone else lists
    the public flavors plus the private ones shared with the project."""
    value = req.GET.get('is_public')
    if value is None or not context.is_admin:
        return True
    if value.lower() == 'none':
        return None
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            'Invalid input for query parameters is_public. Value: %s. '
            'Must be a boolean or None.' % value)


def list_query_schema(req):
    """The query schema of the flavor lists at ``req``'s version."""
    return (schema.LIST_QUERY_V2_75 if microversion.at_least(req, '2.75')
            else schema.LIST_QUERY)


def create_schema(req):
    """The body schema of POST /flavors at ``req``'s version."""
    return (schema.CREATE_V2_55 if microversion.at_least(req, '2.55')
            else schema.CREATE)


def _visible_flavors(req):
    context = util.context(req)
    validation.query(req, list_query_schema(req))
    policy.authorize(context, 'flavors:list')
    is_public = _is_public_filter(req, context)
    # As Nova: the default listing (is_public true) adds the private
    # flavors the caller's project may use, for admins too; admins also
    # see disabled flavors.
    project = None
    if is_public:
        is_public, project = None, context.project_id
    flavors = flavor_manage.get_all(
        context, is_public=is_public, project_id=project,
        include_disabled=context.is_admin,
        min_memory_mb=util.query_int(req, 'minRam'),
        min_root_gb=util.query_int(req, 'minDisk'))
    return util.paginate(flavors, req, lambda f: f.flavorid,
                         util.conf(req).api.max_limit)


def _page_links(req, flavors, collection):
    limit = util.query_int(req, 'limit')
    if not flavors or limit is None or len(flavors) < limit:
        return {}
    href = '%s/%s?limit=%d&marker=%s' % (util.base_url(req), collection,
                                         limit, flavors[-1].flavorid)
    return {'flavors_links': [{'rel': 'next', 'href': href}]}


def list_flavors(req):
    """GET /flavors: ids, names and links."""
    flavors = _visible_flavors(req)
    body = {'flavors': [_summary(req, f) for f in flavors]}
    body.update(_page_links(req, flavors, 'flavors'))
    return util.json_response(body)


def list_flavors_detail(req):
    """GET /flavors/detail: the full representation."""
    flavors = _visible_flavors(req)
    body = {'flavors': [view(req, f) for f in flavors]}
    body.update(_page_links(req, flavors, 'flavors/detail'))
    return util.json_response(body)


def get_visible_flavor(context, flavorid):
    """The flavor if ``context`` may see it, else FlavorNotFound."""
    flavor, projects = flavor_manage.get_with_projects(context, flavorid)
    if (not flavor.is_public and not context.is_admin and
            context.project_id not in projects):
        raise exception.FlavorNotFound(flavor_id=flavorid)
    return flavor


def show_flavor(req):
    """GET /flavors/{flavor_id}."""
    context = util.context(req)
    policy.authorize(context, 'flavors:list')
    flavor = get_visible_flavor(context, req.urlvars['flavor_id'])
    return util.json_response({'flavor': view(req, flavor)})


def _int_field(data, name, default=None):
    value = data.get(name, default)
    if value is None:
        return None
    number = int(value)
    if number > _MAX_INT:
        raise webob.exc.HTTPBadRequest(
            'Invalid input for field/attribute %s. Value: %s. Must be '
            '<= %d.' % (name, value, _MAX_INT))
    return number


def _flavor_values(data):
    flavorid = data.get('id')
    if flavorid is None or str(flavorid).lower() == 'auto':
        flavorid = uuidutils.generate_uuid()
    rxtx = float(data.get('rxtx_factor', 1.0))
    if not 0 < rxtx <= 3.40282e+38:
        raise webob.exc.HTTPBadRequest(
            'Invalid input for field/attribute rxtx_factor. Value: %s. '
            'Must be a positive number.' % data.get('rxtx_factor'))
    return {
        'name': data['name'], 'flavorid': str(flavorid),
        'memory_mb': _int_field(data, 'ram'),
        'vcpus': _int_field(data, 'vcpus'),
        'root_gb': _int_field(data, 'disk'),
        'ephemeral_gb': _int_field(data, 'OS-FLV-EXT-DATA:ephemeral', 0),
        'swap': _int_field(data, 'swap', 0),
        'rxtx_factor': rxtx,
        'is_public': strutils.bool_from_string(
            data.get('os-flavor-access:is_public', True), strict=True),
        'description': data.get('description'),
    }


def create_flavor(req):
    """POST /flavors (admin): 200 with the new flavor."""
    context = util.context(req)
    policy.authorize(context, 'os-flavor-manage:create')
    data = validation.body(req, create_schema(req))['flavor']
    values = _flavor_values(data)
    flavor = flavor_manage.create(context, values)
    notifications.flavor(context, 'create', flavor, util.conf(req).host,
                         projects=[])
    return util.json_response({'flavor': view(req, flavor)})


@microversion.require('2.55')
def update_flavor(req):
    """PUT /flavors/{flavor_id} (admin, 2.55+): change the description."""
    context = util.context(req)
    policy.authorize(context, 'os-flavor-manage:update')
    data = validation.body(req, schema.UPDATE_V2_55)['flavor']
    flavor = flavor_manage.update(context, req.urlvars['flavor_id'],
                                  {'description': data['description']})
    notifications.flavor(context, 'update', flavor, util.conf(req).host)
    return util.json_response({'flavor': view(req, flavor)})


def delete_flavor(req):
    """DELETE /flavors/{flavor_id} (admin): 202."""
    context = util.context(req)
    policy.authorize(context, 'os-flavor-manage:delete')
    flavor = get_visible_flavor(context, req.urlvars['flavor_id'])
    flavor_manage.destroy(context, req.urlvars['flavor_id'])
    notifications.flavor(context, 'delete', flavor, util.conf(req).host)
    return util.no_content(202)


def validate_extra_specs(specs):
    """400 naming the first unusable key of ``specs``."""
    try:
        extra_specs_validator.validate_all(specs)
    except extra_specs_validator.InvalidExtraSpec as exc:
        raise webob.exc.HTTPBadRequest(str(exc))
