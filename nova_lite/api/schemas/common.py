"""Schema pieces shared by the resources."""

NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255,
        'pattern': r'^(?!\s)[^\x00-\x1f]*(?<!\s)$'}
DESCRIPTION = {'type': ['string', 'null'], 'maxLength': 65535}
UUID = {'type': 'string', 'format': 'uuid'}
# A server's access addresses (Nova checks the format, nothing else).
ACCESS_IPV4 = {'type': 'string', 'format': 'ipv4'}
ACCESS_IPV6 = {'type': 'string', 'format': 'ipv6'}
BOOLEAN = {'type': ['boolean', 'string'],
           'enum': [True, False, 'True', 'False', 'true', 'false', '1',
                    '0', 'yes', 'no', 'on', 'off', 'TRUE', 'FALSE']}
NON_NEGATIVE_INT = {'type': ['integer', 'string'], 'pattern': r'^[0-9]+$',
                    'minimum': 0, 'maximum': 2147483647}
POSITIVE_INT = {'type': ['integer', 'string'],
                'pattern': r'^[0-9]*[1-9][0-9]*$',
                'minimum': 1, 'maximum': 2147483647}
QUOTA_LIMIT = {'type': ['integer', 'string'], 'pattern': r'^-?[0-9]+$',
               'minimum': -1, 'maximum': 2147483647}


def obj(properties, required=(), additional=False):
    """An object schema (closed unless ``additional``)."""
    return {'type': 'object', 'properties': properties,
            'required': list(required), 'additionalProperties': additional}


def wrapped(key, inner):
    """``{key: inner}`` with nothing else allowed."""
    return obj({key: inner}, required=[key])
