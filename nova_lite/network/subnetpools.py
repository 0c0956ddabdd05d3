"""Neutron's ``subnet_allocation`` and ``address-scope``.

A subnet pool holds prefixes (one IP version) from which subnets are
cut: a subnet created with ``subnetpool_id`` gets the first free block
of its ``prefixlen`` (the pool's ``default_prefixlen`` when not given)
or the ``cidr`` it names, which must lie in the pool and be free. The
prefix bounds default as Neutron's (``min_prefixlen`` 8 or 64,
``max_prefixlen`` 32 or 128, ``default_prefixlen`` the minimum). An
address scope groups pools of one IP version; a pool names at most one.
An admin marks at most one pool per IP version ``is_default``: a subnet
created with ``use_default_subnetpool`` is cut from it.
A project sees its own pools and scopes and those shared with it (an
RBAC policy, :mod:`.rbac`; ``shared`` is a ``*`` one); only an admin
shares one with every project. A pool with subnets cannot be deleted
(409), nor a scope with pools.
"""

import ipaddress

from oslo_log import log as logging

from nova_lite.network import common
from nova_lite.network import errors
from nova_lite.network import objects as net_obj
from nova_lite.network import policy
from nova_lite.network import rbac

LOG = logging.getLogger(__name__)

POOL = 'subnetpool'
SCOPE = 'address_scope'
POOL_KEYS = ('name', 'prefixes', 'default_prefixlen', 'min_prefixlen',
             'max_prefixlen', 'shared', 'is_default', 'default_quota',
             'address_scope_id', 'description', 'project_id', 'tenant_id')
SCOPE_KEYS = ('name', 'shared', 'ip_version', 'description', 'project_id',
              'tenant_id')


def visible(context, resource):
    return common.owns(context, resource) or resource.get('shared') or \
        rbac.granted(rbac.grants(context, resource['id']).get(
            resource['id'], set()), rbac.SHARED, context.project_id)


# -- address scopes ----------------------------------------------------------

def list_scopes(context):
    return [s for s in net_obj.get_all(context, SCOPE)
            if visible(context, s)]


def get_scope(context, scope_id):
    return common.get(context, SCOPE, scope_id, visible)


def create_scope(context, values):
    common.check_keys(values, SCOPE_KEYS, SCOPE)
    common.check_string(values, 'name')
    common.check_bool(values, 'shared')
    common.check_project(context, values)
    policy.authorize(context, 'create', SCOPE, values,
                     [k for k in values if values[k]])
    if values.get('ip_version') not in (4, 6):
        raise errors.bad_request(
            "Invalid input for ip_version. Reason: %s is not in valid "
            "values [4, 6]." % (values.get('ip_version'),))
    scope = common.standard(context, {
        'name': values.get('name', ''), 'ip_version': values['ip_version'],
        'shared': values.get('shared', False),
        'description': values.get('description', '')},
        values.get('project_id') or values.get('tenant_id'))
    net_obj.create(context, SCOPE, scope)
    if scope['shared']:
        rbac.set_wildcard(context, SCOPE, scope, rbac.SHARED, True)
    return scope


def update_scope(context, scope_id, values):
    scope = _owned(context, SCOPE, get_scope(context, scope_id))
    common.check_keys(values, ('name', 'shared', 'description'), SCOPE)
    common.check_string(values, 'name')
    common.check_bool(values, 'shared')
    policy.authorize(context, 'update', SCOPE, scope,
                     [k for k in values if values[k] != scope.get(k)])
    if 'shared' in values and values['shared'] != scope['shared']:
        rbac.set_wildcard(context, SCOPE, scope, rbac.SHARED,
                          values['shared'])
    scope.update(values)
    net_obj.update(context, SCOPE, common.touch(scope))
    return scope


def delete_scope(context, scope_id):
    scope = _owned(context, SCOPE, get_scope(context, scope_id))
    policy.authorize(context, 'delete', SCOPE, scope)
    if any(p.get('address_scope_id') == scope_id
           for p in net_obj.get_all(context, POOL)):
        raise errors.conflict(
            'AddressScopeInUse', 'Unable to complete operation on address '
            'scope %s. There are one or more subnet pools in use on the '
            'address scope.' % scope_id)
    net_obj.destroy(context, SCOPE, scope_id)
    rbac.purge(context, scope_id)


def _owned(context, kind, resource):
    """404 for a shared resource another project owns (Neutron hides
    what the caller may not change)."""
    if not common.owns(context, resource):
        raise errors.not_found(kind, resource['id'])
    return resource


# -- subnet pools ------------------------------------------------------------

def list_pools(context):
    return [p for p in net_obj.get_all(context, POOL)
            if visible(context, p)]


def get_pool(context, pool_id):
    return common.get(context, POOL, pool_id, visible)


def default_pool(context, version):
    """The ``is_default`` pool of IP ``version`` the caller sees, or
    None."""
    return next((p for p in list_pools(context) if p.get('is_default')
                 and p['ip_version'] == version), None)


def _one_default(context, version, pool_id=None):
    """Neutron's 400 when another pool is the default of ``version``."""
    if any(p.get('is_default') and p['ip_version'] == version and
           p['id'] != pool_id for p in net_obj.get_all(context, POOL)):
        raise errors.bad_request(
            'Invalid input for operation: A default subnetpool for this '
            'IP family has already been set. Only one default may exist '
            'per IP family.', 'InvalidInput')


def _prefixes(values):
    prefixes = values.get('prefixes')
    if not isinstance(prefixes, list) or not prefixes:
        raise errors.bad_request(
            "Invalid input for prefixes. Reason: a subnet pool needs a "
            "list of prefixes.")
    try:
        nets = [ipaddress.ip_network(p, strict=False) for p in prefixes]
    except (TypeError, ValueError):
        raise errors.bad_request(
            "Invalid input for prefixes. Reason: '%s' is not a list of "
            "valid IP subnets." % (prefixes,))
    if len({n.version for n in nets}) != 1:
        raise errors.bad_request(
            'Cannot mix IPv4 and IPv6 prefixes in a subnet pool.',
            'PrefixVersionMismatch')
    return [str(n) for n in ipaddress.collapse_addresses(nets)]


def _bounds(values, version, current=None):
    bits = 32 if version == 4 else 128
    current = current or {}
    low = values.get('min_prefixlen',
                     current.get('min_prefixlen', 8 if version == 4 else 64))
    high = values.get('max_prefixlen', current.get('max_prefixlen', bits))
    default = values.get('default_prefixlen',
                         current.get('default_prefixlen', low))
    try:
        low, high, default = int(low), int(high), int(default)
    except (TypeError, ValueError):
        raise errors.bad_request('Illegal prefix bounds.',
                                 'IllegalSubnetPoolPrefixBounds')
    if not 0 <= low <= default <= high <= bits:
        raise errors.bad_request(
            'Illegal prefix bounds: min_prefixlen %s, default_prefixlen '
            '%s, max_prefixlen %s.' % (low, default, high),
            'IllegalSubnetPoolPrefixBounds')
    return {'min_prefixlen': low, 'max_prefixlen': high,
            'default_prefixlen': default}


def _scope(context, scope_id, version):
    if scope_id is None:
        return None
    scope = get_scope(context, scope_id)
    if scope['ip_version'] != version:
        raise errors.bad_request(
            'Illegal subnetpool association: subnetpool cannot be '
            'associated with address scope %s: IP versions differ.'
            % scope_id, 'IllegalSubnetPoolAssociationToAddressScope')
    return scope_id


def create_pool(context, values):
    common.check_keys(values, POOL_KEYS, POOL)
    common.check_string(values, 'name')
    for key in ('shared', 'is_default'):
        common.check_bool(values, key)
    common.check_project(context, values)
    policy.authorize(context, 'create', POOL, values,
                     [k for k in values if values[k]])
    prefixes = _prefixes(values)
    version = ipaddress.ip_network(prefixes[0]).version
    if values.get('is_default'):
        _one_default(context, version)
    pool = common.standard(context, dict(
        _bounds(values, version), name=values.get('name', ''),
        prefixes=prefixes, ip_version=version,
        shared=values.get('shared', False),
        is_default=values.get('is_default', False),
        default_quota=values.get('default_quota'),
        address_scope_id=_scope(context, values.get('address_scope_id'),
                                version),
        description=values.get('description', '')),
        values.get('project_id') or values.get('tenant_id'))
    net_obj.create(context, POOL, pool)
    if pool['shared']:
        rbac.set_wildcard(context, POOL, pool, rbac.SHARED, True)
    LOG.info('Subnet pool %s created (%s)', pool['id'],
             ', '.join(prefixes))
    return pool


def update_pool(context, pool_id, values):
    pool = _owned(context, POOL, get_pool(context, pool_id))
    common.check_keys(values, tuple(k for k in POOL_KEYS if k not in (
        'project_id', 'tenant_id', 'shared')), POOL)
    common.check_string(values, 'name')
    common.check_bool(values, 'is_default')
    policy.authorize(context, 'update', POOL, pool,
                     [k for k in values if values[k] != pool.get(k)])
    if values.get('is_default'):
        _one_default(context, pool['ip_version'], pool_id)
    if 'prefixes' in values:
        prefixes = _prefixes(values)
        old = [ipaddress.ip_network(p) for p in pool['prefixes']]
        new = [ipaddress.ip_network(p) for p in prefixes]
        if new[0].version != pool['ip_version'] or not all(
                any(o.subnet_of(n) for n in new) for o in old):
            raise errors.bad_request(
                'Illegal update to prefixes: existing prefixes must be '
                'kept (only added or grown).', 'IllegalPrefixUpdate')
        values['prefixes'] = prefixes
    if 'address_scope_id' in values:
        values['address_scope_id'] = _scope(
            context, values['address_scope_id'], pool['ip_version'])
    values.update(_bounds(values, pool['ip_version'], pool))
    pool.update(values)
    net_obj.update(context, POOL, common.touch(pool))
    return pool


def delete_pool(context, pool_id):
    pool = _owned(context, POOL, get_pool(context, pool_id))
    policy.authorize(context, 'delete', POOL, pool)
    if any(s.get('subnetpool_id') == pool_id
           for s in net_obj.get_all(context, 'subnet')):
        raise errors.conflict(
            'SubnetPoolInUse', 'Unable to complete operation on subnet '
            'pool %s. Subnets are still allocated from it.' % pool_id)
    net_obj.destroy(context, POOL, pool_id)
    rbac.purge(context, pool_id)
    LOG.info('Subnet pool %s deleted', pool_id)


def allocate(context, pool_id, values):
    """The CIDR a subnet asking for ``pool_id`` gets: the ``cidr`` it
    names (inside the pool, free) or the first free block of its
    ``prefixlen``."""
    pool = get_pool(context, pool_id)
    taken = [ipaddress.ip_network(s['cidr'])
             for s in net_obj.get_all(context, 'subnet')
             if s.get('subnetpool_id') == pool_id]
    prefixes = [ipaddress.ip_network(p) for p in pool['prefixes']]
    if values.get('cidr'):
        try:
            wanted = ipaddress.ip_network(values['cidr'], strict=False)
        except ValueError:
            raise errors.bad_request(
                "Invalid input for cidr. Reason: '%s' is not a valid IP "
                "subnet." % values['cidr'])
        if wanted.version != pool['ip_version'] or not any(
                wanted.subnet_of(p) for p in prefixes) or any(
                wanted.overlaps(t) for t in taken):
            raise errors.conflict(
                'SubnetAllocationError', 'Failed to allocate subnet: '
                'Cannot allocate requested subnet from the available set '
                'of prefixes.')
        return pool, str(wanted)
    try:
        length = int(values.get('prefixlen', pool['default_prefixlen']))
    except (TypeError, ValueError):
        raise errors.bad_request('Invalid input for prefixlen.')
    if not pool['min_prefixlen'] <= length <= pool['max_prefixlen']:
        raise errors.bad_request(
            'Unable to allocate subnet with prefix length %s, maximum '
            'allowed prefix is %s, minimum allowed prefix is %s.'
            % (length, pool['max_prefixlen'], pool['min_prefixlen']),
            'IllegalSubnetPoolPrefixLength')
    for prefix in prefixes:
        if prefix.prefixlen > length:
            continue
        for block in _blocks(prefix, length, taken):
            return pool, str(block)
    raise errors.conflict(
        'SubnetAllocationError', 'Failed to allocate subnet: Insufficient '
        'prefix space to allocate subnet size /%s.' % length)


def _blocks(prefix, length, taken):
    """The free /``length`` blocks of ``prefix``, first first, skipping
    whole taken ranges rather than walking every block."""
    size = 1 << (prefix.max_prefixlen - length)
    address = int(prefix.network_address)
    end = int(prefix.broadcast_address)
    cls = type(prefix)
    while address + size - 1 <= end:
        block = cls((address, length))
        clash = next((t for t in taken if block.overlaps(t)), None)
        if clash is None:
            yield block
            return
        address = max(address + size,
                      (int(clash.broadcast_address) // size + 1) * size)
