"""Assemble the compute API WSGI application.

The pipeline is the one both REST services share
(:mod:`nova_lite.wsgi.pipeline`: request id, fault wrapper, health check,
microversion, auth, router); the compute API passes its router, its error
format and version table, its auth settings (``[api] auth_strategy``,
the version documents public) and the environ values handlers use: the
configuration and the placement client. Image uploads stream past the
input guard's size bound (``image_data.is_data_upload``).
"""

from nova_lite.api import auth
from nova_lite.api import dashboard
from nova_lite.api import legacy_v2
from nova_lite.api.handlers import image_data
from nova_lite.api import microversion
from nova_lite.api import router
from nova_lite.api import util
from nova_lite.clients import placement
from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite.wsgi import pipeline


# Nova's compute API names the request id in its own header too.
COMPUTE_REQUEST_ID_HEADERS = ('x-compute-request-id',)


def deploy(conf=None, placement_client=None, prewarm=False):
    """The compute API WSGI application.

    :param placement_client: a PlacementClient, or a callable returning
        one (called per request that needs it); by default one built from
        ``[placement]`` on first use.
    :param prewarm: read the dashboard's cells and placement now, in a
        background thread (``[dashboard] prewarm``; API workers only).
    """
    conf = conf or nl_conf.CONF
    if placement_client is None:
        placement_client = _lazy_placement_client(conf)
    # NOTE(nova_lite): the dashboard's pages sit next to the API's
    # routes, behind the same authentication; its cookie login is in
    # front of the whole pipeline (nova_lite.api.dashboard).
    dispatch = dashboard.Dispatch(router.APIRouter(), conf)
    if prewarm:
        dispatch.prewarm(nl_context.get_admin_context(), placement_client)
    return dashboard.wrap(legacy_v2.LegacyV2(pipeline.assemble(
        dispatch, conf, auth.SETTINGS,
        microversion.TABLE,
        environ={util.CONF_KEY: conf, util.PLACEMENT_KEY: placement_client},
        request_id_headers=COMPUTE_REQUEST_ID_HEADERS,
        streaming=image_data.is_data_upload)), conf)


def _lazy_placement_client(conf):
    holder = []

    def get():
        if not holder:
            holder.append(placement.PlacementClient(conf=conf))
        return holder[0]
    return get
