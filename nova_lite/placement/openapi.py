"""Placement's OpenAPI 3.1 document, made from its route table.

The paths and methods come from ``handler.ROUTE_DECLARATIONS``; the
request schemas are the ones the handlers validate with, asked of the
functions that pick them per microversion; response schemas from
:mod:`nova_lite.placement.schemas.responses` where written. Served at
``/openapi.json`` without credentials, like the version document at ``/``
(doc/openapi.md).
"""

from nova_lite.placement.handlers import aggregate
from nova_lite.placement.handlers import allocation
from nova_lite.placement.handlers import allocation_candidate
from nova_lite.placement.handlers import capacity
from nova_lite.placement.handlers import inventory
from nova_lite.placement.handlers import resource_class
from nova_lite.placement.handlers import resource_provider
from nova_lite.placement.handlers import reshaper
from nova_lite.placement.handlers import root
from nova_lite.placement.handlers import trait
from nova_lite.placement.handlers import usage
from nova_lite.placement import microversion
from nova_lite.placement.schemas import allocation_candidate as ac_schema
from nova_lite.placement.schemas import common as common_schema
from nova_lite.placement.schemas import inventory as inv_schema
from nova_lite.placement.schemas import misc
from nova_lite.placement.schemas import responses
from nova_lite.wsgi import openapi

PATH = '/openapi.json'
Op = openapi.Operation


def _at(picker):
    """A schema picker of ``want`` as one of the request."""
    return lambda req: picker(microversion.of(req))


OPERATIONS = {
    root.home: Op(responses={'200': responses.VERSIONS}),
    resource_class.list_resource_classes: Op(
        responses={'200': responses.RESOURCE_CLASSES}),
    resource_class.create_resource_class: Op(
        body=misc.RC_POST_SCHEMA, responses={'201': None}),
    resource_class.get_resource_class: Op(
        responses={'200': responses.RESOURCE_CLASS}),
    resource_class.update_resource_class: Op(
        body=_at(resource_class.update_schema),
        responses={'200': responses.RESOURCE_CLASS, '201': None,
                   '204': None}),
    resource_class.delete_resource_class: Op(responses={'204': None}),
    resource_provider.list_resource_providers: Op(
        query=_at(resource_provider.list_query_schema),
        responses={'200': _at(responses.providers)}),
    resource_provider.create_resource_provider: Op(
        body=_at(resource_provider.post_schema),
        responses={'200': _at(responses.provider), '201': None}),
    resource_provider.get_resource_provider: Op(
        responses={'200': _at(responses.provider)}),
    resource_provider.update_resource_provider: Op(
        body=_at(resource_provider.put_schema),
        responses={'200': _at(responses.provider)}),
    resource_provider.delete_resource_provider: Op(responses={'204': None}),
    inventory.get_inventories: Op(responses={'200': responses.INVENTORIES}),
    inventory.create_inventory: Op(body=inv_schema.POST_SCHEMA,
                                   responses={'201': responses.INVENTORY}),
    inventory.set_inventories: Op(body=inv_schema.PUT_ALL_SCHEMA,
                                  responses={'200': responses.INVENTORIES}),
    inventory.delete_inventories: Op(responses={'204': None}),
    inventory.get_inventory: Op(responses={'200': responses.INVENTORY}),
    inventory.update_inventory: Op(body=inv_schema.PUT_ONE_SCHEMA,
                                   responses={'200': responses.INVENTORY}),
    inventory.delete_inventory: Op(responses={'204': None}),
    usage.list_usages: Op(query=misc.EMPTY_QUERY,
                          responses={'200': responses.PROVIDER_USAGES}),
    usage.get_total_usages: Op(query=_at(usage.total_usages_query_schema),
                               responses={'200': responses.TOTAL_USAGES}),
    aggregate.get_aggregates: Op(
        responses={'200': _at(responses.aggregates)}),
    aggregate.set_aggregates: Op(
        body=_at(aggregate.body_schema),
        responses={'200': _at(responses.aggregates)}),
    trait.list_traits: Op(query=misc.TRAITS_QUERY,
                          responses={'200': responses.TRAITS}),
    trait.get_trait: Op(responses={'204': None}),
    trait.put_trait: Op(no_body=True, responses={'201': None, '204': None}),
    trait.delete_trait: Op(responses={'204': None}),
    trait.list_traits_for_resource_provider: Op(
        responses={'200': responses.PROVIDER_TRAITS}),
    trait.update_traits_for_resource_provider: Op(
        body=misc.PROVIDER_TRAITS_SCHEMA,
        responses={'200': responses.PROVIDER_TRAITS}),
    trait.delete_traits_for_resource_provider: Op(responses={'204': None}),
    allocation.set_allocations: Op(body=_at(allocation.post_schema),
                                   responses={'204': None}),
    allocation.set_allocations_for_consumer: Op(
        body=_at(allocation.put_schema), responses={'204': None}),
    allocation.delete_allocations: Op(responses={'204': None}),
    allocation_candidate.list_allocation_candidates: Op(
        query=_at(ac_schema.query_schema),
        responses={'200': responses.ALLOCATION_CANDIDATES}),
    reshaper.reshape: Op(body=_at(reshaper.body_schema),
                         responses={'204': None}),
    capacity.get_capacity: Op(query=misc.CAPACITY_QUERY,
                              responses={'200': responses.CAPACITY}),
    capacity.get_fingerprint: Op(query=misc.EMPTY_QUERY,
                                 responses={'200': responses.FINGERPRINT}),
    capacity.get_usages: Op(query=misc.EMPTY_QUERY,
                            responses={'200': responses.CAPACITY_USAGES}),
    allocation.list_for_consumer: Op(
        responses={'200': responses.CONSUMER_ALLOCATIONS}),
    allocation.list_for_resource_provider: Op(
        responses={'200': responses.PROVIDER_ALLOCATIONS}),
}


# Placement answers 400 for a consumer that is no UUID, and for a write
# of a standard (not CUSTOM_) resource class or trait.
PATH_PARAMS = {'uuid': openapi.UUID, 'consumer_uuid': openapi.UUID}
for _method in ('PUT', 'DELETE'):
    for _path in ('/resource_classes/{name}', '/traits/{name}'):
        PATH_PARAMS[(_method, _path, 'name')] = common_schema.CUSTOM_NAME


def service(routes):
    """Placement as :mod:`nova_lite.wsgi.openapi` describes it."""
    return openapi.Service(
        name='placement', title='nova_lite placement',
        description='The Placement API as nova_lite serves it, every '
                    'microversion from %s to %s (x-openstack marks what '
                    'holds for some only).' % (
                        microversion.VERSIONS[0], microversion.VERSIONS[-1]),
        routes=routes, operations=OPERATIONS,
        error_schema=responses.ERROR, public=frozenset(['/', PATH]),
        versions=tuple(microversion.VERSIONS),
        version_table=microversion.TABLE, healthcheck=True,
        path_params=PATH_PARAMS)


def document(routes):
    """Placement's document for its route table."""
    return openapi.document(service(routes))
