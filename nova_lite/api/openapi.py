"""The compute API's OpenAPI 3.1 document, made from its route table.

The paths and methods come from ``router.ROUTE_DECLARATIONS``; the request
schemas are the ones the handlers validate with, asked of the functions
that pick them per microversion (2.1 to 2.100, one document, marked the
way OpenStack's documents are: see :mod:`nova_lite.wsgi.openapi`).
Served at ``/v2.1/openapi.json`` without credentials, as the version
documents are (doc/openapi.md).
"""

from nova_lite.api.handlers import aggregates
from nova_lite.api.handlers import compute_images
from nova_lite.api.handlers import flavor_access
from nova_lite.api.handlers import flavor_extra_specs
from nova_lite.api.handlers import flavors
from nova_lite.api.handlers import floating_ips
from nova_lite.api.handlers import hosts
from nova_lite.api.handlers import hypervisors
from nova_lite.api.handlers import keypairs
from nova_lite.api.handlers import limits
from nova_lite.api.handlers import networks
from nova_lite.api.handlers import quota_class_sets
from nova_lite.api.handlers import quota_sets
from nova_lite.api.handlers import security_groups
from nova_lite.api.handlers import server_actions
from nova_lite.api.handlers import server_external_events
from nova_lite.api.handlers import server_groups
from nova_lite.api.handlers import server_ips
from nova_lite.api.handlers import server_metadata
from nova_lite.api.handlers import server_migrations
from nova_lite.api.handlers import server_tags
from nova_lite.api.handlers import servers
from nova_lite.api.handlers import services
from nova_lite.api.handlers import simple_tenant_usage
from nova_lite.api import microversion
from nova_lite.api.schemas import aggregates as aggregate_schema
from nova_lite.api.schemas import flavors as flavor_schema
from nova_lite.api.schemas import hosts as host_schema
from nova_lite.api.schemas import responses
from nova_lite.api.schemas import server_metadata as metadata_schema
from nova_lite.api.schemas import server_tags as tag_schema
from nova_lite.api.schemas import services as service_schema
from nova_lite.wsgi import microversion as wsgi_microversion
from nova_lite.wsgi import openapi

PATH = '/v2.1/openapi.json'
Op = openapi.Operation


def _action(name):
    return lambda req: server_actions.schema_for(req, name)


def _query(picker, **fixed):
    return lambda req: picker(req, **fixed)


OPERATIONS = {
    servers.list_servers: Op(query=servers.list_query_schema),
    servers.list_servers_detail: Op(query=servers.list_query_schema),
    servers.create_server: Op(body=servers.create_schema),
    servers.update_server: Op(body=servers.update_schema),
    server_actions.server_action: Op(actions={
        name: _action(name) for name in server_actions.ACTIONS}),
    server_migrations.server_migration_action: Op(
        body=server_migrations.FORCE_COMPLETE),
    server_metadata.update_metadata: Op(body=metadata_schema.SET),
    server_metadata.replace_metadata: Op(body=metadata_schema.SET),
    server_metadata.update_item: Op(body=metadata_schema.ITEM),
    server_ips.create_interface: Op(
        body=server_ips.create_interface_schema),
    server_tags.replace_tags: Op(body=tag_schema.REPLACE),
    server_tags.add_tag: Op(no_body=True),
    server_external_events.create_events: Op(
        body=server_external_events.create_schema),
    # create_network, delete_network and network_action: one function.
    networks.create_network: Op(no_body=True, responses={'410': None}),
    security_groups.create_group: Op(body=security_groups.GROUP_SCHEMA),
    security_groups.update_group: Op(body=security_groups.GROUP_SCHEMA),
    security_groups.create_rule: Op(body=security_groups.RULE_SCHEMA),
    flavors.list_flavors: Op(query=flavors.list_query_schema),
    flavors.list_flavors_detail: Op(query=flavors.list_query_schema),
    flavors.create_flavor: Op(body=flavors.create_schema),
    flavors.update_flavor: Op(body=flavor_schema.UPDATE_V2_55),
    flavor_access.flavor_action: Op(body=flavor_schema.ACTION),
    flavor_extra_specs.create_extra_specs: Op(
        body=flavor_schema.EXTRA_SPECS_CREATE),
    flavor_extra_specs.update_extra_spec: Op(
        body=flavor_schema.EXTRA_SPEC_UPDATE),
    keypairs.list_keypairs: Op(query=keypairs.list_query_schema),
    keypairs.show_keypair: Op(query=keypairs.show_query_schema),
    keypairs.delete_keypair: Op(query=keypairs.show_query_schema),
    keypairs.create_keypair: Op(body=keypairs.create_schema),
    aggregates.create_aggregate: Op(body=aggregate_schema.CREATE),
    aggregates.update_aggregate: Op(body=aggregate_schema.UPDATE),
    aggregates.aggregate_action: Op(body=aggregate_schema.ACTION),
    server_groups.list_server_groups: Op(
        query=server_groups.list_query_schema),
    server_groups.create_server_group: Op(
        body=server_groups.create_schema),
    services.list_services: Op(query=service_schema.LIST_QUERY),
    services.update_service: Op(body=services.update_schema),
    hypervisors.list_hypervisors: Op(query=hypervisors.list_query_schema),
    hypervisors.list_hypervisors_detail: Op(
        query=hypervisors.list_query_schema),
    hypervisors.show_hypervisor: Op(query=hypervisors.show_query_schema),
    hosts.update_host: Op(body=host_schema.UPDATE),
    limits.show_limits: Op(query=limits.query_schema),
    quota_sets.show_quota_set: Op(query=quota_sets.QUERY),
    quota_sets.show_quota_set_detail: Op(query=quota_sets.QUERY),
    quota_sets.update_quota_set: Op(query=quota_sets.QUERY,
                                    body=quota_sets.update_schema),
    quota_sets.delete_quota_set: Op(query=quota_sets.QUERY),
    quota_class_sets.update_quota_class: Op(
        body=quota_class_sets.update_schema),
    simple_tenant_usage.list_usages: Op(query=_query(
        simple_tenant_usage.query_schema, index=True)),
    simple_tenant_usage.show_usage: Op(query=_query(
        simple_tenant_usage.query_schema, index=False)),
    compute_images.update_metadata: Op(body=metadata_schema.SET),
    compute_images.replace_metadata: Op(body=metadata_schema.SET),
    compute_images.update_metadata_item: Op(body=metadata_schema.ITEM),
    floating_ips.create_floating_ip: Op(body={
        'type': ['object', 'null'],
        'description': 'An optional {"pool": name}; read in code.'}),
}


def _uuid_from_2_53(req):
    """Hypervisors and services are named by UUID from 2.53 (400 for
    anything else), by their integer id before."""
    if microversion.at_least(req, '2.53'):
        return openapi.UUID
    return {'type': 'string'}


PATH_PARAMS = {
    'aggregate_id': {'type': 'integer', 'minimum': 0},
    'hypervisor_id': _uuid_from_2_53,
    'service_id': _uuid_from_2_53,
}


def service(routes):
    """The compute API as :mod:`nova_lite.wsgi.openapi` describes it."""
    text = wsgi_microversion.format_version
    return openapi.Service(
        name='compute', title='nova_lite compute API',
        description='The compute API as nova_lite serves it, every '
                    'microversion from %s to %s (x-openstack marks what '
                    'holds for some only). Every path under /v2.1 is '
                    'served under /v2.1/{project_id} too, and HEAD is '
                    'answered as GET.' % (text(microversion.MIN_VERSION),
                                          text(microversion.MAX_VERSION)),
        routes=routes, operations=OPERATIONS, error_schema=openapi.FAULT,
        public=frozenset(['/', '/v2.1', PATH]),
        versions=openapi.versions_between(text(microversion.MIN_VERSION),
                                          text(microversion.MAX_VERSION)),
        version_table=microversion.TABLE, tag_depth=1, healthcheck=True,
        responses=responses.RESPONSES, path_params=PATH_PARAMS)


def document(routes):
    """The compute API's document for its route table."""
    return openapi.document(service(routes))
