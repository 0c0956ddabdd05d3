"""The compute API route table and the dispatcher.

``ROUTE_DECLARATIONS`` is the whole compute API: path -> {method: handler
function}, the functions of the modules of ``nova_lite.api.handlers``
imported above it, so the import graph shows every handler and a typo
fails at import. Paths carry no regexes, so a malformed id reaches its
handler, which answers 400 or 404 itself; a known path with an unknown
method is a 405 with ``Allow``; an unknown path is a 404.

Adding a resource: write ``handlers/<resource>.py`` (functions taking a
``webob.Request``, see ``nova_lite.api.util``), import it here and list
its paths (the more specific literal paths such as ``/servers/detail``
before ``/servers/{server_id}``), add its policy rules to ``policies/``.
"""

import re

import webob.exc

from nova_lite.api import faults
from nova_lite.api.handlers import aggregates
from nova_lite.api.handlers import availability_zones
from nova_lite.api.handlers import compute_images
from nova_lite.api.handlers import extensions
from nova_lite.api.handlers import flavor_access
from nova_lite.api.handlers import flavor_extra_specs
from nova_lite.api.handlers import flavors
from nova_lite.api.handlers import floating_ips
from nova_lite.api.handlers import hosts
from nova_lite.api.handlers import hypervisors
from nova_lite.api.handlers import instance_actions
from nova_lite.api.handlers import instance_usage_audit_log
from nova_lite.api.handlers import keypairs
from nova_lite.api.handlers import limits
from nova_lite.api.handlers import migrations
from nova_lite.api.handlers import networks
from nova_lite.api.handlers import quota_class_sets
from nova_lite.api.handlers import quota_sets
from nova_lite.api.handlers import security_groups
from nova_lite.api.handlers import server_actions
from nova_lite.api.handlers import server_diagnostics
from nova_lite.api.handlers import server_external_events
from nova_lite.api.handlers import server_groups
from nova_lite.api.handlers import server_ips
from nova_lite.api.handlers import server_metadata
from nova_lite.api.handlers import server_migrations
from nova_lite.api.handlers import server_password
from nova_lite.api.handlers import server_tags
from nova_lite.api.handlers import server_topology
from nova_lite.api.handlers import servers
from nova_lite.api.handlers import services
from nova_lite.api.handlers import simple_tenant_usage
from nova_lite.api.handlers import versions
from nova_lite.api import openapi
from nova_lite.api import util
from nova_lite.wsgi import openapi as wsgi_openapi
from nova_lite.wsgi import router as wsgi_router
from nova_lite.wsgi import util as wsgi_util


V = '/v2.1'

ROUTE_DECLARATIONS = {
    '/': {'GET': versions.root},
    V: {'GET': versions.v21},
    # -- servers (handlers/servers.py, handlers/server_actions.py) ------
    V + '/servers': {'GET': servers.list_servers,
                     'POST': servers.create_server},
    V + '/servers/detail': {'GET': servers.list_servers_detail},
    V + '/servers/{server_id}': {'GET': servers.show_server,
                                 'PUT': servers.update_server,
                                 'DELETE': servers.delete_server},
    V + '/servers/{server_id}/action': {
        'POST': server_actions.server_action},
    # -- server sub-resources -------------------------------------------
    V + '/servers/{server_id}/os-instance-actions': {
        'GET': instance_actions.list_actions},
    V + '/servers/{server_id}/os-instance-actions/{request_id}': {
        'GET': instance_actions.show_action},
    V + '/servers/{server_id}/migrations': {
        'GET': server_migrations.list_server_migrations},
    V + '/servers/{server_id}/migrations/{migration_id}': {
        'GET': server_migrations.show_server_migration,
        'DELETE': server_migrations.delete_server_migration},
    V + '/servers/{server_id}/migrations/{migration_id}/action': {
        'POST': server_migrations.server_migration_action},
    # -- metadata, tags, password (handlers/server_*.py) -----------------
    V + '/servers/{server_id}/metadata': {
        'GET': server_metadata.list_metadata,
        'POST': server_metadata.update_metadata,
        'PUT': server_metadata.replace_metadata},
    V + '/servers/{server_id}/metadata/{key}': {
        'GET': server_metadata.show_item,
        'PUT': server_metadata.update_item,
        'DELETE': server_metadata.delete_item},
    V + '/servers/{server_id}/tags': {
        'GET': server_tags.list_tags,
        'PUT': server_tags.replace_tags,
        'DELETE': server_tags.delete_tags},
    V + '/servers/{server_id}/tags/{tag}': {
        'GET': server_tags.check_tag,
        'PUT': server_tags.add_tag,
        'DELETE': server_tags.delete_tag},
    V + '/servers/{server_id}/os-server-password': {
        'GET': server_password.show_password,
        'DELETE': server_password.clear_password},
    V + '/servers/{server_id}/diagnostics': {
        'GET': server_diagnostics.show_diagnostics},
    V + '/servers/{server_id}/topology': {
        'GET': server_topology.show_topology},
    V + '/os-server-external-events': {
        'POST': server_external_events.create_events},
    V + '/extensions': {'GET': extensions.list_extensions},
    V + '/extensions/{alias}': {'GET': extensions.show_extension},
    # -- network proxies (handlers/networks.py): no network service ------
    V + '/os-networks': {'GET': networks.list_networks,
                         'POST': networks.create_network},
    V + '/os-networks/add': {'POST': networks.create_network},
    V + '/os-networks/{network_id}': {'GET': networks.show_network,
                                      'DELETE': networks.delete_network},
    V + '/os-networks/{network_id}/action': {
        'POST': networks.network_action},
    V + '/os-tenant-networks': {'GET': networks.list_tenant_networks,
                                'POST': networks.create_network},
    # -- security group proxies (handlers/security_groups.py) -------------
    V + '/os-security-groups': {'GET': security_groups.list_groups,
                                'POST': security_groups.create_group},
    V + '/os-security-groups/{group_id}': {
        'GET': security_groups.show_group,
        'PUT': security_groups.update_group,
        'DELETE': security_groups.delete_group},
    V + '/os-security-group-rules': {'POST': security_groups.create_rule},
    V + '/os-security-group-rules/{rule_id}': {
        'DELETE': security_groups.delete_rule},
    V + '/os-floating-ips': {'GET': floating_ips.list_floating_ips,
                             'POST': floating_ips.create_floating_ip},
    V + '/os-floating-ips/{floating_ip_id}': {
        'GET': floating_ips.show_floating_ip,
        'DELETE': floating_ips.delete_floating_ip},
    V + '/os-floating-ip-pools': {'GET': floating_ips.list_pools},
    V + '/servers/{server_id}/ips': {'GET': server_ips.list_ips},
    V + '/servers/{server_id}/ips/{network_label}': {
        'GET': server_ips.show_ips},
    V + '/servers/{server_id}/os-interface': {
        'GET': server_ips.list_interfaces,
        'POST': server_ips.create_interface},
    V + '/servers/{server_id}/os-interface/{port_id}': {
        'GET': server_ips.show_interface,
        'DELETE': server_ips.delete_interface},
    V + '/servers/{server_id}/os-security-groups': {
        'GET': security_groups.server_groups},
    V + '/os-tenant-networks/{network_id}': {
        'GET': networks.show_tenant_network,
        'DELETE': networks.delete_network},
    # -- flavors ----------------------------------------------------------
    V + '/flavors': {'GET': flavors.list_flavors,
                     'POST': flavors.create_flavor},
    V + '/flavors/detail': {'GET': flavors.list_flavors_detail},
    V + '/flavors/{flavor_id}': {'GET': flavors.show_flavor,
                                 'PUT': flavors.update_flavor,
                                 'DELETE': flavors.delete_flavor},
    V + '/flavors/{flavor_id}/action': {
        'POST': flavor_access.flavor_action},
    V + '/flavors/{flavor_id}/os-flavor-access': {
        'GET': flavor_access.list_flavor_access},
    V + '/flavors/{flavor_id}/os-extra_specs': {
        'GET': flavor_extra_specs.list_extra_specs,
        'POST': flavor_extra_specs.create_extra_specs},
    V + '/flavors/{flavor_id}/os-extra_specs/{key}': {
        'GET': flavor_extra_specs.show_extra_spec,
        'PUT': flavor_extra_specs.update_extra_spec,
        'DELETE': flavor_extra_specs.delete_extra_spec},
    # -- key pairs, zones, aggregates, server groups ------------------------
    V + '/os-keypairs': {'GET': keypairs.list_keypairs,
                         'POST': keypairs.create_keypair},
    V + '/os-keypairs/{name}': {'GET': keypairs.show_keypair,
                                'DELETE': keypairs.delete_keypair},
    V + '/os-availability-zone': {
        'GET': availability_zones.list_zones},
    V + '/os-availability-zone/detail': {
        'GET': availability_zones.list_zones_detail},
    V + '/os-aggregates': {'GET': aggregates.list_aggregates,
                           'POST': aggregates.create_aggregate},
    V + '/os-aggregates/{aggregate_id}': {
        'GET': aggregates.show_aggregate,
        'PUT': aggregates.update_aggregate,
        'DELETE': aggregates.delete_aggregate},
    V + '/os-aggregates/{aggregate_id}/action': {
        'POST': aggregates.aggregate_action},
    V + '/os-server-groups': {'GET': server_groups.list_server_groups,
                              'POST': server_groups.create_server_group},
    V + '/os-server-groups/{group_id}': {
        'GET': server_groups.show_server_group,
        'DELETE': server_groups.delete_server_group},
    # -- admin: services, hypervisors, hosts, migrations --------------------
    V + '/os-services': {'GET': services.list_services},
    V + '/os-services/{service_id}': {
        'PUT': services.update_service,
        'DELETE': services.delete_service},
    V + '/os-hypervisors': {'GET': hypervisors.list_hypervisors},
    V + '/os-hypervisors/detail': {
        'GET': hypervisors.list_hypervisors_detail},
    V + '/os-hypervisors/statistics': {
        'GET': hypervisors.hypervisor_statistics},
    V + '/os-hypervisors/{hypervisor_id}': {
        'GET': hypervisors.show_hypervisor},
    V + '/os-hypervisors/{hypervisor_id}/uptime': {
        'GET': hypervisors.hypervisor_uptime},
    V + '/os-hypervisors/{hostname_pattern}/search': {
        'GET': hypervisors.search_hypervisors},
    V + '/os-hypervisors/{hostname_pattern}/servers': {
        'GET': hypervisors.hypervisor_servers},
    V + '/os-hosts': {'GET': hosts.list_hosts},
    V + '/os-hosts/{host_name}': {'GET': hosts.show_host,
                                  'PUT': hosts.update_host},
    V + '/os-hosts/{host_name}/reboot': {'GET': hosts.reboot_host},
    V + '/os-hosts/{host_name}/shutdown': {'GET': hosts.shutdown_host},
    V + '/os-hosts/{host_name}/startup': {'GET': hosts.startup_host},
    V + '/os-migrations': {'GET': migrations.list_migrations},
    # -- limits and quotas ----------------------------------------------------
    V + '/limits': {'GET': limits.show_limits},
    V + '/os-quota-sets/{project_id}': {
        'GET': quota_sets.show_quota_set,
        'PUT': quota_sets.update_quota_set,
        'DELETE': quota_sets.delete_quota_set},
    V + '/os-quota-sets/{project_id}/defaults': {
        'GET': quota_sets.show_defaults},
    V + '/os-quota-sets/{project_id}/detail': {
        'GET': quota_sets.show_quota_set_detail},
    V + '/os-quota-class-sets/{class_name}': {
        'GET': quota_class_sets.show_quota_class,
        'PUT': quota_class_sets.update_quota_class},
    # -- usage (handlers/simple_tenant_usage.py, instance_usage_audit_log) --
    V + '/os-simple-tenant-usage': {
        'GET': simple_tenant_usage.list_usages},
    V + '/os-simple-tenant-usage/{tenant_id}': {
        'GET': simple_tenant_usage.show_usage},
    V + '/os-instance_usage_audit_log': {
        'GET': instance_usage_audit_log.list_audit_logs},
    V + '/os-instance_usage_audit_log/{before_timestamp}': {
        'GET': instance_usage_audit_log.show_audit_log},
    # -- the compute API's image proxy, Nova's shapes (compute_images.py) --
    V + '/images': {'GET': compute_images.list_images},
    V + '/images/detail': {'GET': compute_images.list_images_detail},
    V + '/images/{image_id}': {'GET': compute_images.show_image,
                               'DELETE': compute_images.delete_image},
    V + '/images/{image_id}/metadata': {
        'GET': compute_images.list_metadata,
        'POST': compute_images.update_metadata,
        'PUT': compute_images.replace_metadata},
    V + '/images/{image_id}/metadata/{key}': {
        'GET': compute_images.show_metadata_item,
        'PUT': compute_images.update_metadata_item,
        'DELETE': compute_images.delete_metadata_item},
}
# This table's own description (doc/openapi.md), public as the version
# documents are.
ROUTE_DECLARATIONS[openapi.PATH] = {'GET': wsgi_openapi.serving_handler(
    lambda: openapi.document(ROUTE_DECLARATIONS),
    lambda req, doc: wsgi_util.json_response(doc))}


class APIRouter(wsgi_router.Router):
    """The compute API's routes on the shared dispatcher (HEAD served by
    GET); errors as faults. nova-lite-api's deploy gives it the routes of
    the services it mounts next to the compute API too, and their error
    formats (:mod:`nova_lite.api.deploy`).

    Under ``/v2.1`` Nova's routes match a method and an exact path: a
    known path asked with another method, or with a trailing slash
    (``DELETE /images/``, ``GET /os-simple-tenant-usage/``), is a 404,
    and only the version document answers at ``/v2.1/`` too. The image
    service under ``/image`` and the network service under ``/network``
    keep Glance's and Neutron's 405 and ignore a trailing slash.

    As Nova's, every compute route is served under
    ``/v2.1/{project_id}/...`` too (a project id is hex and dashes, which
    no collection name is); a project id other than the token's is a 400.
    """

    def __init__(self, declarations=None, errors=None):
        declarations = declarations or ROUTE_DECLARATIONS
        super().__init__(declarations, errors or faults.ERRORS,
                         lenient=True)

    def _dispatch(self, req):
        project_id, rest = _url_project_id(req.path_info or '/')
        if project_id is not None:
            context = req.environ.get(util.CONTEXT_KEY)
            if context is not None and context.project_id != project_id:
                raise webob.exc.HTTPBadRequest(
                    "Malformed request URL: URL's project_id '%s' doesn't "
                    "match Context's project_id '%s'"
                    % (project_id, context.project_id))
            req.path_info = rest
        return super()._dispatch(req)

    def _path(self, req):
        path = req.path_info or '/'
        if _is_compute(path) and path != V + '/':
            return path
        return super()._path(req)

    def _handler(self, req, methods):
        try:
            return super()._handler(req, methods)
        except webob.exc.HTTPMethodNotAllowed:
            if _is_compute(req.path_info or '/'):
                raise webob.exc.HTTPNotFound(
                    'The resource could not be found.')
            raise


_PROJECT_ID = re.compile(r'^%s/([0-9a-f-]+)(/.+)$' % re.escape(V))


def _url_project_id(path):
    """(project id, path without it) of ``/v2.1/{project_id}/...``;
    (None, path) for any other path."""
    match = _PROJECT_ID.match(path)
    if match is None:
        return None, path
    return match.group(1), V + match.group(2)


def _is_compute(path):
    return path == V or path.startswith(V + '/')
