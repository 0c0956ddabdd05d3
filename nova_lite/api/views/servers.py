"""The server representation, per microversion and caller.

:func:`summary` is an item of ``GET /servers``, :func:`detail` of
``/servers/detail`` and ``GET /servers/{id}``. ``status`` comes from the
vm and task states as Nova maps them; admins also see where a server runs
(``OS-EXT-SRV-ATTR:*``). A server of a cell that did not answer is a
minimal record with status ``UNKNOWN`` (microversion 2.69 and later).
"""

import hashlib
import ipaddress
import json

from nova_lite.api import microversion
from nova_lite.api import policy
from nova_lite.api import util
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite.network import interface as net_compute

# vm_state -> status; for 'active' and 'resized' the task state refines it.
_VM_STATUS = {
    vm_states.BUILDING: 'BUILD',
    vm_states.ACTIVE: 'ACTIVE',
    vm_states.STOPPED: 'SHUTOFF',
    vm_states.PAUSED: 'PAUSED',
    vm_states.SUSPENDED: 'SUSPENDED',
    vm_states.RESCUED: 'RESCUE',
    vm_states.RESIZED: 'VERIFY_RESIZE',
    vm_states.ERROR: 'ERROR',
    vm_states.DELETED: 'DELETED',
    vm_states.SOFT_DELETED: 'SOFT_DELETED',
    vm_states.SHELVED: 'SHELVED',
    vm_states.SHELVED_OFFLOADED: 'SHELVED_OFFLOADED',
}
_ACTIVE_TASK_STATUS = {
    task_states.REBOOTING: 'REBOOT',
    task_states.REBOOT_PENDING: 'REBOOT',
    task_states.REBOOT_STARTED: 'REBOOT',
    task_states.REBOOTING_HARD: 'HARD_REBOOT',
    'reboot_pending_hard': 'HARD_REBOOT',
    'reboot_started_hard': 'HARD_REBOOT',
    'rebuilding': 'REBUILD',
    'rebuild_block_device_mapping': 'REBUILD',
    'rebuild_spawning': 'REBUILD',
    'migrating': 'MIGRATING',
    'resize_prep': 'RESIZE',
    'resize_migrating': 'RESIZE',
    'resize_migrated': 'RESIZE',
    'resize_finish': 'RESIZE',
    'updating_password': 'PASSWORD',
}

# A stopped server being resized or rebuilt shows what is happening too.
_STOPPED_TASK_STATUS = {
    task: _ACTIVE_TASK_STATUS[task] for task in (
        'resize_prep', 'resize_migrating', 'resize_migrated',
        'resize_finish', 'rebuilding', 'rebuild_block_device_mapping',
        'rebuild_spawning')}

# status filter of the list -> vm_states it may mean.
STATUS_VM_STATES = {}
for _vm, _status in _VM_STATUS.items():
    STATUS_VM_STATES.setdefault(_status, []).append(_vm)
for _status in set(_ACTIVE_TASK_STATUS.values()):
    STATUS_VM_STATES.setdefault(_status, []).append(vm_states.ACTIVE)
STATUS_VM_STATES['REVERT_RESIZE'] = [vm_states.RESIZED]


# The statuses whose servers show ``progress`` (Nova's view leaves it out
# for the others, e.g. SHUTOFF or ERROR).
PROGRESS_STATUSES = ('ACTIVE', 'BUILD', 'REBUILD', 'RESIZE', 'VERIFY_RESIZE',
                     'MIGRATING')


def status_of(instance):
    vm_state = instance.vm_state
    task_state = instance.task_state
    if vm_state == vm_states.ACTIVE and task_state in _ACTIVE_TASK_STATUS:
        return _ACTIVE_TASK_STATUS[task_state]
    if vm_state == vm_states.STOPPED and task_state in _STOPPED_TASK_STATUS:
        return _STOPPED_TASK_STATUS[task_state]
    if vm_state == vm_states.RESIZED and task_state == 'resize_reverting':
        return 'REVERT_RESIZE'
    return _VM_STATUS.get(vm_state, 'UNKNOWN')


def host_id(instance):
    """Nova's ``hostId``: the host hashed with the project, '' without."""
    if not instance.host:
        return ''
    text = '%s%s' % (instance.project_id, instance.host)
    return hashlib.sha224(text.encode('utf-8')).hexdigest()


def _value(instance, name, default=None):
    if instance.obj_attr_is_set(name):
        value = getattr(instance, name)
        return default if value is None else value
    return default


DISK_CONFIG = 'OS-DCF:diskConfig'


def disk_config(instance):
    """``AUTO`` or ``MANUAL``: the server's ``auto_disk_config``."""
    return 'AUTO' if _value(instance, 'auto_disk_config') else 'MANUAL'


def summary(req, server):
    """An item of ``GET /servers``."""
    item = {'id': server.uuid,
            'links': util.links(req, 'servers', server.uuid)}
    if server.down:
        item['status'] = 'UNKNOWN'
        return item
    item['name'] = _value(server.instance, 'display_name', '')
    return item


def _image(req, instance):
    image_ref = _value(instance, 'image_ref', '')
    if not image_ref:
        return ''
    return {'id': image_ref, 'links': [{
        'rel': 'bookmark',
        'href': '%s/images/%s' % (req.application_url, image_ref)}]}


def _caller_may(context, rule):
    """``policy.check(context, rule)`` on the caller's own project, once
    per request context: these rules of a server's view are checked
    against the caller, never against the server's owner, so every
    server of a listing gets the same answer (3 checks per server
    before). The answers live on the context object itself, not on its
    copies (an elevated copy has other roles)."""
    answers = context.__dict__.get('_nl_view_policy')
    if answers is None or answers[0] is not context:
        answers = (context, {})
        context.__dict__['_nl_view_policy'] = answers
    if rule not in answers[1]:
        answers[1][rule] = policy.check(context, rule)
    return answers[1][rule]


def _flavor(req, instance, context):
    flavor = _value(instance, 'flavor', {}) or {}
    if not microversion.at_least(req, '2.47'):
        flavorid = flavor.get('flavorid') or ''
        return {'id': flavorid, 'links': [{
            'rel': 'bookmark',
            'href': '%s/flavors/%s' % (req.application_url, flavorid)}]}
    item = {'original_name': flavor.get('name'),
            'vcpus': flavor.get('vcpus', instance.vcpus),
            'ram': flavor.get('memory_mb', instance.memory_mb),
            'disk': flavor.get('root_gb', instance.root_gb) or 0,
            'ephemeral': flavor.get('ephemeral_gb', 0) or 0,
            'swap': flavor.get('swap', 0) or 0}
    if _caller_may(context, 'os-flavor-extra-specs:index'):
        item['extra_specs'] = dict(flavor.get('extra_specs') or {})
    return item


def _fault(server, context):
    fault = server.fault
    if fault is None:
        return None
    item = {'code': fault.code, 'created': util.isotime(fault.created_at),
            'message': fault.message}
    if fault.details and (context.is_admin or fault.code != 500):
        item['details'] = fault.details
    return item


def _admin_fields(req, instance):
    item = {'OS-EXT-SRV-ATTR:host': _value(instance, 'host'),
            'OS-EXT-SRV-ATTR:hypervisor_hostname': _value(instance, 'node'),
            'OS-EXT-SRV-ATTR:instance_name': (
                'instance-%08x' % instance.id
                if instance.obj_attr_is_set('id') and instance.id else '')}
    if microversion.at_least(req, '2.3'):
        item.update({
            'OS-EXT-SRV-ATTR:reservation_id': _value(instance,
                                                     'reservation_id'),
            'OS-EXT-SRV-ATTR:launch_index': _value(instance,
                                                   'launch_index', 0),
            'OS-EXT-SRV-ATTR:hostname': _value(instance, 'hostname'),
            'OS-EXT-SRV-ATTR:kernel_id': '',
            'OS-EXT-SRV-ATTR:ramdisk_id': '',
            'OS-EXT-SRV-ATTR:root_device_name': None,
            'OS-EXT-SRV-ATTR:user_data': _value(instance, 'user_data')})
    return item


def _versioned_fields(req, server, context, groups, full=True):
    instance = server.instance
    item = {}
    if microversion.at_least(req, '2.9'):
        item['locked'] = bool(_value(instance, 'locked', False))
    if full and microversion.at_least(req, '2.16') and _caller_may(
            context, 'servers:show:host_status'):
        item['host_status'] = 'UP' if _value(instance, 'host') else ''
    if microversion.at_least(req, '2.19'):
        item['description'] = _value(instance, 'display_description')
    if microversion.at_least(req, '2.26'):
        item['tags'] = list((_value(instance, 'extra', {}) or {}).get(
            'tags') or [])
    if microversion.at_least(req, '2.63'):
        item['trusted_image_certificates'] = trusted_certs(instance)
    if groups is not None:
        item['server_groups'] = groups
    if microversion.at_least(req, '2.73'):
        item['locked_reason'] = (_value(instance, 'system_metadata', {})
                                 or {}).get('locked_reason')
    if microversion.at_least(req, '2.96'):
        item['pinned_availability_zone'] = None
    return item


# Keys a PUT or rebuild response leaves out below 2.75 (Nova shows every
# attribute there only from 2.75 on).
_FULL_VIEW_ONLY = (
    'OS-EXT-AZ:availability_zone', 'config_drive', 'OS-SRV-USG:launched_at',
    'OS-SRV-USG:terminated_at', 'security_groups', 'OS-EXT-STS:task_state',
    'OS-EXT-STS:vm_state', 'OS-EXT-STS:power_state',
    'os-extended-volumes:volumes_attached')
# NOTE(nova_lite): what Nova keeps in instance columns (access addresses)
# or a trusted_certs object, nova_lite keeps in the system metadata.
ACCESS_IP_KEYS = {'accessIPv4': 'access_ip_v4', 'accessIPv6': 'access_ip_v6'}
TRUSTED_CERTS_KEY = 'trusted_image_certificates'


def system_metadata_items(args):
    """The system metadata items of a request body's access addresses
    and trusted certificate ids (None unsets them)."""
    items = {column: _canonical_ip(args[key])
             for key, column in ACCESS_IP_KEYS.items() if key in args}
    if TRUSTED_CERTS_KEY in args:
        certs = args[TRUSTED_CERTS_KEY]
        items[TRUSTED_CERTS_KEY] = None if certs is None else json.dumps(
            certs)
    return items


def _canonical_ip(value):
    """An access address as Nova stores it (an IP address field): the
    canonical text, e.g. ``::babe:dc0c:1602`` for a long IPv6 form; an
    empty value is kept (it unsets)."""
    if not value:
        return value
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        return value


def access_ips(instance):
    """{'accessIPv4', 'accessIPv6'}: what the owner set, '' if nothing."""
    system_metadata = _value(instance, 'system_metadata', {}) or {}
    return {key: system_metadata.get(column) or ''
            for key, column in ACCESS_IP_KEYS.items()}


def trusted_certs(instance):
    """The trusted image certificate ids given at create or rebuild, or
    None (nova_lite verifies no image signatures; Nova shows them so)."""
    system_metadata = _value(instance, 'system_metadata', {}) or {}
    text = system_metadata.get(TRUSTED_CERTS_KEY)
    return json.loads(text) if text else None


def network_snapshot(req, device_ids=None):
    """The network service's view of this request's servers, read once
    per request (``device_ids``: a list's servers, whose ports are then
    read in one query)."""
    key = 'nova_lite.network_snapshot'
    if key not in req.environ:
        req.environ[key] = net_compute.Snapshot(util.context(req),
                                                device_ids)
    return req.environ[key]


def _security_groups(req, server):
    """The groups on the server's ports (None: ports in no group, where
    Nova leaves the key out); ``default`` for a server on no network,
    whose groups nova_lite keeps no record of."""
    names = network_snapshot(req).group_names(server.uuid)
    if names == []:
        return None
    return [{'name': name} for name in
            (['default'] if names is None else names)]


def _base(req, server, context):
    instance = server.instance
    status = status_of(instance)
    launched = _value(instance, 'launched_at')
    item = {
        'id': server.uuid, 'name': _value(instance, 'display_name', ''),
        'status': status, 'tenant_id': instance.project_id,
        'user_id': instance.user_id,
        'metadata': dict(_value(instance, 'metadata', {}) or {}),
        'hostId': host_id(instance), 'image': _image(req, instance),
        'flavor': _flavor(req, instance, context),
        'created': util.isotime(instance.created_at),
        'updated': util.isotime(instance.updated_at or
                                instance.created_at),
        'addresses': network_snapshot(req).addresses(server.uuid),
        'links': util.links(req, 'servers', server.uuid),
        DISK_CONFIG: disk_config(instance),
        'OS-EXT-AZ:availability_zone': _value(instance,
                                              'availability_zone', ''),
        'config_drive': _value(instance, 'config_drive', ''),
        'key_name': _value(instance, 'key_name'),
        'OS-SRV-USG:launched_at': util.isotime_micro(launched),
        'OS-SRV-USG:terminated_at': util.isotime_micro(
            _value(instance, 'terminated_at')),
        'OS-EXT-STS:task_state': _value(instance, 'task_state'),
        'OS-EXT-STS:vm_state': instance.vm_state,
        'OS-EXT-STS:power_state': _value(instance, 'power_state', 0),
        'os-extended-volumes:volumes_attached': [],
        'security_groups': _security_groups(req, server),
    }
    if item['security_groups'] is None:
        del item['security_groups']
    if status in PROGRESS_STATUSES:
        item['progress'] = _value(instance, 'progress') or 0
    item.update(access_ips(instance))
    return item


def detail(req, server, groups=None, hints=None, mutation=None):
    """An item of ``/servers/detail``, or the body of a show.

    ``mutation`` ('update' or 'rebuild'): the body of a PUT or rebuild
    response, which below 2.75 leaves out the zone, the extended status,
    usage, volume and admin attributes (and ``key_name``: rebuild shows it
    from 2.54, PUT from 2.75), as Nova's does.
    """
    context = util.context(req)
    if server.down:
        return down_detail(req, server)
    item = _base(req, server, context)
    full = mutation is None or microversion.at_least(req, '2.75')
    if not full:
        for key in _FULL_VIEW_ONLY:
            item.pop(key, None)
        # Below 2.75 Nova's PUT and rebuild answers show the addresses
        # without their type and MAC.
        item['addresses'] = {
            name: [{'version': a['version'], 'addr': a['addr']}
                   for a in entries]
            for name, entries in item['addresses'].items()}
        if mutation == 'update' or not microversion.at_least(req, '2.54'):
            del item['key_name']
    elif _caller_may(context, 'os-extended-server-attributes'):
        item.update(_admin_fields(req, server.instance))
        if mutation == 'rebuild':
            # Nova's rebuild answer carries ``user_data`` (from 2.57) at
            # the top level instead.
            item.pop('OS-EXT-SRV-ATTR:user_data', None)
    if microversion.at_least(req, '2.90'):
        # 2.90 shows the hostname to everyone, not only to admins.
        item.setdefault('OS-EXT-SRV-ATTR:hostname',
                        _value(server.instance, 'hostname'))
    item.update(_versioned_fields(req, server, context, groups, full))
    if microversion.at_least(req, '2.100'):
        item['scheduler_hints'] = hints or {}
    fault = _fault(server, context)
    if fault is not None and item['status'] in ('ERROR', 'DELETED'):
        item['fault'] = fault
    return item


def down_detail(req, server, show=False):
    """The minimal record of a server whose cell did not answer."""
    instance = server.instance
    item = {'id': server.uuid, 'status': 'UNKNOWN',
            'tenant_id': instance.project_id,
            'created': util.isotime(instance.created_at),
            'links': util.links(req, 'servers', server.uuid)}
    if not show:
        return item
    spec = server.request_spec or {}
    data = spec.get('nova_lite_object.data', spec)
    flavor = data.get('flavor') or {}
    flavor = flavor.get('nova_lite_object.data', flavor)
    item.update({
        'user_id': instance.user_id,
        'image': ({'id': data['image_id'], 'links': []}
                  if data.get('image_id') else ''),
        'flavor': {'original_name': flavor.get('name'),
                   'vcpus': flavor.get('vcpus'),
                   'ram': flavor.get('memory_mb'),
                   'disk': flavor.get('root_gb', 0),
                   'ephemeral': flavor.get('ephemeral_gb', 0),
                   'swap': flavor.get('swap', 0)},
        'OS-EXT-AZ:availability_zone': (data.get('availability_zone')
                                        or 'UNKNOWN'),
        'OS-EXT-STS:power_state': 0,
    })
    if microversion.at_least(req, '2.71'):
        item['server_groups'] = []
    return item
