"""The placement route table and the dispatcher.

``ROUTE_DECLARATIONS`` is the whole API: path -> {method: handler}. Paths
have no regexes, so a malformed id reaches its handler, which answers 400
or 404 itself; a known path with an unknown method is a 405 with ``Allow``
(the dispatcher is shared with the compute API: ``nova_lite.wsgi.router``).
Domain exceptions the handlers let through are mapped to HTTP there, by
:func:`nova_lite.placement.faults.to_http_error`.
"""

import webob.exc

from nova_lite.placement import auth
from nova_lite.placement import faults
from nova_lite.placement import openapi
from nova_lite.placement.handlers import aggregate
from nova_lite.placement.handlers import allocation
from nova_lite.placement.handlers import allocation_candidate
from nova_lite.placement.handlers import capacity
from nova_lite.placement.handlers import inventory
from nova_lite.placement.handlers import resource_class
from nova_lite.placement.handlers import reshaper
from nova_lite.placement.handlers import resource_provider
from nova_lite.placement.handlers import root
from nova_lite.placement.handlers import trait
from nova_lite.placement.handlers import usage
from nova_lite.placement.objects import resource_class as rc_obj
from nova_lite.placement import util
from nova_lite.wsgi import openapi as wsgi_openapi
from nova_lite.wsgi import router as wsgi_router

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
    # NOTE(nova_lite): not Placement's: one read of every provider's
    # capacity for the compute API's dashboard (admins and services).
    '/nova_lite/capacity': {'GET': capacity.get_capacity},
    '/nova_lite/capacity/fingerprint': {'GET': capacity.get_fingerprint},
    '/nova_lite/capacity/usages': {'GET': capacity.get_usages},
}
# This table's own description (doc/openapi.md), public as ``/`` is.
ROUTE_DECLARATIONS[openapi.PATH] = {'GET': wsgi_openapi.serving_handler(
    lambda: openapi.document(ROUTE_DECLARATIONS),
    lambda req, doc: util.json_response(doc, req=req))}

def _check_content_headers(req):
    """As Placement: a body needs a content type (400), and a GET whose
    ``Accept`` allows no JSON is refused (406)."""
    length = req.environ.get('CONTENT_LENGTH')
    if length and not req.environ.get('CONTENT_TYPE'):
        try:
            has_body = int(length) > 0
        except ValueError:
            raise webob.exc.HTTPBadRequest(
                'content-length header must be an integer')
        if has_body:
            raise webob.exc.HTTPBadRequest(
                'content-type header required when content-length > 0')
    if req.method == 'GET' and 'HTTP_ACCEPT' in req.environ and (
            not req.accept.acceptable_offers([util.JSON])):
        raise webob.exc.HTTPNotAcceptable(
            'Only %s is provided' % util.JSON)


def _before(req):
    """Header checks, then standard resource classes are in the database
    before a handler looks (the version document at ``/`` and the
    OpenAPI document need no database)."""
    _check_content_headers(req)
    if req.path_info not in ('', '/', openapi.PATH):
        rc_obj.ensure_sync(req.environ[auth.CONTEXT_KEY])


class PlacementHandler(wsgi_router.Router):
    """Placement's routes on the shared dispatcher; domain exceptions the
    handlers let through mapped to HTTP, errors rendered as JSON."""

    def __init__(self):
        super().__init__(ROUTE_DECLARATIONS, faults.ERRORS,
                         before=_before,
                         domain_errors=faults.to_http_error)
