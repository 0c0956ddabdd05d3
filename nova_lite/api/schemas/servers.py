"""JSON schemas of the servers resource and its actions."""

import copy

from nova_lite.api.schemas import common
from nova_lite.api.schemas import server_tags

# No item count: the number of items is the metadata_items quota (403).
_METADATA = {'type': 'object',
             'patternProperties': {'^[a-zA-Z0-9-_:. ]{1,255}$': {
                 'type': 'string', 'maxLength': 255}},
             'additionalProperties': False}
_UUID_OR_LIST = {'oneOf': [common.UUID, {'type': 'array',
                                         'items': common.UUID}]}
_NETWORK = common.obj({'uuid': common.UUID, 'port': common.UUID,
                       'fixed_ip': {'type': 'string'},
                       'tag': {'type': 'string'}})
_NETWORKS_OLD = {'type': 'array', 'items': _NETWORK}
_NETWORKS = {'oneOf': [{'type': 'string', 'enum': ['auto', 'none']},
                       _NETWORKS_OLD]}

BDM_V2 = common.obj({
    'uuid': {'type': ['string', 'null']},
    'boot_index': {'type': ['integer', 'string', 'null']},
    'source_type': {'type': 'string', 'enum': ['image', 'volume',
                                               'snapshot', 'blank']},
    'destination_type': {'type': ['string', 'null'],
                         'enum': ['local', 'volume', None]},
    'delete_on_termination': common.BOOLEAN,
    'volume_size': {'type': ['integer', 'string', 'null']},
    'device_name': {'type': ['string', 'null']},
    'device_type': {'type': ['string', 'null']},
    'disk_bus': {'type': ['string', 'null']},
    'guest_format': {'type': ['string', 'null']},
    'no_device': {},
    'tag': {'type': 'string'},
    'volume_type': {'type': ['string', 'null']},
})

SCHEDULER_HINTS = {
    'type': 'object',
    'properties': {
        'group': common.UUID,
        'same_host': _UUID_OR_LIST,
        'different_host': _UUID_OR_LIST,
        'query': {'type': ['string', 'array', 'object']},
        'build_near_host_ip': {'type': 'string', 'format': 'ipv4'},
        'cidr': {'type': 'string', 'pattern': r'^/[0-9]{1,2}$'},
        'target_cell': {'type': 'string'},
        'different_cell': {'type': ['string', 'array']},
    },
    'additionalProperties': True,
}

_SERVER = {
    'name': common.NAME,
    'imageRef': {'type': 'string', 'maxLength': 255},
    'flavorRef': {'type': ['string', 'integer'], 'minLength': 1},
    'adminPass': {'type': 'string'},
    'metadata': _METADATA,
    'networks': _NETWORKS_OLD,
    'OS-DCF:diskConfig': {'type': 'string', 'enum': ['AUTO', 'MANUAL']},
    'accessIPv4': common.ACCESS_IPV4,
    'accessIPv6': common.ACCESS_IPV6,
    'availability_zone': {'type': 'string', 'minLength': 1,
                          'maxLength': 255},
    'key_name': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    'min_count': common.POSITIVE_INT,
    'max_count': common.POSITIVE_INT,
    'return_reservation_id': common.BOOLEAN,
    'user_data': {'type': 'string', 'maxLength': 65535},
    'config_drive': common.BOOLEAN,
    'security_groups': {'type': 'array', 'items': common.obj(
        {'name': {'type': 'string', 'minLength': 1}})},
    # Clients send the image as a local block device too; volumes need a
    # volume service, which the handler refuses.
    'block_device_mapping_v2': {'type': 'array', 'items': BDM_V2},
}


def _create(server_props, required=('name', 'flavorRef')):
    return common.obj({
        'server': common.obj(server_props, required=list(required)),
        'os:scheduler_hints': SCHEDULER_HINTS,
        'OS-SCH-HNT:scheduler_hints': SCHEDULER_HINTS,
    }, required=['server'])


_SERVER_V2_19 = dict(_SERVER, description=common.DESCRIPTION)
_SERVER_V2_37 = dict(_SERVER_V2_19, networks=_NETWORKS)
# 2.63: trusted image certificate ids (accepted and shown).
TRUSTED_CERTS = {'type': ['array', 'null'], 'minItems': 1, 'maxItems': 50,
                 'uniqueItems': True,
                 'items': {'type': 'string', 'minLength': 1}}
# 2.52: tags given at create (those of PUT /servers/{id}/tags).
_SERVER_V2_52 = dict(_SERVER_V2_37, tags={
    'type': 'array', 'items': server_tags.TAG,
    'maxItems': server_tags.MAX_TAG_COUNT})
_SERVER_V2_63 = dict(_SERVER_V2_52, trusted_image_certificates=TRUSTED_CERTS)
_SERVER_V2_74 = dict(_SERVER_V2_63, host={'type': 'string', 'minLength': 1,
                                          'maxLength': 255},
                     hypervisor_hostname={'type': 'string', 'minLength': 1,
                                          'maxLength': 255})
_SERVER_V2_90 = dict(_SERVER_V2_74, hostname={
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    'pattern': r'^[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?$'})

CREATE = _create(_SERVER)
CREATE_V2_19 = _create(_SERVER_V2_19)
CREATE_V2_37 = _create(_SERVER_V2_37,
                       required=('name', 'flavorRef', 'networks'))
CREATE_V2_52 = _create(_SERVER_V2_52,
                       required=('name', 'flavorRef', 'networks'))
CREATE_V2_63 = _create(_SERVER_V2_63,
                       required=('name', 'flavorRef', 'networks'))
CREATE_V2_74 = _create(_SERVER_V2_74,
                       required=('name', 'flavorRef', 'networks'))
CREATE_V2_90 = _create(_SERVER_V2_90,
                       required=('name', 'flavorRef', 'networks'))

_UPDATE = {'name': common.NAME, 'accessIPv4': common.ACCESS_IPV4,
           'accessIPv6': common.ACCESS_IPV6,
           'OS-DCF:diskConfig': {'type': 'string',
                                 'enum': ['AUTO', 'MANUAL']}}
UPDATE = common.wrapped('server', common.obj(_UPDATE))
UPDATE_V2_19 = common.wrapped('server', common.obj(
    dict(_UPDATE, description=common.DESCRIPTION)))
UPDATE_V2_90 = common.wrapped('server', common.obj(
    dict(_UPDATE, description=common.DESCRIPTION,
         hostname=_SERVER_V2_90['hostname'])))

# Query parameters of the list (values are strings).
_QUERY = {
    'name': {'type': 'string'},
    'status': {'type': 'string'},
    'host': {'type': 'string'},
    'node': {'type': 'string'},
    'flavor': {'type': 'string'},
    'image': {'type': 'string'},
    'all_tenants': {'type': 'string'},
    'project_id': {'type': 'string'},
    'tenant_id': {'type': 'string'},
    'user_id': {'type': 'string'},
    'changes-since': {'type': 'string', 'format': 'date-time'},
    'changes-before': {'type': 'string', 'format': 'date-time'},
    'deleted': {'type': 'string'},
    'reservation_id': {'type': 'string'},
    'availability_zone': {'type': 'string'},
    'locked': {'type': 'string'},
    'limit': {'type': 'string', 'pattern': r'^[0-9]+$'},
    'marker': {'type': 'string'},
    'sort_key': {'type': 'string'},
    'sort_dir': {'type': 'string', 'enum': ['asc', 'desc']},
    'ip': {'type': 'string'}, 'ip6': {'type': 'string'},
    'vm_state': {'type': 'string'}, 'task_state': {'type': 'string'},
    'key_name': {'type': 'string'}, 'description': {'type': 'string'},
    'hostname': {'type': 'string'},
    'tags': {'type': 'string'}, 'tags-any': {'type': 'string'},
    'not-tags': {'type': 'string'}, 'not-tags-any': {'type': 'string'},
}
LIST_QUERY = common.obj(_QUERY, additional=True)
LIST_QUERY_V2_75 = common.obj(copy.deepcopy(_QUERY))

# -- actions ---------------------------------------------------------------

_NULL_OR_EMPTY = {'oneOf': [{'type': 'null'}, common.obj({})]}
ACTIONS = {
    'os-start': common.wrapped('os-start', _NULL_OR_EMPTY),
    'os-stop': common.wrapped('os-stop', _NULL_OR_EMPTY),
    'reboot': common.wrapped('reboot', common.obj(
        {'type': {'type': 'string', 'enum': ['HARD', 'Hard', 'hard',
                                             'SOFT', 'Soft', 'soft']}},
        required=['type'])),
    'pause': common.wrapped('pause', _NULL_OR_EMPTY),
    'unpause': common.wrapped('unpause', _NULL_OR_EMPTY),
    'suspend': common.wrapped('suspend', _NULL_OR_EMPTY),
    'resume': common.wrapped('resume', _NULL_OR_EMPTY),
    'lock': common.wrapped('lock', _NULL_OR_EMPTY),
    'unlock': common.wrapped('unlock', _NULL_OR_EMPTY),
}
# rescue: Nova's schema (an object or null); unrescue: anything.
RESCUE = common.wrapped('rescue', {'oneOf': [
    {'type': 'null'},
    common.obj({'adminPass': {'type': 'string'},
                'rescue_image_ref': common.UUID})]})
ACTIONS.update({
    'rescue': RESCUE,
    'unrescue': common.wrapped('unrescue', {}),
})
LOCK_V2_73 = common.wrapped('lock', {'oneOf': [
    {'type': 'null'},
    common.obj({'locked_reason': {'type': 'string', 'minLength': 1,
                                  'maxLength': 255}})]})

# -- resize / cold migrate (api.compute.resize) ------------------------------
_FLAVOR_REF = {'type': ['string', 'integer'], 'minLength': 1}
RESIZE = common.wrapped('resize', common.obj(
    {'flavorRef': _FLAVOR_REF,
     'OS-DCF:diskConfig': {'type': 'string', 'enum': ['AUTO', 'MANUAL']}},
    required=['flavorRef']))
# Before 2.56 the body is not validated; 2.56: an admin may name the host.
MIGRATE_V2_56 = common.wrapped('migrate', {'oneOf': [
    {'type': 'null'},
    common.obj({'host': {'oneOf': [{'type': 'null'}, common.NAME]}})]})
ACTIONS.update({
    'resize': RESIZE,
    'migrate': MIGRATE_V2_56,
    'confirmResize': common.wrapped('confirmResize', _NULL_OR_EMPTY),
    'revertResize': common.wrapped('revertResize', _NULL_OR_EMPTY),
})

# -- shelve / unshelve (api.compute.shelve) ----------------------------------
# Before 2.77 the unshelve body is not looked at ({"unshelve": null});
# ACTIONS holds that widest schema, the handler checks its microversion's.
UNSHELVE_V2_1 = common.wrapped('unshelve', {})
UNSHELVE_V2_77 = common.wrapped('unshelve', {'oneOf': [
    {'type': 'null'},
    common.obj({'availability_zone': common.NAME},
               required=['availability_zone'])]})
# 2.91: a host (admins), or None as the zone (unpin), or both.
UNSHELVE_V2_91 = common.wrapped('unshelve', {'oneOf': [
    {'type': 'null'},
    dict(common.obj({'availability_zone': {'oneOf': [{'type': 'null'},
                                                     common.NAME]},
                     'host': common.NAME}), minProperties=1)]})
# createImage: the metadata as a server's, its count checked against the
# metadata_items quota (403) rather than by the schema.
_IMAGE_METADATA = {k: v for k, v in _METADATA.items()
                   if k != 'maxProperties'}
CREATE_IMAGE = common.wrapped('createImage', common.obj(
    {'name': common.NAME, 'metadata': _IMAGE_METADATA}, required=['name']))
# createBackup: Nova's schema; a rotation is a non-negative integer (or
# its digits as a string).
CREATE_BACKUP = common.wrapped('createBackup', common.obj(
    {'name': common.NAME, 'backup_type': {'type': 'string'},
     'rotation': common.NON_NEGATIVE_INT, 'metadata': _IMAGE_METADATA},
    required=['name', 'backup_type', 'rotation']))
ACTIONS.update({
    'createImage': CREATE_IMAGE,
    'createBackup': CREATE_BACKUP,
    'shelve': common.wrapped('shelve', _NULL_OR_EMPTY),
    'shelveOffload': common.wrapped('shelveOffload', _NULL_OR_EMPTY),
    'unshelve': UNSHELVE_V2_1,
})
