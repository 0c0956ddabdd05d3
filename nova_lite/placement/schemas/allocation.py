"""Schemas of /allocations and /allocations/{consumer_uuid}."""

import copy

from nova_lite.placement.schemas import common

RESOURCES = {
    'type': 'object',
    'minProperties': 1,
    'patternProperties': {'^[A-Z0-9_]+$': common.POSITIVE},
    'additionalProperties': False,
}

# Before 1.12: a list of {resource_provider: {uuid}, resources}.
PUT_SCHEMA_V1_0 = {
    'type': 'object',
    'properties': {
        'allocations': {
            'type': 'array',
            'minItems': 1,
            'items': {
                'type': 'object',
                'properties': {
                    'resource_provider': {
                        'type': 'object',
                        'properties': {'uuid': common.UUID},
                        'required': ['uuid'],
                        'additionalProperties': False,
                    },
                    'resources': RESOURCES,
                },
                'required': ['resource_provider', 'resources'],
                'additionalProperties': False,
            },
        },
    },
    'required': ['allocations'],
    'additionalProperties': False,
}
PUT_SCHEMA_V1_8 = copy.deepcopy(PUT_SCHEMA_V1_0)
PUT_SCHEMA_V1_8['properties'].update(project_id=common.EXTERNAL_ID,
                                     user_id=common.EXTERNAL_ID)
PUT_SCHEMA_V1_8['required'] += ['project_id', 'user_id']

_DICT_ALLOCATIONS = {
    'type': 'object',
    'minProperties': 1,
    'patternProperties': {
        '^[0-9a-fA-F-]{32,36}$': {
            'type': 'object',
            'properties': {'resources': RESOURCES,
                           'generation': {}},
            'required': ['resources'],
            'additionalProperties': False,
        },
    },
    'additionalProperties': False,
}

# 1.12+: a dict keyed by provider uuid.
PUT_SCHEMA_V1_12 = {
    'type': 'object',
    'properties': {
        'allocations': _DICT_ALLOCATIONS,
        'project_id': common.EXTERNAL_ID,
        'user_id': common.EXTERNAL_ID,
    },
    'required': ['allocations', 'project_id', 'user_id'],
    'additionalProperties': False,
}
PUT_SCHEMA_V1_28 = copy.deepcopy(PUT_SCHEMA_V1_12)
PUT_SCHEMA_V1_28['properties']['allocations'].pop('minProperties')
PUT_SCHEMA_V1_28['properties']['consumer_generation'] = {
    'anyOf': [common.GENERATION, {'type': 'null'}]}
PUT_SCHEMA_V1_28['required'].append('consumer_generation')
# 1.34: the candidate's ``mappings`` (request group suffix -> provider
# uuids) may be sent back; Placement checks its form and keeps nothing. The
# key pattern is unanchored there, so only keys with such a character are
# checked (the unsuffixed group's '' is not).
MAPPINGS = {
    'type': 'object',
    'minProperties': 1,
    'patternProperties': {
        '[a-zA-Z0-9_-]{1,64}': {
            'type': 'array',
            'minItems': 1,
            'items': {'type': 'string', 'format': 'uuid'},
        },
    },
}
PUT_SCHEMA_V1_34 = copy.deepcopy(PUT_SCHEMA_V1_28)
PUT_SCHEMA_V1_34['properties']['mappings'] = MAPPINGS
PUT_SCHEMA_V1_38 = copy.deepcopy(PUT_SCHEMA_V1_34)
PUT_SCHEMA_V1_38['properties']['consumer_type'] = {
    'type': 'string', 'pattern': '^[A-Z0-9_]+$', 'minLength': 1,
    'maxLength': 255}
PUT_SCHEMA_V1_38['required'].append('consumer_type')


def _post(put_schema):
    one = copy.deepcopy(put_schema)
    one['properties']['allocations'].pop('minProperties', None)
    return {
        'type': 'object',
        'minProperties': 1,
        'patternProperties': {'^[0-9a-fA-F-]{32,36}$': one},
        'additionalProperties': False,
    }


POST_SCHEMA_V1_13 = _post(PUT_SCHEMA_V1_12)
POST_SCHEMA_V1_28 = _post(PUT_SCHEMA_V1_28)
POST_SCHEMA_V1_34 = _post(PUT_SCHEMA_V1_34)
POST_SCHEMA_V1_38 = _post(PUT_SCHEMA_V1_38)
