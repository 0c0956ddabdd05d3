"""Schemas of POST /reshaper (1.30; ``mappings`` 1.34; ``consumer_type``
1.38)."""

import copy

from nova_lite.placement.schemas import allocation
from nova_lite.placement.schemas import common
from nova_lite.placement.schemas import inventory

_UUID_KEY = '^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?' \
            '[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$'

_INVENTORIES = {
    'type': 'object',
    'patternProperties': {
        _UUID_KEY: {
            'type': 'object',
            'properties': {
                'resource_provider_generation': common.GENERATION,
                'inventories': inventory.PUT_ALL_SCHEMA['properties'][
                    'inventories'],
            },
            'required': ['resource_provider_generation', 'inventories'],
            'additionalProperties': False,
        },
    },
    # As in Placement: a reshape names at least one provider's inventories.
    'minProperties': 1,
    'additionalProperties': False,
}

_MAPPINGS = {
    'type': 'object',
    'patternProperties': {
        '^.{0,64}$': {'type': 'array', 'items': common.UUID,
                      'minItems': 1},
    },
    'additionalProperties': False,
}


def _allocations(post_schema, with_mappings=False):
    result = copy.deepcopy(post_schema)
    result.pop('minProperties', None)
    if with_mappings:
        for one in result['patternProperties'].values():
            one['properties']['mappings'] = _MAPPINGS
    return result


def _body(allocations):
    return {
        'type': 'object',
        'properties': {'inventories': _INVENTORIES,
                       'allocations': allocations},
        'required': ['inventories', 'allocations'],
        'additionalProperties': False,
    }


POST_RESHAPER_SCHEMA_V1_30 = _body(_allocations(
    allocation.POST_SCHEMA_V1_28))
POST_RESHAPER_SCHEMA_V1_34 = _body(_allocations(
    allocation.POST_SCHEMA_V1_28, with_mappings=True))
POST_RESHAPER_SCHEMA_V1_38 = _body(_allocations(
    allocation.POST_SCHEMA_V1_38, with_mappings=True))
