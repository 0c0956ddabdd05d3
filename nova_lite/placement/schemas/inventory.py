"""Schemas of /resource_providers/{uuid}/inventories."""

import copy

from nova_lite.placement.schemas import common

INVENTORY_FIELDS = {
    'total': common.POSITIVE,
    'reserved': common.NON_NEGATIVE,
    'min_unit': common.POSITIVE,
    'max_unit': common.POSITIVE,
    'step_size': common.POSITIVE,
    'allocation_ratio': {'type': 'number', 'maximum': 3.40282e+38},
}

ONE_INVENTORY = {
    'type': 'object',
    'properties': INVENTORY_FIELDS,
    'required': ['total'],
    'additionalProperties': False,
}

PUT_ONE_SCHEMA = copy.deepcopy(ONE_INVENTORY)
PUT_ONE_SCHEMA['properties']['resource_provider_generation'] = (
    common.ANY_GENERATION)
PUT_ONE_SCHEMA['required'] = ['total', 'resource_provider_generation']

POST_SCHEMA = copy.deepcopy(PUT_ONE_SCHEMA)
POST_SCHEMA['properties']['resource_class'] = common.RC_NAME
POST_SCHEMA['required'] = ['total', 'resource_class']

PUT_ALL_SCHEMA = {
    'type': 'object',
    'properties': {
        'resource_provider_generation': common.ANY_GENERATION,
        'inventories': {
            'type': 'object',
            'patternProperties': {'^[A-Z0-9_]+$': ONE_INVENTORY},
            'additionalProperties': False,
        },
    },
    'required': ['resource_provider_generation', 'inventories'],
    'additionalProperties': False,
}
