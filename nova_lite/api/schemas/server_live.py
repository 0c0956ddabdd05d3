"""Bodies of ``os-migrateLive``, ``evacuate`` and ``rebuild``, per
microversion (as Nova's):

* ``os-migrateLive``: ``host`` and ``block_migration`` required;
  ``disk_over_commit`` required too before 2.25; ``block_migration`` may
  be ``"auto"`` from 2.25; ``force`` from 2.30 until 2.67;
* ``evacuate``: ``host``, ``adminPass``; ``onSharedStorage`` required
  before 2.14 (gone after); ``force`` from 2.29 until 2.67;
* ``rebuild``: ``imageRef`` required; ``description`` from 2.19,
  ``key_name`` from 2.54, ``user_data`` from 2.57 (``personality`` only
  before), ``trusted_image_certificates`` from 2.63, ``hostname`` from
  2.90.
"""

import copy

from nova_lite.api import microversion
from nova_lite.api.schemas import common
from nova_lite.wsgi import microversion as wsgi_microversion

HOST = {'type': 'string', 'minLength': 1, 'maxLength': 255,
        'pattern': r'^[a-zA-Z0-9-._]*$'}
HOST_OR_NULL = dict(HOST, type=['string', 'null'])
ADMIN_PASSWORD = {'type': 'string'}
_AUTO_OR_BOOLEAN = {'oneOf': [common.BOOLEAN,
                              {'type': 'string', 'enum': ['auto']}]}


def _migrate_live(version):
    properties = {'host': HOST_OR_NULL}
    required = ['block_migration', 'host']
    if version < '2.25':
        properties['block_migration'] = common.BOOLEAN
        properties['disk_over_commit'] = common.BOOLEAN
        required.append('disk_over_commit')
    else:
        properties['block_migration'] = _AUTO_OR_BOOLEAN
    if '2.30' <= version < '2.68':
        properties['force'] = common.BOOLEAN
    return common.wrapped('os-migrateLive',
                          common.obj(properties, required=required))


def _evacuate(version):
    properties = {'host': HOST, 'adminPass': ADMIN_PASSWORD}
    required = []
    if version < '2.14':
        properties['onSharedStorage'] = common.BOOLEAN
        required.append('onSharedStorage')
    if '2.29' <= version < '2.68':
        properties['force'] = common.BOOLEAN
    return common.wrapped('evacuate',
                          common.obj(properties, required=required))


# No item count: the number of items is the metadata_items quota (403).
_METADATA = {'type': 'object',
             'patternProperties': {
                 '^[a-zA-Z0-9-_:. ]{1,255}$': {'type': 'string',
                                                'maxLength': 255}},
             'additionalProperties': False}
_REBUILD = {
    'imageRef': {'type': 'string', 'minLength': 1},
    'name': common.NAME,
    'adminPass': ADMIN_PASSWORD,
    'metadata': _METADATA,
    'preserve_ephemeral': common.BOOLEAN,
    'OS-DCF:diskConfig': {'type': 'string', 'enum': ['AUTO', 'MANUAL']},
    'accessIPv4': common.ACCESS_IPV4,
    'accessIPv6': common.ACCESS_IPV6,
}


def _rebuild(version):
    properties = copy.deepcopy(_REBUILD)
    if version < '2.57':
        properties['personality'] = {'type': 'array'}
    else:
        properties['user_data'] = {'type': ['string', 'null'],
                                   'maxLength': 65535}
    if version >= '2.19':
        properties['description'] = common.DESCRIPTION
    if version >= '2.54':
        properties['key_name'] = {'type': ['string', 'null'],
                                  'minLength': 1, 'maxLength': 255}
    if version >= '2.63':
        properties['trusted_image_certificates'] = {
            'type': ['array', 'null'], 'minItems': 1, 'maxItems': 50,
            'uniqueItems': True,
            'items': {'type': 'string', 'minLength': 1}}
    if version >= '2.90':
        properties['hostname'] = {'type': 'string', 'minLength': 2,
                                  'maxLength': 255,
                                  'pattern': r'^[a-zA-Z0-9][a-zA-Z0-9.-]*$'}
    return common.wrapped('rebuild',
                          common.obj(properties, required=['imageRef']))


class _Version:
    """The request's microversion, comparable with ``'2.N'`` strings."""

    def __init__(self, req):
        self.req = req

    def __lt__(self, text):
        return not microversion.at_least(self.req, text)

    def __ge__(self, text):
        return microversion.at_least(self.req, text)

    def __le__(self, text):
        return not microversion.at_least(self.req, text) or \
            microversion.of(self.req) == wsgi_microversion.parse(text)

    def __gt__(self, text):
        return not self.__le__(text)


_BUILDERS = {'os-migrateLive': _migrate_live, 'evacuate': _evacuate,
             'rebuild': _rebuild}
NAMES = frozenset(_BUILDERS)


def schema_for(req, name):
    """The schema of action ``name`` at the request's microversion, or
    None when ``name`` is not one of these actions."""
    builder = _BUILDERS.get(name)
    return None if builder is None else builder(_Version(req))
