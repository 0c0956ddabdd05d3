"""Bodies of /servers/{id}/metadata (keys and values as Nova allows)."""

import copy

METADATA = {
    'type': 'object',
    'patternProperties': {
        '^[a-zA-Z0-9-_:. ]{1,255}$': {'type': 'string', 'maxLength': 255}},
    'additionalProperties': False,
}

_ONE_ITEM = copy.deepcopy(METADATA)
_ONE_ITEM.update({'minProperties': 1, 'maxProperties': 1})

# POST (merge) and PUT (replace) of the whole set.
SET = {'type': 'object', 'properties': {'metadata': METADATA},
       'required': ['metadata'], 'additionalProperties': False}
# PUT of one item.
ITEM = {'type': 'object', 'properties': {'meta': _ONE_ITEM},
        'required': ['meta'], 'additionalProperties': False}
