"""The placement route table and the dispatcher.

``ROUTE_DECLARATIONS`` is the whole API: path -> {method: handler}. Paths
have no regexes, so a malformed id reaches its handler, which answers 400
or 404 itself; a known path with an unknown method is a 405 with ``Allow``.
Domain exceptions the handlers let through are mapped to HTTP here.
"""

from oslo_db import exception as db_exc
from oslo_log import log as logging
import routes
import webob
import webob.dec
import webob.exc

from nova_lite.placement import auth
from nova_lite.placement import errors
from nova_lite.placement import exception
from nova_lite.placement.handlers import aggregate
from nova_lite.placement.handlers import allocation
from nova_lite.placement.handlers import allocation_candidate
from nova_lite.placement.handlers import inventory
from nova_lite.placement.handlers import resource_class
from nova_lite.placement.handlers import reshaper
from nova_lite.placement.handlers import resource_provider
from nova_lite.placement.handlers import root
from nova_lite.placement.handlers import trait
from nova_lite.placement.handlers import usage
from nova_lite.placement.objects import resource_class as rc_obj
from nova_lite.placement import util

LOG = logging.getLogger(__name__)
RP = '/resource_providers/{uuid}'

ROUTE_DECLARATIONS = {
    '/': {'GET': root.home},
    '/resource_classes': {
        'GET': resource_class.list_resource_classes,
        'POST': resource_class.create_resource_class},
    '/resource_classes/{name}': {
        'GET': resource_class.get_resource_class,
        'PUT': resource_class.update_resource_class,
        'DELETE': resource_class.delete_resource_class},
    '/resource_providers': {
        'GET': resource_provider.list_resource_providers,
        'POST': resource_provider.create_resource_provider},
    RP: {
        'GET': resource_provider.get_resource_provider,
        'PUT': resource_provider.update_resource_provider,
        'DELETE': resource_provider.delete_resource_provider},
    RP + '/inventories': {
        'GET': inventory.get_inventories,
        'POST': inventory.create_inventory,
        'PUT': inventory.set_inventories,
        'DELETE': inventory.delete_inventories},
    RP + '/inventories/{resource_class}': {
        'GET': inventory.get_inventory,
        'PUT': inventory.update_inventory,
        'DELETE': inventory.delete_inventory},
    RP + '/usages': {'GET': usage.list_usages},
    RP + '/aggregates': {
        'GET': aggregate.get_aggregates,
        'PUT': aggregate.set_aggregates},
    RP + '/allocations': {'GET': allocation.list_for_resource_provider},
    RP + '/traits': {
        'GET': trait.list_traits_for_resource_provider,
        'PUT': trait.update_traits_for_resource_provider,
        'DELETE': trait.delete_traits_for_resource_provider},
    '/allocations': {'POST': allocation.set_allocations},
    '/allocations/{consumer_uuid}': {
        'GET': allocation.list_for_consumer,
        'PUT': allocation.set_allocations_for_consumer,
        'DELETE': allocation.delete_allocations},
    '/traits': {'GET': trait.list_traits},
    '/traits/{name}': {
        'GET': trait.get_trait,
        'PUT': trait.put_trait,
        'DELETE': trait.delete_trait},
    '/usages': {'GET': usage.get_total_usages},
    '/allocation_candidates': {
        'GET': allocation_candidate.list_allocation_candidates},
    '/reshaper': {'POST': reshaper.reshape},
}

# NOTE(nova_lite): the most specific classes first; the first match wins.
_EXCEPTION_MAP = [
    (exception.ConcurrentUpdateDetected, webob.exc.HTTPConflict,
     errors.CONCURRENT_UPDATE),
    (exception.InventoryInUse, webob.exc.HTTPConflict,
     errors.INVENTORY_INUSE),
    (exception.ResourceProviderInUse, webob.exc.HTTPConflict,
     errors.PROVIDER_IN_USE),
    (exception.CannotDeleteParentProvider, webob.exc.HTTPConflict,
     errors.PROVIDER_CANNOT_DELETE_PARENT),
    (exception.Exists, webob.exc.HTTPConflict, errors.DUPLICATE_NAME),
    (exception.Conflict, webob.exc.HTTPConflict, errors.DEFAULT),
    (exception.ResourceProviderNotFound, webob.exc.HTTPNotFound,
     errors.RESOURCE_PROVIDER_NOT_FOUND),
    (exception.NotFound, webob.exc.HTTPNotFound, errors.DEFAULT),
    (exception.Invalid, webob.exc.HTTPBadRequest, errors.DEFAULT),
]


def to_http_error(exc):
    """The webob error a domain exception stands for."""
    for domain_cls, http_cls, code in _EXCEPTION_MAP:
        if isinstance(exc, domain_cls):
            return http_cls(exc.message, comment=code)
    return None


def make_map(declarations):
    mapper = routes.Mapper()
    for path in declarations:
        mapper.connect(path, route_path=path)
    return mapper


class PlacementHandler:
    """Route a request to its handler and render its errors as JSON."""

    def __init__(self):
        self.mapper = make_map(ROUTE_DECLARATIONS)

    def _dispatch(self, req):
        match = self.mapper.match(req.path_info or '/')
        if match is None:
            raise webob.exc.HTTPNotFound(
                'The resource could not be found.', comment=errors.DEFAULT)
        methods = ROUTE_DECLARATIONS[match.pop('route_path')]
        handler = methods.get(req.method)
        if handler is None:
            exc = webob.exc.HTTPMethodNotAllowed(
                'The method specified is not allowed for this resource.',
                comment=errors.DEFAULT)
            exc.headers['Allow'] = ', '.join(sorted(methods))
            raise exc
        req.environ['wsgiorg.routing_args'] = ((), match)
        if req.path_info not in ('', '/'):
            rc_obj.ensure_sync(req.environ[auth.CONTEXT_KEY])
        try:
            return handler(req)
        except exception.NovaLiteException as exc:
            http_exc = to_http_error(exc)
            if http_exc is None:
                raise
            raise http_exc

    @webob.dec.wsgify
    def __call__(self, req):
        try:
            return self._dispatch(req)
        except (db_exc.DBConnectionError, db_exc.CantStartEngineError) as exc:
            LOG.error('Placement database unavailable: %s', exc)
            unavailable = webob.exc.HTTPServiceUnavailable(
                'The placement database is unavailable, retry later.',
                comment=errors.DEFAULT)
            return util.json_error_response(req, unavailable)
        except UnicodeDecodeError:
            return util.json_error_response(req, util.bad_request(
                'The request path or query string is not valid UTF-8.'))
        except webob.exc.HTTPException as exc:
            if exc.code < 400:
                return exc
            return util.json_error_response(req, exc)
