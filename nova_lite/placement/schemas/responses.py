"""Schemas of placement's response bodies, where written so far.

The OpenAPI document (:mod:`nova_lite.placement.openapi`) serves them and
the functional tests check every response they see against them; a
response without one is listed as such in the document (doc/openapi.md).
A function of ``want`` is a schema that changes with the microversion.
"""

import copy

from nova_lite.placement.schemas import common
from nova_lite.placement.schemas import inventory

_NAMES = {'type': 'array', 'items': {'type': 'string'}}
_LINKS = {'type': 'array', 'items': {
    'type': 'object', 'properties': {
        'rel': {'type': 'string'}, 'href': {'type': 'string'}},
    'required': ['rel', 'href'], 'additionalProperties': False}}
_UUID = {'type': 'string', 'format': 'uuid'}
_USAGES = {'type': 'object', 'additionalProperties': {
    'type': 'integer', 'minimum': 0}}

VERSIONS = {
    'type': 'object',
    'properties': {'versions': {'type': 'array', 'items': {
        'type': 'object',
        'properties': {'id': {'type': 'string'},
                       'min_version': {'type': 'string'},
                       'max_version': {'type': 'string'},
                       'status': {'type': 'string'},
                       'links': _LINKS},
        'required': ['id', 'min_version', 'max_version', 'status',
                     'links'],
        'additionalProperties': False}}},
    'required': ['versions'], 'additionalProperties': False}

RESOURCE_CLASS = {
    'type': 'object',
    'properties': {'name': common.RC_NAME, 'links': _LINKS},
    'required': ['name', 'links'], 'additionalProperties': False}
RESOURCE_CLASSES = {
    'type': 'object',
    'properties': {'resource_classes': {'type': 'array',
                                        'items': RESOURCE_CLASS}},
    'required': ['resource_classes'], 'additionalProperties': False}

_PROVIDER_V1_0 = {
    'type': 'object',
    'properties': {'uuid': _UUID, 'name': {'type': 'string'},
                   'generation': common.GENERATION, 'links': _LINKS},
    'required': ['uuid', 'name', 'generation', 'links'],
    'additionalProperties': False}
_PROVIDER_V1_14 = copy.deepcopy(_PROVIDER_V1_0)
_PROVIDER_V1_14['properties'].update({
    'parent_provider_uuid': {'anyOf': [_UUID, {'type': 'null'}]},
    'root_provider_uuid': _UUID})
_PROVIDER_V1_14['required'] += ['parent_provider_uuid',
                                'root_provider_uuid']


def provider(want):
    return _PROVIDER_V1_14 if want >= (1, 14) else _PROVIDER_V1_0


_PROVIDERS = {v: {'type': 'object',
                  'properties': {'resource_providers': {
                      'type': 'array', 'items': provider(v)}},
                  'required': ['resource_providers'],
                  'additionalProperties': False}
              for v in ((1, 0), (1, 14))}


def providers(want):
    return _PROVIDERS[(1, 14) if want >= (1, 14) else (1, 0)]


_INVENTORY = {'type': 'object', 'properties': inventory.INVENTORY_FIELDS,
              'required': sorted(inventory.INVENTORY_FIELDS),
              'additionalProperties': False}
INVENTORY = copy.deepcopy(_INVENTORY)
INVENTORY['properties']['resource_provider_generation'] = common.GENERATION
INVENTORY['required'].append('resource_provider_generation')
INVENTORIES = {
    'type': 'object',
    'properties': {'resource_provider_generation': common.GENERATION,
                   'inventories': {'type': 'object',
                                   'additionalProperties': _INVENTORY}},
    'required': ['resource_provider_generation', 'inventories'],
    'additionalProperties': False}

PROVIDER_USAGES = {
    'type': 'object',
    'properties': {'resource_provider_generation': common.GENERATION,
                   'usages': _USAGES},
    'required': ['resource_provider_generation', 'usages'],
    'additionalProperties': False}

TRAITS = {'type': 'object', 'properties': {'traits': _NAMES},
          'required': ['traits'], 'additionalProperties': False}
PROVIDER_TRAITS = {
    'type': 'object',
    'properties': {'traits': _NAMES,
                   'resource_provider_generation': common.GENERATION},
    'required': ['traits', 'resource_provider_generation'],
    'additionalProperties': False}

_AGGREGATES_V1_1 = {
    'type': 'object',
    'properties': {'aggregates': {'type': 'array', 'items': _UUID}},
    'required': ['aggregates'], 'additionalProperties': False}
_AGGREGATES_V1_19 = copy.deepcopy(_AGGREGATES_V1_1)
_AGGREGATES_V1_19['properties']['resource_provider_generation'] = (
    common.GENERATION)
_AGGREGATES_V1_19['required'].append('resource_provider_generation')


def aggregates(want):
    return _AGGREGATES_V1_19 if want >= (1, 19) else _AGGREGATES_V1_1


ERROR = {
    'type': 'object',
    'properties': {'errors': {'type': 'array', 'minItems': 1, 'items': {
        'type': 'object',
        'properties': {'status': {'type': 'integer'},
                       'title': {'type': 'string'},
                       'detail': {'type': 'string'},
                       'request_id': {'type': ['string', 'null']},
                       'code': {'type': 'string'},
                       'min_version': {'type': 'string'},
                       'max_version': {'type': 'string'}},
        'required': ['status', 'title', 'detail', 'request_id'],
        'additionalProperties': False}}},
    'required': ['errors'], 'additionalProperties': False}


# GET /allocations/{consumer_uuid}: project_id and user_id from 1.12,
# consumer_generation from 1.28 (null for a consumer with none),
# consumer_type from 1.38, each when the consumer has allocations.
CONSUMER_ALLOCATIONS = {
    'type': 'object',
    'properties': {
        'allocations': {'type': 'object', 'additionalProperties': {
            'type': 'object',
            'properties': {'resources': _USAGES,
                           'generation': common.GENERATION},
            'required': ['resources']}},
        'project_id': {'type': 'string'},
        'user_id': {'type': 'string'},
        'consumer_generation': {'type': ['integer', 'null']},
        'consumer_type': {'type': 'string'}},
    'required': ['allocations']}

PROVIDER_ALLOCATIONS = {
    'type': 'object',
    'properties': {
        'allocations': {'type': 'object', 'additionalProperties': {
            'type': 'object', 'properties': {'resources': _USAGES},
            'required': ['resources']}},
        'resource_provider_generation': common.GENERATION},
    'required': ['allocations', 'resource_provider_generation'],
    'additionalProperties': False}

# GET /usages: {rc: used}; from 1.38 {consumer type: {consumer_count,
# rc: used}} (with "all" and "unknown").
TOTAL_USAGES = {
    'type': 'object',
    'properties': {'usages': {'type': 'object', 'additionalProperties': {
        'type': ['integer', 'object']}}},
    'required': ['usages'], 'additionalProperties': False}

# GET /allocation_candidates: each request's allocations are a list of
# {resource_provider, resources} before 1.12, an object by provider from
# it; mappings from 1.34.
ALLOCATION_CANDIDATES = {
    'type': 'object',
    'properties': {
        'allocation_requests': {'type': 'array', 'items': {
            'type': 'object',
            'properties': {'allocations': {'type': ['object', 'array']},
                           'mappings': {'type': 'object'}},
            'required': ['allocations']}},
        'provider_summaries': {'type': 'object', 'additionalProperties': {
            'type': 'object', 'properties': {
                'resources': {'type': 'object'},
                'traits': _NAMES,
                'parent_provider_uuid': {'type': ['string', 'null']},
                'root_provider_uuid': {'type': 'string'}},
            'required': ['resources']}}},
    'required': ['allocation_requests', 'provider_summaries'],
    'additionalProperties': False}

# nova_lite's own capacity reads (the dashboard's).
CAPACITY = {
    'type': 'object',
    'properties': {'resource_providers': {'type': 'array', 'items': {
        'type': 'object',
        'properties': {'uuid': _UUID, 'name': {'type': 'string'},
                       'generation': common.GENERATION,
                       'inventories': {'type': 'object'},
                       'usages': _USAGES, 'traits': _NAMES,
                       'aggregates': _NAMES},
        'required': ['uuid', 'name', 'generation']}}},
    'required': ['resource_providers'], 'additionalProperties': False}
CAPACITY_USAGES = {
    'type': 'object',
    'properties': {'usages': {'type': 'array', 'items': {
        'type': 'array', 'minItems': 3, 'maxItems': 3,
        'description': '[provider uuid, its generation, {rc: used}]'}}},
    'required': ['usages'], 'additionalProperties': False}
FINGERPRINT = {
    'type': 'object', 'properties': {'fingerprint': {'type': 'string'}},
    'required': ['fingerprint'], 'additionalProperties': False}
