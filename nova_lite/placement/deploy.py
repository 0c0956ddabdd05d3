"""Assemble the placement WSGI application (the middleware pipeline).

From the outside in:

1. request id (oslo.middleware): every response and log line carries one,
   and the error bodies below quote it;
2. fault wrapper: anything that escapes below becomes a JSON 500 in the
   placement shape, never a traceback;
3. health check (oslo.middleware) at ``/healthcheck``, before auth, so a
   load balancer needs no credentials;
4. microversion: parse ``OpenStack-API-Version``, answer 400/406 for bad
   ones, echo the version and ``Vary`` on every response - before auth so
   even a 401 says which version it speaks;
5. auth (``[placement_api] auth_strategy``), which puts the request
   context in the environ (``/`` skips it);
6. the router (``handler.PlacementHandler``).
"""

import json

from oslo_log import log as logging
from oslo_middleware import request_id
import webob
import webob.dec
import webob.exc

from nova_lite import conf as nl_conf
from nova_lite.placement import auth
from nova_lite.placement import errors
from nova_lite.placement import handler
from nova_lite.placement import microversion
from nova_lite.placement import util
from nova_lite import wsgi_middleware

LOG = logging.getLogger(__name__)


class FaultWrapper:
    """Last resort: log the exception, answer a JSON 500."""

    def __init__(self, app):
        self.app = app

    @webob.dec.wsgify
    def __call__(self, req):
        try:
            return req.get_response(self.app)
        except Exception:  # noqa: BLE001 - the last line of defence
            LOG.exception('Uncaught exception serving %s %s', req.method,
                          req.path)
            body = util.error_body(
                500, 'Internal Server Error',
                'An unexpected error occurred; see the placement log for '
                'request %s.' % req.environ.get('openstack.request_id'),
                errors.DEFAULT, req.environ.get('openstack.request_id'))
            response = webob.Response(status=500, content_type=util.JSON,
                                      charset='utf-8')
            response.body = json.dumps(body).encode('utf-8')
            return response


def deploy(conf):
    """The placement WSGI application for ``conf``."""
    app = handler.PlacementHandler()
    app = auth.wrap(app, conf)
    app = wsgi_middleware.MicroversionMiddleware(
        app, microversion, util.json_error_response)
    app = wsgi_middleware.HealthcheckRoute(app)
    app = FaultWrapper(app)
    app = request_id.RequestId(app)
    return app


def loadapp(conf=None):
    return deploy(conf or nl_conf.CONF)
