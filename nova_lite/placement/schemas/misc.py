"""Schemas of traits, resource classes, aggregates and usages."""

from nova_lite.placement.schemas import common

_STR = {'type': 'string'}

RC_POST_SCHEMA = {
    'type': 'object',
    'properties': {'name': common.CUSTOM_NAME},
    'required': ['name'],
    'additionalProperties': False,
}
RC_PUT_SCHEMA_V1_2 = RC_POST_SCHEMA

PROVIDER_TRAITS_SCHEMA = {
    'type': 'object',
    'properties': {
        'traits': {'type': 'array', 'items': common.TRAIT_NAME,
                   'uniqueItems': True},
        'resource_provider_generation': common.ANY_GENERATION,
    },
    'required': ['traits', 'resource_provider_generation'],
    'additionalProperties': False,
}

TRAITS_QUERY = common.query({'name': _STR, 'associated': _STR})

_AGG_LIST = {'type': 'array', 'items': common.UUID, 'uniqueItems': True}
AGGREGATES_SCHEMA_V1_1 = _AGG_LIST
AGGREGATES_SCHEMA_V1_19 = {
    'type': 'object',
    'properties': {'aggregates': _AGG_LIST,
                   'resource_provider_generation': common.ANY_GENERATION},
    'required': ['aggregates', 'resource_provider_generation'],
    'additionalProperties': False,
}

USAGES_QUERY_V1_9 = {
    'type': 'object',
    'properties': {'project_id': common.EXTERNAL_ID,
                   'user_id': common.EXTERNAL_ID},
    'required': ['project_id'],
    'additionalProperties': False,
}
USAGES_QUERY_V1_38 = {
    'type': 'object',
    'properties': {'project_id': common.EXTERNAL_ID,
                   'user_id': common.EXTERNAL_ID,
                   # a type's name, or 'all' or 'unknown' (Placement's
                   # unanchored alternatives: only the first is whole)
                   'consumer_type': {
                       'type': 'string',
                       'pattern': '^[A-Z0-9_]+$|^all|^unknown$'}},
    'required': ['project_id'],
    'additionalProperties': False,
}
EMPTY_QUERY = common.query({})
# GET /nova_lite/capacity: ``uuids`` is a comma-separated list.
CAPACITY_QUERY = common.query({
    'uuids': {'type': 'string',
              'pattern': '^[0-9a-fA-F-]{32,36}(,[0-9a-fA-F-]{32,36})*$'}})
