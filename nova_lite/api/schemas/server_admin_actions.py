"""Bodies of os-resetState, restore and forceDelete."""

RESET_STATE = {
    'type': 'object',
    'properties': {'os-resetState': {
        'type': 'object',
        'properties': {'state': {'type': 'string',
                                 'enum': ['active', 'error']}},
        'required': ['state'], 'additionalProperties': False}},
    'required': ['os-resetState'], 'additionalProperties': False,
}
# Nova reads nothing from these bodies.
RESTORE = {'type': 'object', 'properties': {'restore': {}},
           'required': ['restore'], 'additionalProperties': False}
FORCE_DELETE = {'type': 'object', 'properties': {'forceDelete': {}},
                'required': ['forceDelete'], 'additionalProperties': False}
# Nova takes any value (it means null).
INJECT_NETWORK_INFO = {
    'type': 'object', 'properties': {'injectNetworkInfo': {}},
    'required': ['injectNetworkInfo'], 'additionalProperties': False}
RESET_NETWORK = {}
