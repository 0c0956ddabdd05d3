"""Schemas of server groups (os-server-groups)."""

import copy

from nova_lite.api.schemas import common

_POLICIES = ['affinity', 'anti-affinity']
_POLICIES_V2_15 = _POLICIES + ['soft-affinity', 'soft-anti-affinity']


def _create(policies):
    return common.wrapped('server_group', common.obj({
        'name': common.NAME,
        'policies': {'type': 'array', 'minItems': 1, 'maxItems': 1,
                     'items': {'type': 'string', 'enum': policies}},
    }, required=['name', 'policies']))


CREATE = _create(_POLICIES)
CREATE_V2_15 = _create(_POLICIES_V2_15)

CREATE_V2_64 = common.wrapped('server_group', common.obj({
    'name': common.NAME,
    'policy': {'type': 'string', 'enum': _POLICIES_V2_15},
    'rules': common.obj({'max_server_per_host': {
        'type': ['integer', 'string'], 'pattern': r'^[0-9]*[1-9][0-9]*$',
        'minimum': 1, 'maximum': 2147483647}}),
}, required=['name', 'policy']))

LIST_QUERY = {
    'type': 'object',
    'properties': {
        'all_projects': {'type': 'string'},
        'limit': {'type': 'string', 'pattern': r'^[0-9]+$'},
        'offset': {'type': 'string', 'pattern': r'^[0-9]+$'},
    },
    'additionalProperties': True,
}
LIST_QUERY_V2_75 = copy.deepcopy(LIST_QUERY)
LIST_QUERY_V2_75['additionalProperties'] = False
