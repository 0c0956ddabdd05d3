"""Handlers of /resource_classes[/{name}] (1.2+)."""

import webob.exc

from nova_lite.placement import errors
from nova_lite.placement import exception
from nova_lite.placement.handlers import common
from nova_lite.placement import microversion
from nova_lite.placement.objects import resource_class as rc_obj
from nova_lite.placement.schemas import misc as schema
from nova_lite.placement import util

POLICY = 'placement:resource_classes:%s'


def _serialize(req, rc):
    return {'name': rc.name,
            'links': [{'rel': 'self', 'href': '%s/resource_classes/%s'
                       % (req.script_name, rc.name)}]}


@microversion.require('1.2')
def list_resource_classes(req):
    """GET /resource_classes: 200 with every class."""
    ctx = common.context(req, POLICY % 'list')
    classes = rc_obj.get_all(ctx)
    last = util.latest(*[c.last_modified for c in classes])
    return util.json_response(
        {'resource_classes': [_serialize(req, c) for c in classes]},
        last_modified=last, req=req)


@microversion.require('1.2')
def get_resource_class(req):
    """GET /resource_classes/{name}: 200."""
    ctx = common.context(req, POLICY % 'show')
    rc = rc_obj.get_by_name(ctx, util.wsgi_path_item(req.environ, 'name'))
    return util.json_response(_serialize(req, rc),
                              last_modified=rc.last_modified, req=req)


@microversion.require('1.2')
def create_resource_class(req):
    """POST /resource_classes: 201 with Location; 409 if it exists."""
    ctx = common.context(req, POLICY % 'create')
    body = util.extract_json(req, schema.RC_POST_SCHEMA)
    try:
        rc = rc_obj.create(ctx, body['name'])
    except exception.Exists as exc:
        # NOTE(nova_lite): no specific code here in Placement.
        raise webob.exc.HTTPConflict(exc.message, comment=errors.DEFAULT)
    response = util.no_content(201)
    response.location = util.location(req, '/resource_classes/' + rc.name)
    return response


def _create_or_validate(req, ctx, name):
    """1.7+: PUT creates a custom class (201) or confirms it (204)."""
    util.validate({'name': name}, schema.RC_POST_SCHEMA)
    try:
        rc_obj.get_by_name(ctx, name)
        status = 204
    except exception.ResourceClassNotFound:
        try:
            rc_obj.create(ctx, name)
            status = 201
        except exception.Exists:
            status = 204
    response = util.no_content(status)
    response.location = util.location(req, '/resource_classes/' + name)
    return response


def update_schema(want):
    """The body schema of PUT at version ``want``: none from 1.7, where
    the name in the path is all."""
    return None if want >= (1, 7) else schema.RC_PUT_SCHEMA_V1_2


@microversion.require('1.2')
def update_resource_class(req):
    """PUT /resource_classes/{name}: rename (1.2-1.6, 200) or
    create-or-validate (1.7+, 201/204)."""
    ctx = common.context(req, POLICY % 'update')
    name = util.wsgi_path_item(req.environ, 'name')
    if microversion.of(req) >= (1, 7):
        return _create_or_validate(req, ctx, name)
    body = util.extract_json(req, update_schema(microversion.of(req)))
    rc = rc_obj.rename(ctx, name, body['name'])
    return util.json_response(_serialize(req, rc))


@microversion.require('1.2')
def delete_resource_class(req):
    """DELETE /resource_classes/{name}: 204; 400 standard, 409 in use."""
    ctx = common.context(req, POLICY % 'delete')
    try:
        rc_obj.destroy(ctx, util.wsgi_path_item(req.environ, 'name'))
    except exception.NotCustom as exc:
        raise util.bad_request('Error in delete resource class: %s'
                               % exc.message)
    return util.no_content()
