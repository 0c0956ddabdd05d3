"""The WSGI application of nova-lite-api (served by gunicorn).

For now it serves the version documents (``/``, ``/v2.1``) and oslo.
middleware's health check (``/healthcheck``), which load balancers poll;
the compute API's resources hang under ``/v2.1`` as they are written.
"""

from oslo_log import log as logging
from oslo_middleware import healthcheck
from oslo_serialization import jsonutils
import webob
import webob.dec
import webob.exc

from nova_lite.api import versions

LOG = logging.getLogger(__name__)

HEALTHCHECK_PATH = '/healthcheck'


def _json(body, status=200):
    response = webob.Response(status=status, content_type='application/json',
                              charset='utf-8')
    response.text = jsonutils.dumps(body)
    return response


def _base_url(req):
    return req.application_url


class APIRouter:
    """Dispatch on the path: versions, health check, 404 otherwise."""

    def __init__(self):
        self._healthcheck = healthcheck.Healthcheck(
            None, {'path': HEALTHCHECK_PATH})

    @webob.dec.wsgify
    def __call__(self, req):
        path = req.path_info.rstrip('/') or '/'
        if path == HEALTHCHECK_PATH:
            return self._healthcheck
        if req.method not in ('GET', 'HEAD') and path in ('/', '/v2.1'):
            return webob.exc.HTTPMethodNotAllowed(
                headers=[('Allow', 'GET, HEAD')])
        if path == '/':
            return _json(versions.root_document(_base_url(req)))
        if path == '/v2.1':
            return _json(versions.v21_document(_base_url(req)))
        return _json({'itemNotFound': {'code': 404,
                                       'message': 'Not found: %s' % path}},
                     status=404)


def init_application():
    """Return the WSGI application (gunicorn calls this in each worker)."""
    LOG.info('nova-lite-api WSGI application ready')
    return APIRouter()
