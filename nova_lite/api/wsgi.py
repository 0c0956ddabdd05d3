"""The WSGI application of nova-lite-api (served by gunicorn).

:func:`init_application` is what each gunicorn worker loads: the pipeline
of :mod:`nova_lite.api.deploy` (version documents at ``/`` and ``/v2.1``,
oslo.middleware's health check at ``/healthcheck``, the compute API under
``/v2.1``, the image service under ``/image``, the network service under
``/network`` and the dashboard under ``/dashboard``). On start it also
creates the default flavors when ``[api] create_default_flavors`` is on
and there are none, and (``[dashboard] prewarm``) reads the dashboard's
data in the background.
"""

from oslo_log import log as logging

from nova_lite.api import default_flavors
from nova_lite.api import deploy
from nova_lite import conf as nl_conf
from nova_lite import context as nl_context

LOG = logging.getLogger(__name__)


def init_application(conf=None):
    """Return the WSGI application (gunicorn calls this in each worker)."""
    conf = conf or nl_conf.CONF
    if conf.api.create_default_flavors:
        try:
            default_flavors.ensure_default_flavors(
                nl_context.get_admin_context())
        except Exception as exc:  # noqa: BLE001 - serving matters more
            LOG.warning('Default flavors not created: %s', exc)
    app = deploy.deploy(conf, prewarm=conf.dashboard.prewarm)
    LOG.info('nova-lite-api WSGI application ready')
    return app
