"""Schemas of key pairs (os-keypairs)."""

import copy

from nova_lite.api.schemas import common

_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255,
         'pattern': r'^[a-zA-Z0-9 _-]+$'}
_NAME_V2_92 = {'type': 'string', 'minLength': 1, 'maxLength': 255,
               'pattern': r'^[a-zA-Z0-9 _.@-]+$'}
_PUBLIC_KEY = {'type': 'string', 'minLength': 1, 'maxLength': 65535}
_TYPE = {'type': 'string', 'enum': ['ssh', 'x509']}

CREATE = common.wrapped('keypair', common.obj(
    {'name': _NAME, 'public_key': _PUBLIC_KEY}, required=['name']))

CREATE_V2_2 = common.wrapped('keypair', common.obj(
    {'name': _NAME, 'public_key': _PUBLIC_KEY, 'type': _TYPE},
    required=['name']))

CREATE_V2_10 = common.wrapped('keypair', common.obj(
    {'name': _NAME, 'public_key': _PUBLIC_KEY, 'type': _TYPE,
     'user_id': {'type': 'string', 'minLength': 1, 'maxLength': 255}},
    required=['name']))

CREATE_V2_92 = copy.deepcopy(CREATE_V2_10)
CREATE_V2_92['properties']['keypair']['properties']['name'] = _NAME_V2_92
CREATE_V2_92['properties']['keypair']['required'] = ['name', 'public_key']

LIST_QUERY = {
    'type': 'object',
    'properties': {
        'user_id': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'limit': {'type': 'string', 'pattern': r'^[0-9]+$'},
        'marker': {'type': 'string'},
    },
    'additionalProperties': True,
}
LIST_QUERY_V2_75 = dict(LIST_QUERY, additionalProperties=False)
SHOW_QUERY = {'type': 'object',
              'properties': {'user_id': LIST_QUERY['properties']['user_id']},
              'additionalProperties': True}
SHOW_QUERY_V2_75 = dict(SHOW_QUERY, additionalProperties=False)
