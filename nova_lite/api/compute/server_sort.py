"""``sort_key`` / ``sort_dir`` of the server list, across cells.

Each cell sorts its servers in the user's order itself, ties broken
newest first (:func:`full_order`), and returns at most a page of them,
after the marker's sort values; the merged pages are sorted again here,
key by key (a stable sort from the last key to the first), so the order
is the same whichever cell a server lives in. Unknown values (a down
cell's minimal record, an unset column) sort as the smallest, as NULLs do
in MySQL.
"""

from nova_lite import exception

# Keys a user may sort by (Nova's list, less what nova_lite does not store
# or what Nova accepts and ignores).
SORT_KEYS = frozenset([
    'auto_disk_config', 'availability_zone', 'config_drive', 'created_at',
    'display_description', 'display_name', 'ephemeral_gb', 'host',
    'hostname', 'image_ref', 'instance_type_id', 'key_name',
    'launch_index', 'launched_at', 'launched_on', 'locked', 'locked_by',
    'memory_mb', 'node', 'power_state', 'progress', 'project_id',
    'reservation_id', 'root_gb', 'task_state', 'terminated_at',
    'updated_at', 'user_id', 'uuid', 'vcpus', 'vm_state'])

# Accepted for compatibility with Nova's clients, but they do not sort.
IGNORED_KEYS = frozenset([
    'architecture', 'cell_name', 'cleaned', 'default_ephemeral_device',
    'default_swap_device', 'deleted', 'deleted_at', 'disable_terminate',
    'ephemeral_key_uuid', 'id', 'key_data', 'kernel_id', 'os_type',
    'ramdisk_id', 'root_device_name', 'scheduled_at',
    'shutdown_terminate', 'user_data', 'vm_mode', 'access_ip_v4',
    'access_ip_v6'])

# Only admins may sort by where a server runs; others' keys are dropped.
ADMIN_ONLY_KEYS = frozenset(['host', 'node'])


def parse(keys, dirs, is_admin):
    """[(key, 'asc'|'desc')] from the repeated query parameters.

    Directions pair with keys in order; missing ones are ``desc``.
    """
    if len(dirs) > len(keys):
        raise exception.InvalidSort(
            'There are more sort directions than sort keys.')
    result = []
    for index, key in enumerate(keys):
        direction = dirs[index] if index < len(dirs) else 'desc'
        if direction not in ('asc', 'desc'):
            raise exception.InvalidSort(
                'Invalid sort direction: %s' % direction)
        if key in IGNORED_KEYS or (key in ADMIN_ONLY_KEYS and
                                   not is_admin):
            continue
        if key not in SORT_KEYS:
            raise exception.InvalidSort('Invalid sort key: %s' % key)
        result.append((key, direction))
    return result


def _value(server, key):
    instance = server.instance
    if not instance.obj_attr_is_set(key):
        return (0, None)
    value = getattr(instance, key)
    if value is None:
        return (0, None)
    if hasattr(value, 'replace') and hasattr(value, 'isoformat'):
        value = value.replace(tzinfo=None)
    return (1, value)


def sort(servers, sort_spec):
    """``servers`` ordered by ``sort_spec`` ([(key, direction)])."""
    ordered = list(servers)
    for key, direction in reversed(sort_spec):
        ordered.sort(key=lambda s, k=key: _value(s, k),
                     reverse=direction == 'desc')
    return ordered


# The default order, which breaks a user's order's ties (uuid: unique).
_TIES = (('created_at', 'desc'), ('uuid', 'desc'))


def full_order(sort_spec):
    """``sort_spec`` and the default order after it: a total order, the
    one :func:`sort` gives a newest-first list."""
    keys = {key for key, _direction in sort_spec}
    return list(sort_spec) + [tie for tie in _TIES if tie[0] not in keys]


def values(server, order):
    """The server's values of the keys of ``order``, as stored (None when
    unknown, datetimes naive UTC): a keyset marker for the cells."""
    return [_value(server, key)[1] for key, _direction in order]


def is_after(server, marker, order):
    """Whether ``server`` comes after ``marker`` in ``order``."""
    for key, direction in order:
        mine, theirs = _value(server, key), _value(marker, key)
        if mine == theirs:
            continue
        return mine > theirs if direction == 'asc' else mine < theirs
    return False
