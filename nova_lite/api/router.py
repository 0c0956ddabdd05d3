"""The compute API route table and the dispatcher.

``ROUTE_DECLARATIONS`` is the whole API: path -> {method: handler
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

from nova_lite.api import faults
from nova_lite.api.handlers import aggregates
from nova_lite.api.handlers import availability_zones
from nova_lite.api.handlers import flavor_access
from nova_lite.api.handlers import flavor_extra_specs
from nova_lite.api.handlers import flavors
from nova_lite.api.handlers import hosts
from nova_lite.api.handlers import hypervisors
from nova_lite.api.handlers import image_data
from nova_lite.api.handlers import image_members
from nova_lite.api.handlers import images
from nova_lite.api.handlers import instance_actions
from nova_lite.api.handlers import keypairs
from nova_lite.api.handlers import limits
from nova_lite.api.handlers import migrations
from nova_lite.api.handlers import quota_sets
from nova_lite.api.handlers import server_actions
from nova_lite.api.handlers import server_groups
from nova_lite.api.handlers import server_migrations
from nova_lite.api.handlers import servers
from nova_lite.api.handlers import services
from nova_lite.api.handlers import versions
from nova_lite.wsgi import router as wsgi_router


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
    V + '/os-hosts/{host_name}': {'GET': hosts.show_host},
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
    # -- the Image API v2 (handlers/images.py, image_data, image_members) --
    # NOTE(nova_lite): list and show also under /v2.1/images, where the
    # OpenStack clients look for images when a cloud's catch-all endpoint
    # is the compute URL (no image_endpoint_override).
    V + '/images': {'GET': images.list_images},
    V + '/images/{image_id}': {'GET': images.show_image},
    '/image': {'GET': images.versions},
    '/image/versions': {'GET': images.versions},
    '/image/v2/images': {'GET': images.list_images,
                         'POST': images.create_image},
    '/image/v2/images/{image_id}': {'GET': images.show_image,
                                    'PATCH': images.update_image,
                                    'DELETE': images.delete_image},
    '/image/v2/images/{image_id}/file': {'GET': image_data.download,
                                         'PUT': image_data.upload},
    '/image/v2/images/{image_id}/tags/{tag}': {
        'PUT': images.add_tag, 'DELETE': images.delete_tag},
    '/image/v2/images/{image_id}/members': {
        'GET': image_members.list_members,
        'POST': image_members.add_member},
    '/image/v2/images/{image_id}/members/{member_id}': {
        'GET': image_members.show_member,
        'PUT': image_members.update_member,
        'DELETE': image_members.delete_member},
}


class APIRouter(wsgi_router.Router):
    """The compute API's routes on the shared dispatcher, with Nova's
    leniency (a trailing slash ignored, HEAD served by GET); 404 and 405
    as faults."""

    def __init__(self, declarations=None):
        declarations = declarations or ROUTE_DECLARATIONS
        super().__init__(declarations, faults.ERRORS, lenient=True)
