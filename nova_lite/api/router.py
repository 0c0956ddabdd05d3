"""The compute API route table and the dispatcher.

``ROUTE_DECLARATIONS`` is the whole API: path -> {method: handler}, where
a handler is named ``'<module>:<function>'`` within
``nova_lite.api.handlers``. Paths carry no regexes, so a malformed id
reaches its handler, which answers 400 or 404 itself; a known path with
an unknown method is a 405 with ``Allow``; an unknown path is a 404.
Every name must resolve when the router is built (a typo fails at start),
except the modules in ``OPTIONAL_MODULES``: until they exist, their routes
answer 501.

Adding a resource: write ``handlers/<resource>.py`` (functions taking a
``webob.Request``, see ``nova_lite.api.util``), list its paths here (the
more specific literal paths such as ``/servers/detail`` before
``/servers/{server_id}``), add its policy rules to ``policies/``.
"""

import importlib

from oslo_log import log as logging
import webob.exc

from nova_lite.api import faults
from nova_lite.wsgi import router as wsgi_router

LOG = logging.getLogger(__name__)

HANDLERS_PACKAGE = 'nova_lite.api.handlers'
V = '/v2.1'

# NOTE(nova_lite): the servers resource is written in its own modules
# (handlers/servers.py, handlers/server_actions.py) by the build-path work;
# its routes are declared here so the table stays in one place.
OPTIONAL_MODULES = frozenset(['servers', 'server_actions'])

ROUTE_DECLARATIONS = {
    '/': {'GET': 'versions:root'},
    V: {'GET': 'versions:v21'},
    # -- servers (handlers/servers.py, handlers/server_actions.py) ------
    V + '/servers': {'GET': 'servers:list_servers',
                     'POST': 'servers:create_server'},
    V + '/servers/detail': {'GET': 'servers:list_servers_detail'},
    V + '/servers/{server_id}': {'GET': 'servers:show_server',
                                 'PUT': 'servers:update_server',
                                 'DELETE': 'servers:delete_server'},
    V + '/servers/{server_id}/action': {
        'POST': 'server_actions:server_action'},
    # -- server sub-resources -------------------------------------------
    V + '/servers/{server_id}/os-instance-actions': {
        'GET': 'instance_actions:list_actions'},
    V + '/servers/{server_id}/os-instance-actions/{request_id}': {
        'GET': 'instance_actions:show_action'},
    V + '/servers/{server_id}/migrations': {
        'GET': 'server_migrations:list_server_migrations'},
    V + '/servers/{server_id}/migrations/{migration_id}': {
        'GET': 'server_migrations:show_server_migration',
        'DELETE': 'server_migrations:delete_server_migration'},
    V + '/servers/{server_id}/migrations/{migration_id}/action': {
        'POST': 'server_migrations:server_migration_action'},
    # -- flavors ----------------------------------------------------------
    V + '/flavors': {'GET': 'flavors:list_flavors',
                     'POST': 'flavors:create_flavor'},
    V + '/flavors/detail': {'GET': 'flavors:list_flavors_detail'},
    V + '/flavors/{flavor_id}': {'GET': 'flavors:show_flavor',
                                 'PUT': 'flavors:update_flavor',
                                 'DELETE': 'flavors:delete_flavor'},
    V + '/flavors/{flavor_id}/action': {
        'POST': 'flavor_access:flavor_action'},
    V + '/flavors/{flavor_id}/os-flavor-access': {
        'GET': 'flavor_access:list_flavor_access'},
    V + '/flavors/{flavor_id}/os-extra_specs': {
        'GET': 'flavor_extra_specs:list_extra_specs',
        'POST': 'flavor_extra_specs:create_extra_specs'},
    V + '/flavors/{flavor_id}/os-extra_specs/{key}': {
        'GET': 'flavor_extra_specs:show_extra_spec',
        'PUT': 'flavor_extra_specs:update_extra_spec',
        'DELETE': 'flavor_extra_specs:delete_extra_spec'},
    # -- key pairs, zones, aggregates, server groups ------------------------
    V + '/os-keypairs': {'GET': 'keypairs:list_keypairs',
                         'POST': 'keypairs:create_keypair'},
    V + '/os-keypairs/{name}': {'GET': 'keypairs:show_keypair',
                                'DELETE': 'keypairs:delete_keypair'},
    V + '/os-availability-zone': {
        'GET': 'availability_zones:list_zones'},
    V + '/os-availability-zone/detail': {
        'GET': 'availability_zones:list_zones_detail'},
    V + '/os-aggregates': {'GET': 'aggregates:list_aggregates',
                           'POST': 'aggregates:create_aggregate'},
    V + '/os-aggregates/{aggregate_id}': {
        'GET': 'aggregates:show_aggregate',
        'PUT': 'aggregates:update_aggregate',
        'DELETE': 'aggregates:delete_aggregate'},
    V + '/os-aggregates/{aggregate_id}/action': {
        'POST': 'aggregates:aggregate_action'},
    V + '/os-server-groups': {'GET': 'server_groups:list_server_groups',
                              'POST': 'server_groups:create_server_group'},
    V + '/os-server-groups/{group_id}': {
        'GET': 'server_groups:show_server_group',
        'DELETE': 'server_groups:delete_server_group'},
    # -- admin: services, hypervisors, hosts, migrations --------------------
    V + '/os-services': {'GET': 'services:list_services'},
    V + '/os-services/{service_id}': {
        'PUT': 'services:update_service',
        'DELETE': 'services:delete_service'},
    V + '/os-hypervisors': {'GET': 'hypervisors:list_hypervisors'},
    V + '/os-hypervisors/detail': {
        'GET': 'hypervisors:list_hypervisors_detail'},
    V + '/os-hypervisors/statistics': {
        'GET': 'hypervisors:hypervisor_statistics'},
    V + '/os-hypervisors/{hypervisor_id}': {
        'GET': 'hypervisors:show_hypervisor'},
    V + '/os-hypervisors/{hypervisor_id}/uptime': {
        'GET': 'hypervisors:hypervisor_uptime'},
    V + '/os-hypervisors/{hostname_pattern}/search': {
        'GET': 'hypervisors:search_hypervisors'},
    V + '/os-hypervisors/{hostname_pattern}/servers': {
        'GET': 'hypervisors:hypervisor_servers'},
    V + '/os-hosts': {'GET': 'hosts:list_hosts'},
    V + '/os-hosts/{host_name}': {'GET': 'hosts:show_host'},
    V + '/os-migrations': {'GET': 'migrations:list_migrations'},
    # -- limits and quotas ----------------------------------------------------
    V + '/limits': {'GET': 'limits:show_limits'},
    V + '/os-quota-sets/{project_id}': {
        'GET': 'quota_sets:show_quota_set',
        'PUT': 'quota_sets:update_quota_set',
        'DELETE': 'quota_sets:delete_quota_set'},
    V + '/os-quota-sets/{project_id}/defaults': {
        'GET': 'quota_sets:show_defaults'},
    V + '/os-quota-sets/{project_id}/detail': {
        'GET': 'quota_sets:show_quota_set_detail'},
    # -- the read-only Image API v2 of the image catalog ------------------
    # NOTE(nova_lite): also under /v2.1/images, where the OpenStack clients
    # look for images when a cloud's catch-all endpoint is the compute URL
    # (no image_endpoint_override); Glance v2 shapes in both places.
    V + '/images': {'GET': 'images:list_images'},
    V + '/images/{image_id}': {'GET': 'images:show_image'},
    '/image': {'GET': 'images:versions'},
    '/image/versions': {'GET': 'images:versions'},
    '/image/v2/images': {'GET': 'images:list_images'},
    '/image/v2/images/{image_id}': {'GET': 'images:show_image'},
}


def _not_implemented(name):
    def handler(req):
        raise webob.exc.HTTPNotImplemented(
            'This API (%s) is not available in this deployment.' % name)
    return handler


def resolve(name):
    """The handler function ``'<module>:<function>'`` names."""
    module_name, _, function_name = name.partition(':')
    full_name = '%s.%s' % (HANDLERS_PACKAGE, module_name)
    try:
        module = importlib.import_module(full_name)
    except ModuleNotFoundError as exc:
        if module_name in OPTIONAL_MODULES and exc.name == full_name:
            LOG.warning('%s is not there yet; its routes answer 501',
                        full_name)
            return _not_implemented(name)
        raise
    return getattr(module, function_name)


def resolve_all(declarations):
    """{path: {method: function}}; AttributeError/ImportError on a typo."""
    return {path: {method: resolve(name) for method, name in methods.items()}
            for path, methods in declarations.items()}


class APIRouter(wsgi_router.Router):
    """The compute API's routes on the shared dispatcher, with Nova's
    leniency (a trailing slash ignored, HEAD served by GET); 404 and 405
    as faults."""

    def __init__(self, declarations=None):
        declarations = declarations or ROUTE_DECLARATIONS
        super().__init__(resolve_all(declarations), faults.ERRORS,
                         lenient=True)
