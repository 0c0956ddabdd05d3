"""Schemas of os-services updates, before and from microversion 2.53."""

from nova_lite.api.schemas import common

_HOST = {'type': 'string', 'minLength': 1, 'maxLength': 255}
_BINARY = {'type': 'string', 'minLength': 1, 'maxLength': 255}
_REASON = {'type': 'string', 'minLength': 1, 'maxLength': 255}

ENABLE_DISABLE = common.obj({'host': _HOST, 'binary': _BINARY},
                            required=['host', 'binary'], additional=False)
DISABLE_LOG_REASON = common.obj(
    {'host': _HOST, 'binary': _BINARY, 'disabled_reason': _REASON},
    required=['host', 'binary'])
FORCE_DOWN = common.obj(
    {'host': _HOST, 'binary': _BINARY, 'forced_down': {'type': 'boolean'}},
    required=['host', 'binary', 'forced_down'])

UPDATE_V2_53 = {
    'type': 'object',
    'properties': {
        'status': {'type': 'string', 'enum': ['enabled', 'disabled']},
        'disabled_reason': _REASON,
        'forced_down': {'type': 'boolean'},
    },
    'minProperties': 1,
    'additionalProperties': False,
}

LIST_QUERY = {'type': 'object',
              'properties': {'host': {'type': 'string'},
                             'binary': {'type': 'string'}},
              'additionalProperties': True}
