"""JSON schema of os-hosts' update (status and maintenance mode)."""

_SWITCH = {'type': 'string', 'enum': ['enable', 'disable', 'Enable',
                                     'Disable', 'ENABLE', 'DISABLE']}

UPDATE = {
    'type': 'object',
    'properties': {'status': _SWITCH, 'maintenance_mode': _SWITCH},
    'anyOf': [{'required': ['status']}, {'required': ['maintenance_mode']}],
    'additionalProperties': False,
}
