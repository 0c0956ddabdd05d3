"""Handler of POST /reshaper (1.30+): inventories and allocations of a
tree replaced in one transaction; 204, 409 on any generation conflict, on
allocations that do not fit and on inventory still in use (nothing
written), 400 for bad input or unknown providers and classes.
"""

import webob.exc

from nova_lite.placement import errors
from nova_lite.placement import exception
from nova_lite.placement.handlers import allocation as alloc_handler
from nova_lite.placement.handlers import common
from nova_lite.placement.handlers import inventory as inv_handler
from nova_lite.placement import microversion
from nova_lite.placement.objects import reshaper as reshaper_obj
from nova_lite.placement.schemas import reshaper as schema
from nova_lite.placement import util

POLICY = 'placement:reshaper:reshape'


def body_schema(want):
    if want >= (1, 38):
        return schema.POST_RESHAPER_SCHEMA_V1_38
    if want >= (1, 34):
        return schema.POST_RESHAPER_SCHEMA_V1_34
    return schema.POST_RESHAPER_SCHEMA_V1_30


def _inventories(req, body):
    result = {}
    for rp_uuid, value in body['inventories'].items():
        for rc, values in value['inventories'].items():
            inv_handler._check_reserved(req, rc, values)
        result[rp_uuid] = (value['resource_provider_generation'],
                           value['inventories'])
    return result


def _specs(want, body):
    specs = []
    for consumer_uuid, value in body['allocations'].items():
        value = {k: v for k, v in value.items() if k != 'mappings'}
        specs.append(alloc_handler._spec(want, consumer_uuid, value))
    return specs


@microversion.require('1.30')
def reshape(req):
    """POST /reshaper: 204."""
    ctx = common.context(req, POLICY)
    want = microversion.of(req)
    body = util.extract_json(req, body_schema(want))
    inventories = _inventories(req, body)
    for rp_uuid in inventories:
        util.require_uuid(rp_uuid, 'resource provider uuid')
    specs = _specs(want, body)
    try:
        reshaper_obj.reshape(ctx, inventories, specs)
    except exception.NovaLiteException as exc:
        raise _http_error(exc)
    return util.no_content()


_ALLOCATE = 'Unable to allocate inventory: '


def _unable_to_allocate(exc):
    """409 for allocations that do not fit (capacity, unit constraints,
    no such inventory): Placement answers them all alike here."""
    message = exc.message
    if not message.startswith(_ALLOCATE):
        message = _ALLOCATE + message
    return webob.exc.HTTPConflict(message, comment=errors.DEFAULT)


def _http_error(exc):
    """The HTTP error of an exception of the reshape, in Placement's words;
    any other is re-raised for the central mapping."""
    if isinstance(exc, reshaper_obj.InventoryProviderNotFound):
        return util.bad_request(
            'Resource provider %s in inventories not found: %s'
            % (exc.kwargs.get('uuid'), exc.message),
            errors.RESOURCE_PROVIDER_NOT_FOUND)
    if isinstance(exc, exception.ResourceProviderNotFound):
        return util.bad_request(
            "Allocation for resource provider '%s' that does not exist."
            % exc.kwargs.get('uuid'))
    if isinstance(exc, exception.ResourceClassNotFound):
        return util.bad_request('Unable to reshape: %s' % exc.message)
    if isinstance(exc, (reshaper_obj.ProviderGenerationConflict,
                        exception.ConsumerGenerationConflict)):
        return webob.exc.HTTPConflict(exc.message,
                                      comment=errors.CONCURRENT_UPDATE)
    if isinstance(exc, exception.ConcurrentUpdateDetected):
        return webob.exc.HTTPConflict('update conflict: %s' % exc.message,
                                      comment=errors.CONCURRENT_UPDATE)
    if isinstance(exc, exception.InventoryInUse):
        return webob.exc.HTTPConflict('update conflict: %s' % exc.message,
                                      comment=errors.INVENTORY_INUSE)
    if isinstance(exc, (exception.InvalidInventory,
                        exception.AllocationConstraintsViolated,
                        exception.CapacityExceeded)):
        return _unable_to_allocate(exc)
    raise exc
