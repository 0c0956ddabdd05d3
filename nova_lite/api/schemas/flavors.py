"""Schemas of flavors, flavor access and flavor extra specs."""

import copy

from nova_lite.api.schemas import common

FLAVOR_ID = {'type': ['string', 'integer', 'null'], 'minLength': 1,
             'maxLength': 255, 'pattern': r'^(?! )[a-zA-Z0-9. _-]+(?<! )$',
             'minimum': 0}

_FLAVOR = {
    'name': common.NAME,
    'id': FLAVOR_ID,
    'ram': common.POSITIVE_INT,
    'vcpus': common.POSITIVE_INT,
    'disk': common.NON_NEGATIVE_INT,
    'OS-FLV-EXT-DATA:ephemeral': common.NON_NEGATIVE_INT,
    'swap': common.NON_NEGATIVE_INT,
    'rxtx_factor': {'type': ['number', 'string'],
                    'pattern': r'^[0-9]+(\.[0-9]+)?$',
                    'minimum': 0, 'exclusiveMinimum': 0,
                    'maximum': 3.40282e+38},
    'os-flavor-access:is_public': common.BOOLEAN,
}

CREATE = common.wrapped('flavor', common.obj(
    _FLAVOR, required=['name', 'ram', 'vcpus', 'disk']))

_FLAVOR_V2_55 = dict(_FLAVOR, description=common.DESCRIPTION)
CREATE_V2_55 = common.wrapped('flavor', common.obj(
    _FLAVOR_V2_55, required=['name', 'ram', 'vcpus', 'disk']))

UPDATE_V2_55 = common.wrapped('flavor', common.obj(
    {'description': common.DESCRIPTION}, required=['description']))

_TENANT = common.obj({'tenant': {'type': 'string', 'minLength': 1,
                                 'maxLength': 255,
                                 'pattern': r'^[a-zA-Z0-9_.:-]+$'}},
                     required=['tenant'])
ACTION = {
    'type': 'object',
    'properties': {'addTenantAccess': _TENANT,
                   'removeTenantAccess': _TENANT},
    'minProperties': 1, 'maxProperties': 1,
    'additionalProperties': False,
}

SPEC_KEY = {'type': 'string', 'minLength': 1, 'maxLength': 255,
            'pattern': r'^[a-zA-Z0-9-_:. ]+$'}
SPEC_VALUE = {'type': ['string', 'number', 'boolean'], 'maxLength': 255}

EXTRA_SPECS_CREATE = common.wrapped('extra_specs', {
    'type': 'object', 'minProperties': 1,
    'patternProperties': {r'^[a-zA-Z0-9-_:. ]{1,255}$': SPEC_VALUE},
    'additionalProperties': False})

EXTRA_SPEC_UPDATE = {
    'type': 'object', 'minProperties': 1, 'maxProperties': 1,
    'patternProperties': {r'^[a-zA-Z0-9-_:. ]{1,255}$': SPEC_VALUE},
    'additionalProperties': False}

LIST_QUERY = {
    'type': 'object',
    'properties': {
        'is_public': {'type': 'string'},
        'minRam': {'type': 'string', 'pattern': r'^[0-9]+$'},
        'minDisk': {'type': 'string', 'pattern': r'^[0-9]+$'},
        'limit': {'type': 'string', 'pattern': r'^[0-9]+$'},
        'marker': {'type': 'string'},
        'sort_key': {'enum': ['created_at', 'description', 'disabled',
                              'ephemeral_gb', 'flavorid', 'id',
                              'is_public', 'memory_mb', 'name', 'root_gb',
                              'rxtx_factor', 'swap', 'updated_at',
                              'vcpu_weight', 'vcpus']},
        'sort_dir': {'enum': ['asc', 'desc']},
    },
    'additionalProperties': True,
}

LIST_QUERY_V2_75 = copy.deepcopy(LIST_QUERY)
LIST_QUERY_V2_75['additionalProperties'] = False
