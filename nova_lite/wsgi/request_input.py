"""Bounds on what a request may carry, checked once for both services.

Before a request reaches auth and its handler, :class:`InputGuard`

* reads the whole body, at most ``max_body`` bytes: a larger one is a 413
  (as oslo.middleware's size limiter answers in Nova), a broken chunked
  encoding a 400, and a client that went away mid-body is logged at INFO
  (no traceback: nothing is wrong with the service) and answered 400;
* looks at a body that parses as JSON: nesting deeper than ``MAX_DEPTH``
  (which would otherwise exhaust the interpreter's recursion in the
  parser, the schema validator or the serializer) and a lone surrogate
  (``"\\ud800"``: valid JSON, but no database or message can encode it)
  in any key or string are 400s.

A body that is not JSON goes on untouched: the handlers say in their own
words what they expected. Query strings need no such check: a surrogate
cannot be percent-encoded in UTF-8, and an undecodable query is already a
400 (see ``faults.ErrorFormat.bad_utf8``). Integers past the database's
range are the handlers' business (``nova_lite.api.util.DB_INT_MAX``), with
:class:`nova_lite.wsgi.router.Router` as the safety net.
"""

import json
import re

from oslo_log import log as logging
import webob.exc

from nova_lite.wsgi import layer

LOG = logging.getLogger(__name__)

# No document of either API nests deeper than about ten levels.
MAX_DEPTH = 64
# oslo.middleware's default max_request_body_size, which Nova uses.
DEFAULT_MAX_BODY = 114688

_SURROGATE = re.compile('[\ud800-\udfff]')

TOO_LARGE = 'Request is too large.'
TOO_DEEP = ('The request body nests JSON more than %d levels deep.'
            % MAX_DEPTH)
SURROGATE = ('The request body contains a lone surrogate (%s), which is '
             'not valid Unicode.')
BAD_BODY = 'The request body could not be read: %s'


class ClientDisconnected(Exception):
    """The client closed the connection before sending its whole body."""


def _is_disconnect(exc):
    # gunicorn's NoMoreData, webob's DisconnectionError, a reset socket.
    return isinstance(exc, ConnectionError) or type(exc).__name__ in (
        'NoMoreData', 'DisconnectionError', 'UnreadablePostError')


def read_body(environ, max_body):
    """The body's bytes (None when the request announces none); 413 past
    ``max_body``, 400 when unreadable."""
    length = environ.get('CONTENT_LENGTH') or ''
    chunked = 'chunked' in environ.get('HTTP_TRANSFER_ENCODING',
                                       '').lower()
    if length and not chunked:
        try:
            length = int(length)
        except ValueError:
            raise webob.exc.HTTPBadRequest(
                BAD_BODY % 'bad Content-Length %r' % length)
        if length > max_body:
            raise webob.exc.HTTPRequestEntityTooLarge(TOO_LARGE)
        to_read = expected = length
    elif chunked or environ.get('wsgi.input_terminated'):
        to_read, expected = max_body + 1, None
    else:
        return None
    stream = environ.get('wsgi.input')
    if stream is None or to_read <= 0:
        return b''
    try:
        data = stream.read(to_read)
    except Exception as exc:  # noqa: BLE001 - servers raise their own
        if _is_disconnect(exc):
            raise ClientDisconnected(str(exc) or type(exc).__name__)
        raise webob.exc.HTTPBadRequest(
            BAD_BODY % (str(exc) or type(exc).__name__))
    if len(data) > max_body:
        raise webob.exc.HTTPRequestEntityTooLarge(TOO_LARGE)
    if expected is not None and len(data) < expected:
        raise ClientDisconnected('%d of %d bytes received'
                                 % (len(data), expected))
    return data


def check_document(data):
    """400 if ``data`` (parsed JSON) nests too deep or has a surrogate."""
    pending = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        if depth > MAX_DEPTH:
            raise webob.exc.HTTPBadRequest(TOO_DEEP)
        if isinstance(value, dict):
            for key, item in value.items():
                _check_text(key)
                pending.append((item, depth + 1))
        elif isinstance(value, list):
            pending.extend((item, depth + 1) for item in value)
        else:
            _check_text(value)


def _check_text(value):
    if isinstance(value, str):
        match = _SURROGATE.search(value)
        if match:
            raise webob.exc.HTTPBadRequest(
                SURROGATE % ('\\u%04x' % ord(match.group())))


def check_json(body):
    """Check ``body`` when it is JSON; anything else is the handler's."""
    try:
        data = json.loads(body.decode('utf-8'))
    except RecursionError:
        raise webob.exc.HTTPBadRequest(TOO_DEEP)
    except ValueError:  # not JSON or not UTF-8 (UnicodeDecodeError)
        return
    check_document(data)


class InputGuard(layer.Layer):
    """Read and bound the body before anything else looks at it.

    :param errors: the service's :class:`nova_lite.wsgi.faults.ErrorFormat`.
    :param max_body: the largest body accepted, in bytes.
    :param streaming: ``(environ) -> bool``, the requests whose body is
        data the handler streams itself (image uploads): left unread, and
        bounded by the handler.
    """

    def __init__(self, app, errors, max_body=DEFAULT_MAX_BODY,
                 streaming=None):
        self.app = app
        self.errors = errors
        self.max_body = max_body
        self.streaming = streaming

    def handle(self, req):
        if self.streaming is not None and self.streaming(req.environ):
            return self.call_app(req)
        try:
            body = read_body(req.environ, self.max_body)
            if body is not None:
                # Handlers read it again from memory (this also sets
                # Content-Length: a chunked body reads like any other).
                req.body = body
            if body:
                check_json(body)
        except ClientDisconnected as exc:
            LOG.info('Client disconnected while sending the body of %s %s '
                     '(request %s): %s', req.method, req.path_info,
                     req.environ.get('openstack.request_id'), exc)
            return self.errors.render(req, webob.exc.HTTPBadRequest(
                BAD_BODY % 'the client disconnected'))
        except webob.exc.HTTPException as exc:
            return self.errors.render(req, exc)
        return self.call_app(req)
