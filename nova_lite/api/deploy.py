"""Assemble nova-lite-api's WSGI application.

nova-lite-api serves four REST services in one process: the compute API
under ``/v2.1`` (:mod:`nova_lite.api.router`), the image service under
``/image`` (:mod:`nova_lite.image.router`), the network service under
``/network`` (:mod:`nova_lite.network.router`) and the dashboard under
``/dashboard`` (:mod:`nova_lite.dashboard`). Each has its own route table
and handlers; this module is the one place that mounts them together
(the import rules allow it and nothing else in ``nova_lite.api`` to
import their routes).

The pipeline is the one every REST service shares
(:mod:`nova_lite.wsgi.pipeline`: request id, fault wrapper, health check,
microversion, auth, router); it gets the process's route table, its
error formats (Nova's faults, Neutron's under ``/network``), the compute
API's version table and auth settings (``[api] auth_strategy``, each
service's version documents public) and the environ values handlers use:
the configuration and the placement client. Image uploads stream past
the input guard's size bound (``image.router.is_data_upload``).
"""

import dataclasses

from nova_lite.api import auth
from nova_lite.api import faults
from nova_lite.api import legacy_v2
from nova_lite.api import microversion
from nova_lite.api import openapi as api_openapi
from nova_lite.api import policies
from nova_lite.api import router
from nova_lite.api import util
from nova_lite.clients import placement
from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite import dashboard
from nova_lite.dashboard import policy as dashboard_policy
from nova_lite.image import openapi as image_openapi
from nova_lite.image import policy as image_policy
from nova_lite.image import router as image_router
from nova_lite.network import openapi as network_openapi
from nova_lite.network import policy as network_policy
from nova_lite.network import router as network_router
from nova_lite.wsgi import faults as wsgi_faults
from nova_lite.wsgi import pipeline
from nova_lite.wsgi import policy as wsgi_policy


# Nova's compute API names the request id in its own header too.
COMPUTE_REQUEST_ID_HEADERS = ('x-compute-request-id',)

# Every route of the process: path -> {method: handler}.
ROUTE_DECLARATIONS = {**router.ROUTE_DECLARATIONS, **image_router.ROUTES,
                      **network_router.ROUTES}

# The OpenAPI document of each service the process serves, by name
# (each also served at its own path: doc/openapi.md).
OPENAPI_DOCUMENTS = {
    'compute': lambda: api_openapi.document(router.ROUTE_DECLARATIONS),
    'image': lambda: image_openapi.document(image_router.ROUTES),
    'network': lambda: network_openapi.document(network_router.ROUTES),
}

ERRORS = wsgi_faults.MountedErrors(
    faults.ERRORS, {network_router.PREFIX: network_router.ERRORS})

AUTH_SETTINGS = dataclasses.replace(
    auth.SETTINGS, errors=ERRORS,
    is_public=auth.public_check(auth.PUBLIC_PATHS | image_router.PUBLIC_PATHS
                                | network_router.PUBLIC_PATHS,
                                [dashboard.LOGIN_PATH]))


def policy_rules():
    """The default rules of every service of the process (what its
    policy file may override), each once."""
    return wsgi_policy.merge(policies.list_rules(),
                             image_policy.list_rules(),
                             dashboard_policy.list_rules(),
                             network_policy.list_rules())


def deploy(conf=None, placement_client=None, prewarm=False):
    """nova-lite-api's WSGI application.

    :param placement_client: a PlacementClient, or a callable returning
        one (called per request that needs it); by default one built from
        ``[placement]`` on first use.
    :param prewarm: read the dashboard's cells and placement now, in a
        background thread (``[dashboard] prewarm``; API workers only).
    """
    conf = conf or nl_conf.CONF
    if placement_client is None:
        placement_client = _lazy_placement_client(conf)
    # NOTE(nova_lite): the dashboard's pages sit next to the services'
    # routes, behind the same authentication; its cookie login is in
    # front of the whole pipeline (nova_lite.dashboard).
    dispatch = dashboard.Dispatch(
        router.APIRouter(ROUTE_DECLARATIONS, ERRORS), conf)
    if prewarm:
        dispatch.prewarm(nl_context.get_admin_context(), placement_client)
    return dashboard.wrap(legacy_v2.LegacyV2(pipeline.assemble(
        dispatch, conf, AUTH_SETTINGS,
        microversion.TABLE,
        environ={util.CONF_KEY: conf, util.PLACEMENT_KEY: placement_client},
        request_id_headers=COMPUTE_REQUEST_ID_HEADERS,
        streaming=image_router.is_data_upload, lab_fault='compute')), conf)


def _lazy_placement_client(conf):
    holder = []

    def get():
        if not holder:
            holder.append(placement.PlacementClient(conf=conf))
        return holder[0]
    return get
