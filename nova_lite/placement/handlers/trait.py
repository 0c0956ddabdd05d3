"""Handlers of /traits[/{name}] and /resource_providers/{uuid}/traits
(all 1.6+)."""

import re

from nova_lite.placement import exception
from nova_lite.placement.handlers import common
from nova_lite.placement import microversion
from nova_lite.placement.objects import trait as trait_obj
from nova_lite.placement.schemas import misc as schema
from nova_lite.placement import util

POLICY = 'placement:traits:%s'
RP_POLICY = 'placement:resource_providers:traits:%s'
_CUSTOM_RE = re.compile(r'^CUSTOM_[A-Z0-9_]+$')


def _name_filter(value):
    """(names, prefix) from ``in:A,B`` or ``startswith:CUSTOM``; another
    word before the colon filters nothing, as in Placement."""
    if value.startswith('in:'):
        return [n for n in value[3:].split(',') if n], None
    if value.startswith('startswith:'):
        return None, value[len('startswith:'):]
    if ':' in value:
        return None, None
    raise util.bad_request(
        "Badly formatted name parameter. Expected name query string "
        "parameter in form: ?name=[in|startswith]:[name1,name2|prefix]. "
        "Got: \"%s\"" % value)


def _associated(value):
    if value is None:
        return None
    lowered = value.lower()
    if lowered not in ('true', 'false'):
        raise util.bad_request(
            'The query parameter "associated" only accepts "true" or '
            '"false"')
    return lowered == 'true'


@microversion.require('1.6')
def list_traits(req):
    """GET /traits: 200 with names, filtered by name and association."""
    ctx = common.context(req, POLICY % 'list')
    params = util.query_params(req, schema.TRAITS_QUERY)
    names, prefix = (None, None)
    if 'name' in params:
        names, prefix = _name_filter(params['name'])
    traits = trait_obj.get_all(ctx, names, prefix,
                               _associated(params.get('associated')))
    last = util.latest(*[t.last_modified for t in traits])
    return util.json_response({'traits': [t.name for t in traits]},
                              last_modified=last, req=req)


@microversion.require('1.6')
def get_trait(req):
    """GET /traits/{name}: 204 if it exists, 404 if not."""
    ctx = common.context(req, POLICY % 'show')
    trait = trait_obj.get_by_name(
        ctx, util.wsgi_path_item(req.environ, 'name'))
    response = util.no_content()
    util.add_cache_headers(req, response, trait.last_modified)
    return response


@microversion.require('1.6')
def put_trait(req):
    """PUT /traits/{name}: 201 created, 204 already there (CUSTOM_ only)."""
    ctx = common.context(req, POLICY % 'update')
    name = util.wsgi_path_item(req.environ, 'name')
    if not _CUSTOM_RE.match(name) or len(name) > 255:
        raise util.bad_request(
            'The trait is invalid. A valid trait must be no longer than 255 '
            'characters, start with the prefix "CUSTOM_" and use following '
            'characters: "A"-"Z", "0"-"9" and "_"')
    created = trait_obj.ensure(ctx, name)
    response = util.no_content(201 if created else 204)
    response.location = util.location(req, '/traits/' + name)
    util.add_cache_headers(req, response)
    return response


@microversion.require('1.6')
def delete_trait(req):
    """DELETE /traits/{name}: 204; 400 for standard, 409 when in use."""
    ctx = common.context(req, POLICY % 'delete')
    trait_obj.destroy(ctx, util.wsgi_path_item(req.environ, 'name'))
    return util.no_content()


def _serialize(rp, names):
    return {'traits': names, 'resource_provider_generation': rp.generation}


@microversion.require('1.6')
def list_traits_for_resource_provider(req):
    """GET /resource_providers/{uuid}/traits: 200."""
    ctx = common.context(req, RP_POLICY % 'list')
    rp, names = trait_obj.get_for_provider(ctx, common.provider_uuid(req))
    return util.json_response(_serialize(rp, names), req=req,
                              last_modified=rp.last_modified)


@microversion.require('1.6')
def update_traits_for_resource_provider(req):
    """PUT /resource_providers/{uuid}/traits: replace them; 200."""
    ctx = common.context(req, RP_POLICY % 'update')
    body = util.extract_json(req, schema.PROVIDER_TRAITS_SCHEMA)
    try:
        rp, names = trait_obj.set_for_provider(
            ctx, common.provider_uuid(req),
            body['resource_provider_generation'], body['traits'])
    except exception.TraitNotFound as exc:
        # Placement's words here differ from its TraitNotFound's.
        raise util.bad_request('No such trait %s' % exc.kwargs['names'])
    except exception.ConcurrentUpdateDetected:
        raise util.generation_conflict()
    return util.json_response(_serialize(rp, names), req=req,
                              last_modified=rp.last_modified)


@microversion.require('1.6')
def delete_traits_for_resource_provider(req):
    """DELETE /resource_providers/{uuid}/traits: 204."""
    ctx = common.context(req, RP_POLICY % 'delete')
    trait_obj.delete_for_provider(ctx, common.provider_uuid(req))
    return util.no_content()
