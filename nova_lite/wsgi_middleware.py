"""WSGI layers the compute API and placement share.

Both REST services negotiate a microversion from the same header and both
answer ``/healthcheck`` through oslo.middleware; only the service's own
version table and error format differ, so each passes them in.
"""

from oslo_middleware import healthcheck
import webob.dec
import webob.exc

HEALTHCHECK_PATH = '/healthcheck'


class MicroversionMiddleware:
    """Parse the requested microversion and echo it on the response.

    :param versions: the service's microversion module: ``extract(environ)``
        (raises a webob HTTP error for a bad or unsupported version),
        ``MIN_VERSION``, ``ENVIRON_KEY`` and ``response_headers(version)``.
    :param render_error: ``(req, webob HTTPException) -> Response`` in the
        service's own error format.
    """

    def __init__(self, app, versions, render_error):
        self.app = app
        self.versions = versions
        self.render_error = render_error

    @webob.dec.wsgify
    def __call__(self, req):
        try:
            version = self.versions.extract(req.environ)
        except webob.exc.HTTPException as exc:
            response = self.render_error(req, exc)
            self._decorate(response, self.versions.MIN_VERSION)
            return response
        req.environ[self.versions.ENVIRON_KEY] = version
        response = req.get_response(self.app)
        self._decorate(response, version)
        return response

    def _decorate(self, response, version):
        for key, value in self.versions.response_headers(version).items():
            response.headers[key] = value


class HealthcheckRoute:
    """Send ``/healthcheck`` to oslo.middleware's Healthcheck app (which
    answers every request it gets), everything else on."""

    def __init__(self, app):
        self.app = app
        self.healthcheck = healthcheck.Healthcheck(None, {'backends': []})

    def __call__(self, environ, start_response):
        if environ.get('PATH_INFO', '').rstrip('/') == HEALTHCHECK_PATH:
            return self.healthcheck(environ, start_response)
        return self.app(environ, start_response)
