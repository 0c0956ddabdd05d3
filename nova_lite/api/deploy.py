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
from oslo_middleware import request_id

from nova_lite.api import auth
from nova_lite.api import faults
from nova_lite.api import microversion
from nova_lite.api import router
from nova_lite.api import util
from nova_lite import conf as nl_conf
from nova_lite import wsgi_middleware

LOG = logging.getLogger(__name__)

class Environ:
    """Put what handlers need (configuration, placement) in the environ."""

    def __init__(self, app, conf, placement_client):
        self.app = app
        self.values = {util.CONF_KEY: conf,
                       util.PLACEMENT_KEY: placement_client}

    def __call__(self, environ, start_response):
        environ.update(self.values)
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
    app = wsgi_middleware.MicroversionMiddleware(
        app, microversion, lambda req, exc: faults.from_webob(exc))
    app = Environ(app, conf, placement_client)
    app = wsgi_middleware.HealthcheckRoute(app)
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
