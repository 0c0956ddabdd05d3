"""The middleware order both REST services assemble.

From the outside in:

1. request id (oslo.middleware): every response and log line carries one,
   and a 500's message quotes it;
2. fault wrapper: whatever escapes below becomes an error in the
   service's format, an unexpected exception a 500 without traceback;
3. health check (oslo.middleware) at ``/healthcheck``, before auth, so a
   load balancer needs no credentials;
3b. in a lab, its REST fault if one is set (``lab_faults.py``: delay,
   503s in the service's format);
4. the service's own environ values, if any;
5. microversion: parse the version header(s), answer 400/406 for bad
   ones, echo the version and ``Vary`` on every response - before auth so
   even a 401 says which version it speaks;
6. input guard: the body read whole and bounded (size, JSON depth, lone
   surrogates; see ``request_input.py``), so nothing past it meets a
   broken stream or a document that exhausts the recursion limit;
7. auth (the service's ``auth_strategy``), skipped for public paths;
8. the service's router.
"""

from oslo_context import context
from oslo_middleware import healthcheck
from oslo_middleware import request_id

from nova_lite.wsgi import auth
from nova_lite.wsgi import faults
from nova_lite.wsgi import lab_faults
from nova_lite.wsgi import layer
from nova_lite.wsgi import microversion
from nova_lite.wsgi import request_input

HEALTHCHECK_PATH = '/healthcheck'


class HealthcheckRoute(layer.Layer):
    """Send ``/healthcheck`` to oslo.middleware's Healthcheck app (which
    answers every request it gets), everything else on."""

    def __init__(self, app):
        self.app = app
        self.healthcheck = healthcheck.Healthcheck(None, {'backends': []})

    def handle(self, req):
        if req.environ.get('PATH_INFO', '').rstrip('/') == HEALTHCHECK_PATH:
            return self.call_app(req, self.healthcheck)
        return self.call_app(req)


class Environ(layer.Layer):
    """Put fixed values (configuration, clients) in every request's
    environ, for the handlers to find."""

    def __init__(self, app, values):
        self.app = app
        self.values = dict(values)

    def handle(self, req):
        req.environ.update(self.values)
        return self.call_app(req)


class _RequestId(layer.Layer, request_id.RequestId):
    """oslo.middleware's request id (its ``__call__``, as a layer), also
    in a service's own headers."""

    def __init__(self, app, headers):
        request_id.RequestId.__init__(self, app)
        self.app = app
        self.return_headers = [request_id.HTTP_RESP_HEADER_REQUEST_ID]
        self.return_headers.extend(headers)

    __call__ = layer.Layer.__call__

    def handle(self, req):
        self.set_global_req_id(req)
        req_id = context.generate_request_id()
        req.environ[request_id.ENV_REQUEST_ID] = req_id
        response = self.call_app(req)
        for header in self.return_headers:
            if header not in response.headers:
                response.headers.add(header, req_id)
        return response


def assemble(router, conf, auth_settings, versions, environ=None,
             max_body=request_input.DEFAULT_MAX_BODY,
             request_id_headers=(), streaming=None, lab_fault=None):
    """``router`` behind the shared layers, in the order above.

    :param auth_settings: the service's :class:`auth.AuthSettings`; its
        ``errors`` shape every error the layers answer.
    :param versions: the service's :class:`microversion.VersionTable`.
    :param environ: values every request's environ gets, or None.
    :param max_body: the largest request body accepted, in bytes.
    :param request_id_headers: response headers that carry the request
        id besides ``x-openstack-request-id`` (Nova's
        ``x-compute-request-id``).
    :param streaming: ``(environ) -> bool``: requests whose body the
        handler streams itself (see ``request_input.InputGuard``).
    :param lab_fault: the service's name in the lab's REST faults
        (``lab_faults.SERVICES``), or None for none.
    """
    errors = auth_settings.errors
    app = auth.wrap(router, conf, auth_settings)
    app = request_input.InputGuard(app, errors, max_body, streaming)
    app = microversion.MicroversionMiddleware(app, versions, errors)
    if environ:
        app = Environ(app, environ)
    if lab_fault:
        app = lab_faults.wrap(app, conf, lab_fault, errors)
    app = HealthcheckRoute(app)
    app = faults.FaultWrapper(app, errors)
    return _RequestId(app, request_id_headers)
