"""POST /os-server-external-events: the event names each microversion
accepts (2.51 volume-extended, 2.76 power-update, 2.82
accelerator-request-bound, 2.93 volume-reimaged)."""

import copy

STATUSES = ['failed', 'completed', 'in-progress']
_NAMES = [('2.1', ['network-changed', 'network-vif-plugged',
                   'network-vif-unplugged', 'network-vif-deleted']),
          ('2.51', ['volume-extended']), ('2.76', ['power-update']),
          ('2.82', ['accelerator-request-bound']),
          ('2.93', ['volume-reimaged'])]
# Events that mean nothing without a tag (a per-event 400).
TAG_REQUIRED = ('volume-extended', 'power-update',
                'accelerator-request-bound')

_CREATE = {
    'type': 'object',
    'properties': {'events': {
        'type': 'array', 'minItems': 1,
        'items': {
            'type': 'object',
            'properties': {
                'name': {'type': 'string', 'enum': []},
                'server_uuid': {'type': 'string', 'format': 'uuid'},
                'status': {'type': 'string', 'enum': STATUSES},
                'tag': {'type': 'string', 'maxLength': 255}},
            'required': ['name', 'server_uuid'],
            'additionalProperties': False}}},
    'required': ['events'], 'additionalProperties': False,
}


def create(at_least):
    """The body schema; ``at_least(version)`` tells the request's."""
    schema = copy.deepcopy(_CREATE)
    names = schema['properties']['events']['items']['properties']['name']
    for version, added in _NAMES:
        if at_least(version):
            names['enum'].extend(added)
    return schema
