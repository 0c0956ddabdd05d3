"""Schemas of /resource_providers."""

import copy

from nova_lite.placement.schemas import common

POST_SCHEMA_V1_0 = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string', 'minLength': 1, 'maxLength': 200},
        'uuid': common.UUID,
    },
    'required': ['name'],
    'additionalProperties': False,
}
POST_SCHEMA_V1_14 = copy.deepcopy(POST_SCHEMA_V1_0)
POST_SCHEMA_V1_14['properties']['parent_provider_uuid'] = {
    'anyOf': [common.UUID, {'type': 'null'}]}

PUT_SCHEMA_V1_0 = copy.deepcopy(POST_SCHEMA_V1_0)
PUT_SCHEMA_V1_0['properties'].pop('uuid')
PUT_SCHEMA_V1_14 = copy.deepcopy(POST_SCHEMA_V1_14)
PUT_SCHEMA_V1_14['properties'].pop('uuid')

_STR = {'type': 'string'}
_LIST = {'type': 'array', 'items': {'type': 'string'}}

# As Placement's: uuid and in_tree are UUIDs (checked in the handler,
# with Placement's message).
_UUID_Q = {'type': 'string', 'format': 'uuid'}
QUERY_V1_0 = common.query({'name': _STR, 'uuid': _UUID_Q})
QUERY_V1_3 = common.query({'name': _STR, 'uuid': _UUID_Q,
                           'member_of': _LIST})
QUERY_V1_4 = common.query({'name': _STR, 'uuid': _UUID_Q, 'member_of': _LIST,
                           'resources': _STR})
QUERY_V1_14 = common.query({'name': _STR, 'uuid': _UUID_Q,
                            'member_of': _LIST, 'resources': _STR,
                            'in_tree': _UUID_Q})
QUERY_V1_18 = common.query({'name': _STR, 'uuid': _UUID_Q,
                            'member_of': _LIST, 'resources': _STR,
                            'in_tree': _UUID_Q,
                            'required': _LIST})
