"""Errors of the compute API, in Nova's fault format.

Every error body is ``{"<name>": {"code": <status>, "message": <text>}}``
where the name follows the status (``badRequest``, ``itemNotFound``,
``forbidden``, ``conflictingRequest``, ...). Handlers raise either
``webob.exc.HTTP*`` or a :class:`nova_lite.exception.NovaLiteException`
(whose ``code`` picks the status); :func:`fault_response` renders both.
:class:`FaultWrapper` is the last resort: an unexpected exception is
logged with its traceback and answered with a ``computeFault`` 500 that
shows no traceback.
"""

from oslo_log import log as logging
from oslo_serialization import jsonutils
import webob
import webob.dec
import webob.exc

from nova_lite import exception

LOG = logging.getLogger(__name__)

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


def from_exception(exc):
    """Render a domain exception; None for what we cannot map."""
    if isinstance(exc, exception.NovaLiteException) and exc.code != 500:
        return fault_response(exc.code, exc.message)
    return None


class FaultWrapper:
    """Turn anything the application raised into a fault response."""

    def __init__(self, app):
        self.app = app

    @webob.dec.wsgify
    def __call__(self, req):
        try:
            response = req.get_response(self.app)
        except webob.exc.HTTPException as exc:
            return self._error_or_pass(exc)
        except UnicodeDecodeError:
            return fault_response(
                400, 'The request path, query string or body is not valid '
                'UTF-8.')
        except exception.NovaLiteException as exc:
            mapped = from_exception(exc)
            if mapped is not None:
                return mapped
            return self._internal(req, exc)
        except Exception as exc:  # noqa: BLE001 - the last line of defence
            return self._internal(req, exc)
        return response

    @staticmethod
    def _error_or_pass(exc):
        if exc.code >= 400:
            return from_webob(exc)
        return exc

    @staticmethod
    def _internal(req, exc):
        request_id = req.environ.get('openstack.request_id')
        LOG.exception('Unexpected error serving %s %r (request %s)',
                      req.environ.get('REQUEST_METHOD'),
                      req.environ.get('PATH_INFO'), request_id)
        return fault_response(
            500, 'Unexpected API Error. The error is logged under request '
            'id %s; please report it. %s' % (request_id, type(exc).__name__))
