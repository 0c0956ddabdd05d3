"""Schemas of host aggregates (os-aggregates)."""

from nova_lite.api.schemas import common

_AZ = {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255,
       'pattern': r'^(?!\s)[^:\x00-\x1f]*(?<!\s)$'}
_HOST = {'type': 'string', 'minLength': 1, 'maxLength': 255,
         'pattern': r'^[a-zA-Z0-9-._]*$'}
_META_KEY = r'^[a-zA-Z0-9-_:. ]{1,255}$'

CREATE = common.wrapped('aggregate', common.obj(
    {'name': common.NAME, 'availability_zone': _AZ}, required=['name']))

UPDATE = common.wrapped('aggregate', dict(common.obj(
    {'name': common.NAME, 'availability_zone': _AZ}), minProperties=1))

ACTION = {
    'type': 'object',
    'properties': {
        'add_host': common.obj({'host': _HOST}, required=['host']),
        'remove_host': common.obj({'host': _HOST}, required=['host']),
        'set_metadata': common.obj({'metadata': {
            'type': 'object',
            'patternProperties': {_META_KEY: {
                'type': ['string', 'null'], 'maxLength': 255}},
            'additionalProperties': False}}, required=['metadata']),
    },
    'minProperties': 1, 'maxProperties': 1,
    'additionalProperties': False,
}
