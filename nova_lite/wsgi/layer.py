"""The base of the shared middleware layers: one request object for all.

Each layer written with ``webob.dec.wsgify`` built its own
``webob.Request``, an unused ``req.response``, and through
``req.get_response(app)`` a copy of the inner layer's response: about
two responses per layer per request, a large share of a small
placement request's CPU. A :class:`Layer` answers ``handle(req)`` with a
response object as ``wsgify`` does (a raised ``webob.exc.HTTPException``
is the response), and :meth:`Layer.call_app` hands the next layer, when it is a
Layer too, the same request and takes its response object as it is.
Anything else (keystonemiddleware, oslo.middleware's healthcheck, a test
app) is called as a WSGI application, as before.
"""

import webob
import webob.exc


class Layer:
    """A WSGI middleware whose ``handle(req)`` returns a response.

    Subclasses set ``app``, the application behind them, and call
    :meth:`call_app` where a ``wsgify`` layer called
    ``req.get_response(app)``.
    """

    app = None

    def handle(self, req):
        raise NotImplementedError()

    def __call__(self, environ, start_response):
        req = webob.Request(environ)
        return self.respond(req)(environ, start_response)

    def respond(self, req):
        """``handle(req)``'s response, the way ``wsgify`` takes it."""
        try:
            response = self.handle(req)
        except webob.exc.HTTPException as exc:
            response = exc
        if response is None:
            return webob.Response()
        if isinstance(response, str):
            response = response.encode(req.charset)
        if isinstance(response, bytes):
            return webob.Response(body=response)
        return response

    def call_app(self, req, app=None):
        """The response of ``app`` (default: ``self.app``) to ``req``, as
        ``req.get_response(app)`` gives it."""
        app = self.app if app is None else app
        if not isinstance(app, Layer):
            return req.get_response(app)
        if req.is_body_seekable:
            req.body_file_raw.seek(0)
        response = app.respond(req)
        if isinstance(response, webob.exc.HTTPException):
            # An exception renders its page for the request's Accept
            # when called: what get_response would have returned.
            return req.get_response(response)
        return response
