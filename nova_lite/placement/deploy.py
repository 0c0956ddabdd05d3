"""Assemble the placement WSGI application.

The pipeline is the one both REST services share
(:mod:`nova_lite.wsgi.pipeline`: request id, fault wrapper, health check,
microversion, auth, router); placement passes its router, its JSON error
format and version table, and its auth settings (``[placement_api]
auth_strategy``, ``/`` public). When ``[cors] allowed_origin`` is set,
oslo.middleware's CORS filter wraps it all, as in Placement: a preflight
``OPTIONS`` needs no token and is answered 200 whatever the route says.
"""

from oslo_middleware import cors

from nova_lite import conf as nl_conf
from nova_lite.placement import auth
from nova_lite.placement import handler
from nova_lite.placement import microversion
from nova_lite.wsgi import pipeline

# Placement has no size limit of its own upstream, and a reshape or the
# allocations of a large move carry a document per provider: a generous
# bound, there only so a body cannot exhaust a worker's memory.
MAX_BODY = 16 * 1024 * 1024


def deploy(conf):
    """The placement WSGI application for ``conf``."""
    app = pipeline.assemble(handler.PlacementHandler(), conf, auth.SETTINGS,
                            microversion.TABLE, max_body=MAX_BODY,
                            lab_fault='placement')
    if conf.cors.allowed_origin:
        app = cors.CORS(app, conf)
    return app


def loadapp(conf=None):
    return deploy(conf or nl_conf.CONF)
