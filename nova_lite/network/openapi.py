"""The network service's OpenAPI 3.1 document, made from its route table.

Paths and methods come from ``router.ROUTES``. The collections share one
set of handlers (:mod:`.handlers`: list, create, show, update, delete),
so their bodies and answers are given per path here, from one table of
each resource's attributes (Neutron's API reference: names and types;
``fields`` may leave any of them out of an answer, so none is required
in an item). A request body lists the attributes the handler accepts
(each resource's ``*_KEYS``): Neutron refuses any other with 400
"Unrecognized attribute(s)", and so does the document
(``additionalProperties: false``). Values are checked in code, as
Neutron does, so the document says their types, not every rule. Served
at ``/network/openapi.json`` without credentials.
"""

from nova_lite.network import flavors
from nova_lite.network import handlers
from nova_lite.network import networks
from nova_lite.network import ports
from nova_lite.network import rbac
from nova_lite.network import routers
from nova_lite.network import secgroups
from nova_lite.network import subnetpools
from nova_lite.network import tags
from nova_lite.network import trunks
from nova_lite.wsgi import openapi

PATH = '/network/openapi.json'
PREFIX = '/network/v2.0'
Op = openapi.Operation
fields = openapi.fields

ERROR = {
    'type': 'object',
    'properties': {'NeutronError': {
        'type': 'object',
        'properties': {'type': {'type': 'string'},
                       'message': {'type': 'string'},
                       'detail': {'type': 'string'}},
        'required': ['type', 'message', 'detail']}},
    'required': ['NeutronError']}

_LIST = {'type': 'array'}
_STRINGS = {'type': 'array', 'items': {'type': 'string'}}
_ANY = {}

# The standard attributes every resource with a project has.
STANDARD = dict(id='string', name='string', description='string',
                project_id='string', tenant_id='string',
                created_at='string', updated_at='string',
                revision_number='integer', tags=_STRINGS)

# member key -> its attributes (Neutron's names; ``__`` stands for ``:``).
RESOURCES = {
    'network': dict(
        admin_state_up='boolean', status='string', subnets=_STRINGS,
        shared='boolean', router__external='boolean', mtu='integer',
        port_security_enabled='boolean', availability_zone_hints=_STRINGS,
        availability_zones=_STRINGS, ipv4_address_scope='string?',
        ipv6_address_scope='string?', l2_adjacency='boolean',
        is_default='boolean', provider__network_type='string?',
        provider__physical_network='string?',
        provider__segmentation_id='integer?'),
    'subnet': dict(
        network_id='string', cidr='string', ip_version='integer',
        gateway_ip='string?', allocation_pools=_LIST, enable_dhcp='boolean',
        dns_nameservers=_STRINGS, host_routes=_LIST, ipv6_ra_mode='string?',
        ipv6_address_mode='string?', subnetpool_id='string?',
        service_types=_STRINGS, segment_id='string?', prefixlen='integer',
        use_default_subnetpool='boolean'),
    'port': dict(
        network_id='string', admin_state_up='boolean', mac_address='string',
        fixed_ips=_LIST, device_id='string', device_owner='string',
        security_groups=_STRINGS, status='string',
        binding__host_id='string', binding__vnic_type='string',
        binding__profile='object?', binding__vif_type='string',
        binding__vif_details='object?', port_security_enabled='boolean',
        allowed_address_pairs=_LIST, extra_dhcp_opts=_LIST,
        dns_name='string', dns_assignment=_LIST, trunk_details='object?'),
    'security_group': dict(security_group_rules=_LIST, stateful='boolean',
                           shared='boolean'),
    'security_group_rule': dict(
        security_group_id='string', direction='string', ethertype='string',
        protocol='string?', port_range_min='integer?',
        port_range_max='integer?', remote_ip_prefix='string?',
        remote_group_id='string?', remote_address_group_id='string?'),
    'floatingip': dict(
        floating_network_id='string', floating_ip_address='string',
        fixed_ip_address='string?', port_id='string?', router_id='string?',
        subnet_id='string?', status='string', port_details='object?'),
    'router': dict(
        admin_state_up='boolean', status='string',
        external_gateway_info='object?', routes=_LIST,
        distributed='boolean', ha='boolean',
        availability_zone_hints=_STRINGS, availability_zones=_STRINGS),
    'subnetpool': dict(
        prefixes=_STRINGS, default_prefixlen='integer',
        min_prefixlen='integer', max_prefixlen='integer', shared='boolean',
        is_default='boolean', default_quota='integer?',
        address_scope_id='string?', ip_version='integer'),
    'address_scope': dict(shared='boolean', ip_version='integer'),
    'flavor': dict(service_type='string', enabled='boolean',
                   service_profiles=_STRINGS),
    'service_profile': dict(driver='string', metainfo='string',
                            enabled='boolean'),
    'rbac_policy': dict(object_type='string', object_id='string',
                        action='string', target_tenant='string'),
    'trunk': dict(port_id='string', admin_state_up='boolean',
                  status='string', sub_ports=_LIST),
}

# member key -> (the attributes a create accepts, those it requires, those
# an update accepts): the handlers' own lists.
WRITES = {
    'network': (networks.NETWORK_KEYS, (), networks.NETWORK_KEYS),
    'subnet': (networks.SUBNET_KEYS, ('network_id',),
               ('name', 'description', 'enable_dhcp', 'dns_nameservers',
                'host_routes', 'gateway_ip', 'allocation_pools')),
    'port': (ports.PORT_KEYS, ('network_id',), ports.PORT_KEYS),
    'security_group': (('name', 'description', 'project_id', 'tenant_id',
                        'stateful'), (), ('name', 'description',
                                          'stateful')),
    'security_group_rule': (secgroups.RULE_KEYS,
                            ('security_group_id', 'direction'), None),
    'floatingip': (ports.FIP_KEYS, ('floating_network_id',),
                   ('port_id', 'fixed_ip_address', 'description')),
    'router': (routers.ROUTER_KEYS, (), routers.ROUTER_KEYS),
    'subnetpool': (subnetpools.POOL_KEYS, ('prefixes',),
                   tuple(k for k in subnetpools.POOL_KEYS
                         if k not in ('shared', 'project_id',
                                      'tenant_id'))),
    'address_scope': (subnetpools.SCOPE_KEYS, ('ip_version',),
                      ('name', 'shared', 'description')),
    'flavor': (flavors.FLAVOR_KEYS, ('service_type',),
               ('name', 'description', 'enabled')),
    'service_profile': (flavors.PROFILE_KEYS, (), flavors.PROFILE_KEYS),
    'rbac_policy': (rbac.KEYS, ('object_type', 'object_id', 'action',
                                'target_tenant'), ('target_tenant',)),
    'trunk': (trunks.KEYS, ('port_id',),
              ('name', 'description', 'admin_state_up')),
}

_WRITE_TYPES = dict(STANDARD, external_gateway_info='object?',
                    routes=_LIST, sub_ports=_LIST, segmentation_id='integer')


def item(key):
    """One ``key`` resource as the service answers it."""
    return fields(**dict(STANDARD, **RESOURCES[key]))


def _writable(key, names, required=()):
    types = dict(_WRITE_TYPES, **RESOURCES[key])
    schema = fields(required, **{n.replace(':', '__'): types.get(
        n.replace(':', '__'), _ANY) for n in names})
    schema['additionalProperties'] = False
    return schema


def _collection_entries(responses, bodies):
    for name, key in handlers.collections().items():
        plural = handlers.plural_of(key)
        base = '%s/%s' % (PREFIX, name)
        member = base + '/{id}'
        responses[('GET', base)] = {'200': openapi.many(plural, item(key))}
        responses[('GET', member)] = {'200': openapi.one(key, item(key))}
        responses[('POST', base)] = {'201': {'anyOf': [
            openapi.one(key, item(key)),
            openapi.many(plural, item(key))]}}
        create, required, update = WRITES[key]
        one = _writable(key, create, required)
        bodies[('POST', base)] = {'anyOf': [
            openapi.one(key, one),
            openapi.many(plural, one)]}
        if update is not None:
            responses[('PUT', member)] = {'200': openapi.one(key,
                                                             item(key))}
            bodies[('PUT', member)] = openapi.one(
                key, _writable(key, update))


_AGENT = fields(**dict(
    id='string', agent_type='string', binary='string', topic='string',
    host='string', admin_state_up='boolean', alive='boolean',
    availability_zone='string?', description='string?',
    configurations='object', created_at='string', started_at='string',
    heartbeat_timestamp='string', resources_synced='boolean?'))
_QUOTA = {'type': 'object', 'additionalProperties': {'type': 'integer'}}
_QUOTA_DETAIL = {'type': 'object', 'additionalProperties': fields(
    ('limit', 'used', 'reserved'), limit='integer', used='integer',
    reserved='integer')}
_INTERFACE = fields(('id', 'port_id', 'subnet_id'), id='string',
                    port_id='string', subnet_id='string',
                    subnet_ids=_STRINGS, network_id='string',
                    project_id='string', tenant_id='string', tags=_STRINGS)
_TAGS = openapi.one('tags', {'type': 'array', 'items': {
    'type': 'string', 'minLength': 1, 'maxLength': tags.MAX_TAG_LEN}})
_SUBPORTS = openapi.one('sub_ports', {'type': 'array', 'items': fields(
    ('port_id',), port_id='string', segmentation_type='string',
    segmentation_id='integer')})


def _fixed_entries(responses, bodies):
    json_null = {'type': 'null'}
    for name in sorted(tags.TAGGABLE):
        path = '%s/%s/{id}/tags' % (PREFIX, name)
        responses[('GET', path)] = {'200': _TAGS}
        responses[('PUT', path)] = {'200': _TAGS}
        bodies[('PUT', path)] = _TAGS
        responses[('DELETE', path)] = {'204': None}
        responses[('GET', path + '/{tag}')] = {'204': None}
        responses[('DELETE', path + '/{tag}')] = {'204': None}
    agent = PREFIX + '/agents/{id}'
    responses.update({
        ('GET', '/network'): {'200': openapi.many('versions', fields(
            ('id', 'status', 'links'), id='string', status='string',
            links=_LIST))},
        ('GET', PREFIX): {'200': openapi.many('resources', fields(
            ('name', 'collection', 'links'), name='string',
            collection='string', links=_LIST))},
        ('GET', PREFIX + '/agents'): {'200': openapi.many('agents', _AGENT)},
        ('GET', agent): {'200': openapi.one('agent', _AGENT)},
        ('PUT', agent): {'200': openapi.one('agent', _AGENT)},
        ('DELETE', agent): {'204': None},
        ('GET', agent + '/dhcp-networks'): {'200': openapi.many(
            'networks', item('network'))},
        ('POST', agent + '/dhcp-networks'): {'201': json_null},
        ('DELETE', agent + '/dhcp-networks/{member}'): {'204': None},
        ('GET', agent + '/l3-routers'): {'200': openapi.many(
            'routers', item('router'))},
        ('POST', agent + '/l3-routers'): {'201': json_null},
        ('DELETE', agent + '/l3-routers/{member}'): {'204': None},
        ('GET', PREFIX + '/networks/{id}/dhcp-agents'): {
            '200': openapi.many('agents', _AGENT)},
        ('GET', PREFIX + '/routers/{id}/l3-agents'): {
            '200': openapi.many('agents', _AGENT)},
        ('GET', PREFIX + '/availability_zones'): {'200': openapi.many(
            'availability_zones', fields(name='string', resource='string',
                                         state='string'))},
        ('GET', PREFIX + '/extensions'): {'200': openapi.many(
            'extensions', fields(('alias', 'name'), alias='string',
                                 name='string', description='string',
                                 updated='string', links=_LIST))},
        ('GET', PREFIX + '/extensions/{alias}'): {'200': openapi.one(
            'extension', fields(('alias', 'name'), alias='string',
                                name='string', description='string',
                                updated='string', links=_LIST))},
        ('POST', PREFIX + '/flavors/{id}/service_profiles'): {
            '201': openapi.one('service_profile', fields(id='string'))},
        ('GET', PREFIX + '/flavors/{id}/service_profiles/{profile_id}'): {
            '200': openapi.one('service_profile', fields(
                id='string', flavor_id='string'))},
        ('DELETE', PREFIX + '/flavors/{id}/service_profiles/{profile_id}'):
            {'204': None},
        ('GET', PREFIX + '/network-ip-availabilities'): {
            '200': openapi.many('network_ip_availabilities')},
        ('GET', PREFIX + '/network-ip-availabilities/{network_id}'): {
            '200': openapi.one('network_ip_availability')},
        ('GET', PREFIX + '/quotas'): {'200': openapi.many('quotas')},
        ('GET', PREFIX + '/quotas/{project_id}'): {
            '200': openapi.one('quota', _QUOTA)},
        ('PUT', PREFIX + '/quotas/{project_id}'): {
            '200': openapi.one('quota', _QUOTA)},
        ('DELETE', PREFIX + '/quotas/{project_id}'): {'204': None},
        ('GET', PREFIX + '/quotas/{project_id}/default'): {
            '200': openapi.one('quota', _QUOTA)},
        ('GET', PREFIX + '/quotas/{project_id}/details'): {
            '200': openapi.one('quota', _QUOTA_DETAIL)},
        ('GET', PREFIX + '/service-providers'): {'200': openapi.many(
            'service_providers', fields(service_type='string',
                                        name='string', default='boolean'))},
        ('PUT', PREFIX + '/routers/{id}/add_router_interface'): {
            '200': _INTERFACE},
        ('PUT', PREFIX + '/routers/{id}/remove_router_interface'): {
            '200': _INTERFACE},
        ('PUT', PREFIX + '/routers/{id}/add_extraroutes'): {
            '200': openapi.one('router', item('router'))},
        ('PUT', PREFIX + '/routers/{id}/remove_extraroutes'): {
            '200': openapi.one('router', item('router'))},
        ('PUT', PREFIX + '/trunks/{id}/add_subports'): {
            '200': item('trunk')},
        ('PUT', PREFIX + '/trunks/{id}/remove_subports'): {
            '200': item('trunk')},
        ('GET', PREFIX + '/trunks/{id}/get_subports'): {'200': _SUBPORTS},
    })
    bodies.update({
        ('PUT', agent): openapi.one('agent', dict(fields(
            admin_state_up='boolean', description='string?'),
            additionalProperties=False)),
        ('POST', agent + '/dhcp-networks'): fields(
            ('network_id',), network_id='string'),
        ('POST', agent + '/l3-routers'): fields(
            ('router_id',), router_id='string'),
        ('POST', PREFIX + '/flavors/{id}/service_profiles'): openapi.one(
            'service_profile', dict(fields(('id',), id='string'),
                                    additionalProperties=False)),
        ('PUT', PREFIX + '/quotas/{project_id}'): openapi.one(
            'quota', {'type': 'object',
                      'additionalProperties': {'type': 'integer'}}),
        ('PUT', PREFIX + '/routers/{id}/add_router_interface'): fields(
            subnet_id='string', port_id='string'),
        ('PUT', PREFIX + '/routers/{id}/remove_router_interface'): fields(
            subnet_id='string', port_id='string'),
        ('PUT', PREFIX + '/routers/{id}/add_extraroutes'): openapi.one(
            'router', fields(('routes',), routes=_LIST)),
        ('PUT', PREFIX + '/routers/{id}/remove_extraroutes'): openapi.one(
            'router', fields(('routes',), routes=_LIST)),
        ('PUT', PREFIX + '/trunks/{id}/add_subports'): _SUBPORTS,
        ('PUT', PREFIX + '/trunks/{id}/remove_subports'): _SUBPORTS,
    })


def tables():
    """``(responses, bodies)``: the per-path schemas of
    :class:`nova_lite.wsgi.openapi.Service`."""
    responses, bodies = {}, {}
    _collection_entries(responses, bodies)
    _fixed_entries(responses, bodies)
    return responses, bodies


OPERATIONS = {
    handlers.delete_resource: Op(responses={'204': None}),
    tags.add_tag: Op(no_body=True, responses={'201': None}),
}


def service(routes):
    """The network service as :mod:`nova_lite.wsgi.openapi` describes
    it."""
    responses, bodies = tables()
    return openapi.Service(
        name='network', title='nova_lite network service',
        description='The Networking API v2.0 (Neutron\'s shapes) as '
                    'nova-lite-api serves it under /network.',
        routes=routes, operations=OPERATIONS, error_schema=ERROR,
        public=frozenset([PATH]), tag_depth=2, responses=responses,
        bodies=bodies)


def document(routes):
    """The network service's document for its route table."""
    return openapi.document(service(routes))
