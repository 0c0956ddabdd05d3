"""Errors of the compute API, in Nova's fault format.

Every error body is ``{"<name>": {"code": <status>, "message": <text>}}``
where the name follows the status (``badRequest``, ``itemNotFound``,
``forbidden``, ``conflictingRequest``, ...). Handlers raise either
``webob.exc.HTTP*`` or a :class:`nova_lite.exception.NovaLiteException`
(whose ``code`` picks the status); :func:`fault_response` renders both.
:data:`ERRORS` is what the shared web layers (``nova_lite.wsgi``) render
with; their last resort answers an unexpected exception with a
``computeFault`` 500 that shows no traceback.
"""

from oslo_serialization import jsonutils
import webob

from nova_lite import exception
from nova_lite.wsgi import faults as wsgi_faults

FAULT_NAMES = {
    400: 'badRequest',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'itemNotFound',
    405: 'badMethod',
    406: 'notAcceptable',
    409: 'conflictingRequest',
    410: 'gone',
    413: 'overLimit',
    415: 'badMediaType',
    429: 'overLimit',
    501: 'notImplemented',
    503: 'serviceUnavailable',
}


def fault_body(status, message):
    name = FAULT_NAMES.get(status, 'computeFault')
    return {name: {'code': status, 'message': message}}


def fault_response(status, message, headers=None):
    """A JSON error response in Nova's fault format."""
    response = webob.Response(status=status, content_type='application/json',
                              charset='utf-8')
    response.text = jsonutils.dumps(fault_body(status, message))
    for key, value in (headers or {}).items():
        response.headers[key] = value
    return response


def _webob_message(exc):
    message = exc.detail or exc.explanation or exc.title
    return str(message)


def from_webob(exc):
    """Render a ``webob.exc.HTTPException`` (an error) as a fault."""
    headers = {}
    for key in ('Allow', 'Retry-After', 'WWW-Authenticate', 'Location'):
        if key in exc.headers:
            headers[key] = exc.headers[key]
    return fault_response(exc.code, _webob_message(exc), headers)


class ComputeErrors(wsgi_faults.ErrorFormat):
    """The compute API's wording of the errors the shared layers answer."""

    bad_utf8 = ('The request path, query string or body is not valid '
                'UTF-8.')
    db_unavailable = 'A database is unavailable, retry later.'

    def render(self, req, exc):
        return from_webob(exc)

    def method_not_allowed(self, method):
        return 'The method %s is not allowed for this resource.' % method

    def internal_message(self, request_id, exc):
        return ('Unexpected API Error. The error is logged under request '
                'id %s; please report it. %s' % (request_id,
                                                 type(exc).__name__))

    def render_exception(self, req, exc):
        """A domain exception whose ``code`` says it is the caller's."""
        if isinstance(exc, exception.NovaLiteException) and exc.code != 500:
            return fault_response(exc.code, exc.message)
        return None


ERRORS = ComputeErrors()
