"""Handlers of /resource_providers/{uuid}/inventories[/{resource_class}]."""

import webob.exc

from nova_lite.placement import errors
from nova_lite.placement import exception
from nova_lite.placement.handlers import common
from nova_lite.placement import microversion
from nova_lite.placement.objects import inventory as inv_obj
from nova_lite.placement.schemas import inventory as schema
from nova_lite.placement import util

POLICY = 'placement:resource_providers:inventories:%s'


def _check_reserved(req, rc, values, action='update'):
    """reserved must stay below total (may equal it from 1.26); the text
    is Placement's."""
    inv = inv_obj.with_defaults(values)
    allow_equal = microversion.of(req) >= (1, 26)
    uuid = common.provider_uuid(req)
    if inv['reserved'] > inv['total'] or (
            inv['reserved'] == inv['total'] and not allow_equal):
        raise util.bad_request(
            "Unable to %s inventory for resource provider %s: Invalid "
            "inventory for '%s' on resource provider '%s'. The reserved "
            "value is greater than %stotal." % (
                action, uuid, rc, uuid,
                '' if allow_equal else 'or equal to '))


def _serialize_one(inv, generation):
    data = dict(inv)
    data['resource_provider_generation'] = generation
    return data


def _serialize_all(rp, inventories):
    return {'resource_provider_generation': rp.generation,
            'inventories': inventories}


def _unknown_class_as_400(prefix, fn, *args):
    """Call ``fn``; an unknown class is a 400 worded ``prefix: reason``."""
    try:
        return fn(*args)
    except exception.ResourceClassNotFound as exc:
        raise util.bad_request('%s: %s' % (prefix, exc.message))


def _generation_conflict(exc):
    """Placement's short words for a stale generation in an inventory
    PUT."""
    return webob.exc.HTTPConflict('resource provider generation conflict',
                                  comment=errors.CONCURRENT_UPDATE)


def _conflict(exc):
    if isinstance(exc, exception.ConcurrentUpdateDetected):
        return webob.exc.HTTPConflict(exc.message,
                                      comment=errors.CONCURRENT_UPDATE)
    return None


def get_inventories(req):
    """GET .../inventories: 200 with every inventory and the generation."""
    ctx = common.context(req, POLICY % 'list')
    rp, inventories, modified = inv_obj.get_all(ctx, common.provider_uuid(req))
    return util.json_response(_serialize_all(rp, inventories),
                              last_modified=modified, req=req,
                              modified_now=False)


def get_inventory(req):
    """GET .../inventories/{rc}: 200 with one inventory."""
    ctx = common.context(req, POLICY % 'show')
    rc = util.wsgi_path_item(req.environ, 'resource_class')
    uuid = common.provider_uuid(req)
    try:
        rp, inv, modified = inv_obj.get_one(ctx, uuid, rc)
    except exception.InventoryNotFound:
        raise webob.exc.HTTPNotFound(
            'No inventory of class %s for %s' % (rc, uuid),
            comment=errors.DEFAULT)
    return util.json_response(_serialize_one(inv, rp.generation),
                              last_modified=modified, req=req)


def set_inventories(req):
    """PUT .../inventories: replace them all; 200 with the new set."""
    ctx = common.context(req, POLICY % 'update')
    body = util.extract_json(req, schema.PUT_ALL_SCHEMA)
    for rc, values in body['inventories'].items():
        _check_reserved(req, rc, values)
    uuid = common.provider_uuid(req)
    try:
        rp, inventories, modified = _unknown_class_as_400(
            'Unknown resource class in inventory for resource provider %s'
            % uuid, inv_obj.set_all, ctx, uuid,
            body['resource_provider_generation'], body['inventories'])
    except exception.ConcurrentUpdateDetected as exc:
        raise _generation_conflict(exc)
    except exception.InventoryInUse as exc:
        raise webob.exc.HTTPConflict('update conflict: %s' % exc.message,
                                     comment=errors.INVENTORY_INUSE)
    # NOTE(nova_lite): no last-modified for an empty set, as Placement.
    return util.json_response(_serialize_all(rp, inventories), req=req,
                              last_modified=modified, modified_now=False)


def create_inventory(req):
    """POST .../inventories: add one class; 201 with Location."""
    ctx = common.context(req, POLICY % 'create')
    body = util.extract_json(req, schema.POST_SCHEMA)
    rc = body.pop('resource_class')
    # NOTE(nova_lite): as in Placement, a POST may omit the generation and
    # is not checked against it: the provider's current one is bumped.
    body.pop('resource_provider_generation', None)
    _check_reserved(req, rc, body, 'create')
    try:
        rp, inv, _ = _unknown_class_as_400(
            'Unable to create inventory for resource provider %s'
            % common.provider_uuid(req),
            inv_obj.set_one, ctx, common.provider_uuid(req), None, rc,
            body, False)
    except exception.Exists as exc:
        raise webob.exc.HTTPConflict('Update conflict: %s' % exc.message,
                                     comment=errors.CONCURRENT_UPDATE)
    response = util.json_response(_serialize_one(inv, rp.generation), 201,
                                  last_modified=rp.last_modified, req=req)
    response.location = util.location(
        req, '/resource_providers/%s/inventories/%s' % (rp.uuid, rc))
    return response


def update_inventory(req):
    """PUT .../inventories/{rc}: update one class; 200."""
    ctx = common.context(req, POLICY % 'update')
    rc = util.wsgi_path_item(req.environ, 'resource_class')
    body = util.extract_json(req, schema.PUT_ONE_SCHEMA)
    generation = body.pop('resource_provider_generation')
    _check_reserved(req, rc, body)
    # NOTE(nova_lite): an unknown class is Placement's 404 (its lookup's
    # NotFound, let through), after the generation check.
    try:
        rp, inv, _ = inv_obj.set_one(ctx, common.provider_uuid(req),
                                     generation, rc, body, True)
    except exception.ConcurrentUpdateDetected as exc:
        raise _generation_conflict(exc)
    except exception.InventoryNotFound:
        raise util.bad_request(
            'No inventory record with resource class for resource provider '
            '%s: No inventory of class %s found.'
            % (common.provider_uuid(req), rc))
    return util.json_response(_serialize_one(inv, rp.generation), req=req,
                              last_modified=rp.last_modified)


def delete_inventory(req):
    """DELETE .../inventories/{rc}: 204."""
    ctx = common.context(req, POLICY % 'delete')
    rc = util.wsgi_path_item(req.environ, 'resource_class')
    try:
        inv_obj.delete_one(ctx, common.provider_uuid(req), rc)
    except exception.ResourceClassNotFound as exc:
        raise webob.exc.HTTPNotFound(
            'No inventory of class %s found for delete: %s'
            % (rc, exc.message), comment=errors.DEFAULT)
    except exception.InventoryNotFound:
        raise webob.exc.HTTPNotFound(
            'No inventory of class %s found for delete: No inventory of '
            'class %s found for delete' % (rc, rc), comment=errors.DEFAULT)
    except exception.InventoryInUse as exc:
        # NOTE(nova_lite): Placement's code here is concurrent_update.
        raise webob.exc.HTTPConflict(
            'Unable to delete inventory of class %s: %s'
            % (rc, exc.message), comment=errors.CONCURRENT_UPDATE)
    return util.no_content()


@microversion.require('1.5', status_code=405)
def delete_inventories(req):
    """DELETE .../inventories (1.5+): remove them all; 204."""
    ctx = common.context(req, POLICY % 'delete')
    inv_obj.delete_all(ctx, common.provider_uuid(req))
    return util.no_content()
