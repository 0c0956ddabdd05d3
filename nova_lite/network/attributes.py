"""The attributes of the network service's resources and their types.

One table (Neutron's API reference: names and JSON types; ``__`` in a
name stands for ``:``; a type ending in ``?`` may be null) serves the
OpenAPI document (:mod:`.openapi`) and the handlers, which refuse a
value of another type with Neutron's 400 before anything is stored.
Booleans are left to each handler (Neutron converts "true" and "1").
"""

from nova_lite.network import errors

LIST = {'type': 'array'}
STRINGS = {'type': 'array', 'items': {'type': 'string'}}


# The standard attributes every resource with a project has.
STANDARD = dict(id='string', name='string', description='string',
                project_id='string', tenant_id='string',
                created_at='string', updated_at='string',
                revision_number='integer', tags=STRINGS)

# member key -> its attributes (Neutron's names; ``__`` stands for ``:``).
RESOURCES = {
    'network': dict(
        admin_state_up='boolean', status='string', subnets=STRINGS,
        shared='boolean', router__external='boolean', mtu='integer',
        port_security_enabled='boolean', availability_zone_hints=STRINGS,
        availability_zones=STRINGS, ipv4_address_scope='string?',
        ipv6_address_scope='string?', l2_adjacency='boolean',
        is_default='boolean', provider__network_type='string?',
        provider__physical_network='string?',
        provider__segmentation_id='integer?', qos_policy_id='string?'),
    'subnet': dict(
        network_id='string', cidr='string', ip_version='integer',
        gateway_ip='string?', allocation_pools=LIST, enable_dhcp='boolean',
        dns_nameservers=STRINGS, host_routes=LIST, ipv6_ra_mode='string?',
        ipv6_address_mode='string?', subnetpool_id='string?',
        service_types=STRINGS, segment_id='string?', prefixlen='integer',
        use_default_subnetpool='boolean'),
    'port': dict(
        network_id='string', admin_state_up='boolean', mac_address='string',
        fixed_ips=LIST, device_id='string', device_owner='string',
        security_groups=STRINGS, status='string',
        binding__host_id='string', binding__vnic_type='string',
        binding__profile='object?', binding__vif_type='string',
        binding__vif_details='object?', port_security_enabled='boolean',
        allowed_address_pairs=LIST, extra_dhcp_opts=LIST,
        dns_name='string', dns_assignment=LIST, trunk_details='object?',
        qos_policy_id='string?', qos_network_policy_id='string?'),
    'security_group': dict(security_group_rules=LIST, stateful='boolean',
                           shared='boolean'),
    'security_group_rule': dict(
        security_group_id='string', direction='string', ethertype='string',
        protocol={'type': ['string', 'integer', 'null']},
        port_range_min='integer?',
        port_range_max='integer?', remote_ip_prefix='string?',
        remote_group_id='string?', remote_address_group_id='string?'),
    'floatingip': dict(
        floating_network_id='string', floating_ip_address='string',
        fixed_ip_address='string?', port_id='string?', router_id='string?',
        subnet_id='string?', status='string', port_details='object?',
        qos_policy_id='string?'),
    'router': dict(
        admin_state_up='boolean', status='string',
        external_gateway_info='object?', routes=LIST,
        distributed='boolean', ha='boolean',
        availability_zone_hints=STRINGS, availability_zones=STRINGS),
    'subnetpool': dict(
        prefixes=STRINGS, default_prefixlen='integer',
        min_prefixlen='integer', max_prefixlen='integer', shared='boolean',
        is_default='boolean', default_quota='integer?',
        address_scope_id='string?', ip_version='integer'),
    'address_scope': dict(shared='boolean', ip_version='integer'),
    'flavor': dict(service_type='string', enabled='boolean',
                   service_profiles=STRINGS),
    'service_profile': dict(driver='string', metainfo='string',
                            enabled='boolean'),
    'rbac_policy': dict(object_type='string', object_id='string',
                        action='string', target_tenant='string'),
    'policy': dict(shared='boolean', is_default='boolean', rules=LIST),
    'trunk': dict(port_id='string', admin_state_up='boolean',
                  status='string', sub_ports=LIST),
}


_PYTHON = {'string': (str,), 'integer': (int,), 'object': (dict,),
           'array': (list,), 'number': (int, float)}
_WORDS = {'string': 'a valid string', 'integer': 'an integer',
          'object': 'a dictionary', 'array': 'a list',
          'number': 'a number'}


def _kind(spec):
    """The JSON type of a table entry (None for one of several)."""
    if isinstance(spec, dict):
        kind = spec.get('type')
        return kind if isinstance(kind, str) else None
    return spec.rstrip('?')


def check(key, values):
    """400 for an attribute of ``key`` whose value has another type than
    the table's; an integer given as digits (or as 5.0, an integer to
    JSON) becomes the integer, as Neutron converts it."""
    types = dict(STANDARD, **RESOURCES.get(key, {}))
    for name in list(values):
        spec = types.get(name.replace(':', '__'))
        if spec is None:
            continue
        kind = _kind(spec)
        value = values[name]
        # None is each handler's to judge (a name or description of
        # None is taken as not given).
        if kind not in _PYTHON or value is None:
            continue
        if kind == 'integer' and (
                isinstance(value, str) and
                value.strip().lstrip('-').isdigit() or
                isinstance(value, float) and value.is_integer()):
            values[name] = value = int(value)
        if isinstance(value, bool) or not isinstance(value, _PYTHON[kind]):
            raise errors.bad_request(
                "Invalid input for %s. Reason: '%s' is not %s."
                % (name, value, _WORDS[kind]))
