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

from nova_lite.network import attributes
from nova_lite.network import flavors
from nova_lite.network import handlers
from nova_lite.network import networks
from nova_lite.network import ports
from nova_lite.network import qos
from nova_lite.network import quotas
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

_LIST = attributes.LIST
_STRINGS = attributes.STRINGS
_ANY = {}
STANDARD = attributes.STANDARD
RESOURCES = attributes.RESOURCES

# member key -> (the attributes a create accepts, those it requires, those
# an update accepts): the handlers' own lists.
WRITES = {
    'network': (networks.NETWORK_KEYS, (), networks.NETWORK_KEYS),
    'subnet': (networks.SUBNET_KEYS, ('network_id', 'ip_version', 'cidr'),
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
    # Routes are set by an update, not at create (Neutron: 400).
    'router': (tuple(k for k in routers.ROUTER_KEYS if k != 'routes'), (),
               routers.ROUTER_KEYS),
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
    'policy': (qos.POLICY_KEYS, (), qos.UPDATE_KEYS),
    'trunk': (trunks.KEYS, ('port_id',),
              ('name', 'description', 'admin_state_up')),
}

_WRITE_TYPES = dict(STANDARD, external_gateway_info='object?',
                    routes=_LIST, sub_ports=_LIST, segmentation_id='integer')
_OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])'
IPV4 = {'type': 'string',
        'pattern': r'^%s(\.%s){3}$' % (_OCTET, _OCTET)}
# An IPv4 CIDR (the service takes IPv6 ones too; the document says the
# IPv4 form, which a pattern can hold exactly).
CIDR = {'type': 'string', 'pattern': r'^%s(\.%s){3}/([0-9]|[12][0-9]|3[0-2])$'
        % (_OCTET, _OCTET)}
# The ids a write names: UUIDs (Neutron checks them so).
_IDS = {name: openapi.UUID for name in (
    'network_id', 'port_id', 'subnet_id', 'floating_network_id',
    'security_group_id', 'remote_group_id', 'remote_address_group_id',
    'address_scope_id', 'subnetpool_id', 'object_id', 'segment_id')}
# A QoS policy is detached with null.
_IDS['qos_policy_id'] = {'anyOf': [openapi.UUID, {'type': 'null'}]}
_PREFIXLEN = {'type': 'integer', 'minimum': 0, 'maximum': 128}
_ROUTE = dict(fields(('destination', 'nexthop'), destination=CIDR,
                     nexthop=IPV4), additionalProperties=False)
# What a write takes where the answer's type says less (values the
# handlers check against a list).
REQUEST_TYPES = {
    'subnet': dict(ip_version={'enum': [4, 6]}, cidr=CIDR),
    'address_scope': dict(ip_version={'enum': [4, 6]}),
    'subnetpool': dict(prefixes={'type': 'array', 'items': CIDR,
                                 'minItems': 1},
                       default_prefixlen=_PREFIXLEN, min_prefixlen=_PREFIXLEN,
                       max_prefixlen=_PREFIXLEN),
    'rbac_policy': dict(target_tenant={'type': 'string', 'minLength': 1},
                        object_type={'enum': sorted(rbac.ACTIONS)},
                        action={'enum': sorted({
                            a for acts in rbac.ACTIONS.values()
                            for a in acts})}),
    'security_group_rule': dict(
        direction={'enum': ['ingress', 'egress']},
        ethertype={'enum': ['IPv4', 'IPv6']},
        protocol={'anyOf': [
            {'enum': sorted(secgroups.PROTOCOLS) + ['any', None]},
            {'type': 'string', 'pattern':
             '^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$'},
            {'type': 'integer', 'minimum': 0, 'maximum': 255}]},
        port_range_min={'type': ['integer', 'null'], 'minimum': 0,
                        'maximum': 65535},
        port_range_max={'type': ['integer', 'null'], 'minimum': 0,
                        'maximum': 65535}),
    'flavor': dict(service_type={'enum': list(flavors.SERVICE_TYPES)}),
    'service_profile': dict(driver={'type': 'string', 'minLength': 1},
                            metainfo={'type': 'string', 'minLength': 1}),
    'port': dict(mac_address={'type': 'string',
                              'pattern': ports.MAC_PATTERN},
                 fixed_ips={'type': 'array', 'items': dict(fields(
        subnet_id=openapi.UUID, ip_address=IPV4),
        additionalProperties=False)}),
    'router': dict(routes={'type': 'array', 'items': _ROUTE},
                   external_gateway_info={'anyOf': [{'type': 'null'}, dict(
                       fields(('network_id',), network_id=openapi.UUID,
                              enable_snat='boolean',
                              external_fixed_ips=_LIST,
                              qos_policy_id=_IDS['qos_policy_id']),
                       additionalProperties=False)]}),
}


def item(key):
    """One ``key`` resource as the service answers it."""
    return fields(**dict(STANDARD, **RESOURCES[key]))


def _writable(key, names, required=()):
    types = dict(_WRITE_TYPES, **RESOURCES[key])
    types.update(_IDS)
    types.update(REQUEST_TYPES.get(key, {}))
    schema = fields(required, **{n.replace(':', '__'): types.get(
        n.replace(':', '__'), _ANY) for n in names})
    schema['additionalProperties'] = False
    return schema


def _only(schema):
    """``schema`` with no other property (a body has its resource key
    and nothing else)."""
    return dict(schema, additionalProperties=False)


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
        if key == 'service_profile':
            # Neutron: "Service Profile needs either a driver or metainfo."
            one['anyOf'] = [{'required': ['driver']},
                            {'required': ['metainfo']}]
        bodies[('POST', base)] = {'anyOf': [
            _only(openapi.one(key, one)),
            _only(openapi.many(plural, one))]}
        if update is not None:
            # Neutron: "Cannot update read-only attribute tenant_id".
            update = [n for n in update
                      if n not in ('project_id', 'tenant_id')]
            responses[('PUT', member)] = {'200': openapi.one(key,
                                                             item(key))}
            bodies[('PUT', member)] = _only(openapi.one(
                key, _writable(key, update)))


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
# Neutron takes a subnet or a port, one of them.
_INTERFACE_IN = dict(fields(subnet_id=openapi.UUID, port_id=openapi.UUID),
                     minProperties=1, maxProperties=1,
                     additionalProperties=False)
_EXTRAROUTES = _only(openapi.one('router', dict(fields(
    ('routes',), routes={'type': 'array', 'items': _ROUTE}),
    additionalProperties=False)))
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
            ('network_id',), network_id=openapi.UUID),
        ('POST', agent + '/l3-routers'): fields(
            ('router_id',), router_id=openapi.UUID),
        ('POST', PREFIX + '/flavors/{id}/service_profiles'): openapi.one(
            'service_profile', dict(fields(('id',), id=openapi.UUID),
                                    additionalProperties=False)),
        ('PUT', PREFIX + '/quotas/{project_id}'): _only(openapi.one(
            'quota', dict(fields(**{
                name: {'type': 'integer', 'minimum': -1}
                for name in quotas.DEFAULTS}), additionalProperties=False))),
        ('PUT', PREFIX + '/routers/{id}/add_router_interface'): _INTERFACE_IN,
        ('PUT', PREFIX + '/routers/{id}/remove_router_interface'):
            _INTERFACE_IN,
        ('PUT', PREFIX + '/routers/{id}/add_extraroutes'): _EXTRAROUTES,
        ('PUT', PREFIX + '/routers/{id}/remove_extraroutes'): _EXTRAROUTES,
        ('PUT', PREFIX + '/trunks/{id}/add_subports'): _SUBPORTS,
        ('PUT', PREFIX + '/trunks/{id}/remove_subports'): _SUBPORTS,
    })


def _qos_rule(rule_type, creating=False):
    """A rule of ``rule_type`` as a write gives it (``creating``: with
    the parameters a create needs), or as the service answers it."""
    params = qos.parameters(rule_type)
    if creating is None:
        return fields(id='string', **{
            name: 'integer' if valid is None or isinstance(valid[0], int)
            else 'string' for name, (valid, _) in params.items()})
    schema = fields(
        [n for n, (_, needed) in params.items() if needed and creating],
        **{name: {'type': 'integer', 'minimum': 0, 'maximum': qos.INT_MAX}
           if valid is None else {'enum': list(valid)}
           for name, (valid, _) in params.items()})
    schema['additionalProperties'] = False
    return schema


def _qos_entries(responses, bodies):
    """The QoS rules under their policy and their aliases, and the rule
    types (the policies are a collection like the others)."""
    base = PREFIX + '/qos'
    responses[('GET', base + '/rule-types')] = {'200': openapi.many(
        'rule_types', fields(('type',), type='string'))}
    responses[('GET', base + '/rule-types/{rule_type}')] = {
        '200': openapi.one('rule_type', fields(
            ('type', 'drivers'), type='string', drivers=_LIST))}
    for rule_type in qos.RULE_TYPES:
        key = rule_type + '_rule'
        shown = _qos_rule(rule_type, creating=None)
        rules = '%s/policies/{policy_id}/%ss' % (base, key)
        rule = rules + '/{rule_id}'
        responses[('GET', rules)] = {'200': openapi.many(key + 's', shown)}
        responses[('POST', rules)] = {'201': openapi.one(key, shown)}
        bodies[('POST', rules)] = _only(openapi.one(
            key, _qos_rule(rule_type, creating=True)))
        responses[('GET', rule)] = {'200': openapi.one(key, shown)}
        responses[('PUT', rule)] = {'200': openapi.one(key, shown)}
        bodies[('PUT', rule)] = _only(openapi.one(key, _qos_rule(rule_type)))
        responses[('DELETE', rule)] = {'204': None}
        if rule_type in qos.ALIASED:
            alias = '%s/alias_%ss/{rule_id}' % (base, key)
            responses[('GET', alias)] = {'200': openapi.one(
                'alias_' + key, shown)}
            responses[('PUT', alias)] = {'200': openapi.one(
                'alias_' + key, shown)}
            bodies[('PUT', alias)] = _only(openapi.one(
                'alias_' + key, _qos_rule(rule_type)))
            responses[('DELETE', alias)] = {'204': None}


def tables():
    """``(responses, bodies)``: the per-path schemas of
    :class:`nova_lite.wsgi.openapi.Service`."""
    responses, bodies = {}, {}
    _collection_entries(responses, bodies)
    _fixed_entries(responses, bodies)
    _qos_entries(responses, bodies)
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
