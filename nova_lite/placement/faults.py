"""Errors of placement, in the API-SIG shape, and its domain exceptions.

Every error body is ``{"errors": [{"status", "title", "detail", "code",
"request_id"}]}`` (:func:`nova_lite.placement.util.json_error_response`),
with a code from :mod:`nova_lite.placement.errors`. :data:`ERRORS` is what
the shared web layers (``nova_lite.wsgi``) render with; the domain
exceptions handlers let through are mapped to HTTP by :func:`to_http_error`
inside the router, so their responses carry the version headers.
"""

import webob.exc

from nova_lite.placement import errors
from nova_lite.placement import exception
from nova_lite.placement import util
from nova_lite.wsgi import faults as wsgi_faults
from nova_lite.wsgi import microversion as wsgi_microversion

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
    (exception.NotFound, webob.exc.HTTPNotFound, errors.DEFAULT),
    (exception.Invalid, webob.exc.HTTPBadRequest, errors.DEFAULT),
]


def to_http_error(exc):
    """The webob error a domain exception stands for, or None."""
    for domain_cls, http_cls, code in _EXCEPTION_MAP:
        if isinstance(exc, domain_cls):
            http = http_cls(exc.message, comment=code)
            # NOTE(nova_lite): Placement's handlers let a missing provider
            # or class through; its 404 is raised past the layer that adds
            # Vary. A missing trait they answer themselves.
            http.outside_handler = isinstance(exc, exception.NotFound) and (
                not isinstance(exc, exception.TraitNotFound))
            return http
    return None


METHOD_NOT_ALLOWED = 'The method specified is not allowed for this resource.'


class PlacementErrors(wsgi_faults.ErrorFormat):
    """Placement's wording of the errors the shared layers answer."""

    bad_utf8 = 'The request path or query string is not valid UTF-8.'
    db_unavailable = 'The placement database is unavailable, retry later.'
    not_found = None

    def render(self, req, exc):
        if getattr(exc, 'outside_handler', False):
            req.environ[wsgi_microversion.NO_VARY_ENVIRON] = True
        return util.json_error_response(req, exc)

    def method_not_allowed(self, method):
        # NOTE(nova_lite): webob's 405 template already names the method.
        return METHOD_NOT_ALLOWED

    def internal_message(self, request_id, exc):
        return ('An unexpected error occurred; see the placement log for '
                'request %s.' % request_id)


ERRORS = PlacementErrors()
