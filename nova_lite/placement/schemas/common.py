"""Schema pieces shared by several resources."""

UUID = {'type': 'string', 'format': 'uuid',
        'pattern': '^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?'
                   '[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$'}
RC_NAME = {'type': 'string', 'pattern': '^[A-Z0-9_]+$', 'maxLength': 255}
CUSTOM_NAME = {'type': 'string', 'pattern': '^CUSTOM_[A-Z0-9_]+$',
               'maxLength': 255}
TRAIT_NAME = {'type': 'string', 'pattern': '^[A-Z0-9_]+$', 'minLength': 1,
              'maxLength': 255}
GENERATION = {'type': 'integer', 'minimum': 0, 'maximum': 2147483647}
# NOTE(nova_lite): a provider generation in inventory, trait and aggregate
# writes: any integer, as in Placement, so that a wrong one (say -1) is a
# 409 generation conflict rather than a schema 400.
ANY_GENERATION = {'type': 'integer'}
NON_NEGATIVE = {'type': 'integer', 'minimum': 0, 'maximum': 2147483647}
POSITIVE = {'type': 'integer', 'minimum': 1, 'maximum': 2147483647}
EXTERNAL_ID = {'type': 'string', 'minLength': 1, 'maxLength': 255}


def query(properties):
    """A query-string schema: only ``properties``, all strings."""
    return {'type': 'object', 'properties': properties,
            'additionalProperties': False}
