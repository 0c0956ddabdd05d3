"""Assemble the compute API WSGI application (the middleware pipeline).

From the outside in:

1. request id (oslo.middleware): every response and log line carries one,
   and a 500's message quotes it;
2. fault wrapper: whatever escapes below becomes a fault in Nova's format,
   an unexpected exception a ``computeFault`` 500 without traceback;
3. health check (oslo.middleware) at ``/healthcheck``, before auth, so a
   load balancer needs no credentials;
4. environment: the configuration and the placement client handlers use;
5. microversion: parse the version headers, answer 400/406 for bad ones,
   echo both headers and ``Vary`` on every response - before auth so even
   a 401 says which version it speaks;
6. auth (``[api] auth_strategy``), skipped for the version documents;
7. the router (``router.APIRouter``).
"""

from oslo_log import log as logging
from oslo_middleware import healthcheck
from oslo_middleware import request_id
import webob
import webob.dec
import webob.exc

from nova_lite.api import auth
from nova_lite.api import faults
from nova_lite.api import microversion
from nova_lite.api import router
from nova_lite.api import util
from nova_lite import conf as nl_conf

LOG = logging.getLogger(__name__)

HEALTHCHECK_PATH = '/healthcheck'


class MicroversionMiddleware:
    """Parse the requested microversion and echo it on the response."""

    def __init__(self, app):
        self.app = app

    @webob.dec.wsgify
    def __call__(self, req):
        try:
            version = microversion.extract(req.environ)
        except webob.exc.HTTPException as exc:
            response = faults.from_webob(exc)
            self._decorate(response, microversion.MIN_VERSION)
            return response
        req.environ[microversion.ENVIRON_KEY] = version
        response = req.get_response(self.app)
        self._decorate(response, version)
        return response

    @staticmethod
    def _decorate(response, version):
        for key, value in microversion.response_headers(version).items():
            response.headers[key] = value


class Environ:
    """Put what handlers need (configuration, placement) in the environ."""

    def __init__(self, app, conf, placement_client):
        self.app = app
        self.values = {util.CONF_KEY: conf,
                       util.PLACEMENT_KEY: placement_client}

    def __call__(self, environ, start_response):
        environ.update(self.values)
        return self.app(environ, start_response)


class HealthcheckRoute:
    """``/healthcheck`` to oslo.middleware's Healthcheck, the rest on."""

    def __init__(self, app):
        self.app = app
        self.healthcheck = healthcheck.Healthcheck(None, {'backends': []})

    def __call__(self, environ, start_response):
        if environ.get('PATH_INFO', '').rstrip('/') == HEALTHCHECK_PATH:
            return self.healthcheck(environ, start_response)
        return self.app(environ, start_response)


def deploy(conf=None, placement_client=None):
    """The compute API WSGI application.

    :param placement_client: a PlacementClient, or a callable returning
        one (called per request that needs it); by default one built from
        ``[placement]`` on first use.
    """
    conf = conf or nl_conf.CONF
    if placement_client is None:
        placement_client = _lazy_placement_client(conf)
    app = router.APIRouter()
    app = auth.wrap(app, conf)
    app = MicroversionMiddleware(app)
    app = Environ(app, conf, placement_client)
    app = HealthcheckRoute(app)
    app = faults.FaultWrapper(app)
    app = request_id.RequestId(app)
    return app


def _lazy_placement_client(conf):
    holder = []

    def get():
        if not holder:
            from nova_lite.clients import placement
            holder.append(placement.PlacementClient(conf=conf))
        return holder[0]
    return get
