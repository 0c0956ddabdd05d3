"""os-interface POST: Nova's schema (the body and each key optional; one
fixed IP at most; ``tag`` from 2.49)."""

import copy

from nova_lite.api.schemas import common

_IP = {'type': 'string', 'oneOf': [{'format': 'ipv4'}, {'format': 'ipv6'}]}
TAG = {'type': 'string', 'pattern': '^[^,/]*$', 'minLength': 1,
       'maxLength': 60}

CREATE = common.obj({'interfaceAttachment': common.obj({
    'net_id': common.UUID,
    'port_id': common.UUID,
    'fixed_ips': {'type': 'array', 'minItems': 1, 'maxItems': 1,
                  'items': common.obj({'ip_address': _IP},
                                      required=['ip_address'])}})})
CREATE_V2_49 = copy.deepcopy(CREATE)
CREATE_V2_49['properties']['interfaceAttachment']['properties']['tag'] = TAG
