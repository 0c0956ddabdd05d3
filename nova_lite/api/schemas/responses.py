"""What the compute API answers, per route: the OpenAPI document's
response schemas (doc/openapi.md).

``RESPONSES`` maps ``(METHOD, path)`` to ``{status: schema}`` (None: no
body). The statuses are Nova's (its API reference); the shapes are its
wrappers and each item's identifying fields, required where Nova always
gives them. Most items keep further fields open: they grow with the
microversion, and the functional tests hold every answer they see to
these schemas.
"""

from nova_lite.wsgi import openapi

one = openapi.one
many = openapi.many
fields = openapi.fields

V = '/v2.1'
_STR = {'type': 'string'}
_LINKS = {'type': 'array', 'items': fields(
    ('rel', 'href'), rel='string', href='string')}
_PAGE = {'type': 'array'}
_DICT = {'type': 'object', 'additionalProperties': {'type': 'string'}}
_ID = {'type': ['string', 'integer']}


def _with_links(key, item):
    """A list with its ``<key>_links`` (the next page, when limited)."""
    return many(key, item, {key + '_links': _PAGE})


VERSION = fields(('id', 'status', 'links'), id='string', status='string',
                 links=_LINKS, min_version='string', version='string',
                 updated='string', media_types={'type': 'array'})
SERVER_BRIEF = fields(('id', 'links'), id='string', name='string',
                      links=_LINKS)
SERVER = fields(
    ('id', 'status', 'links'), id='string', name='string', status='string',
    tenant_id='string', user_id='string', metadata=_DICT, hostId='string',
    image={'type': ['string', 'object']}, flavor='object',
    created='string', updated='string', addresses='object', links=_LINKS,
    accessIPv4='string', accessIPv6='string', key_name='string?',
    config_drive='string', progress='integer', tags={'type': 'array'},
    locked='boolean', description='string?')
SERVER_CREATED = {'anyOf': [
    one('server', fields(('id', 'links'), id='string', links=_LINKS,
                         adminPass='string',
                         security_groups={'type': 'array'})),
    fields(('reservation_id',), reservation_id='string')]}
FLAVOR_BRIEF = fields(('id', 'name', 'links'), id='string', name='string',
                      links=_LINKS, description='string?')
FLAVOR = fields(('id', 'name', 'ram', 'vcpus', 'disk', 'links'),
                id='string', name='string', ram='integer', vcpus='integer',
                disk='integer', links=_LINKS, swap={'type': ['integer',
                                                             'string']},
                rxtx_factor='number', description='string?',
                extra_specs=_DICT)
FLAVOR_ACCESS = many('flavor_access', fields(
    ('flavor_id', 'tenant_id'), flavor_id='string', tenant_id='string'))
IMAGE = fields(('id', 'links'), id='string', name='string?',
               links=_LINKS, status='string', metadata='object')
AGGREGATE = fields(('id', 'name'), id='integer', name='string',
                   availability_zone='string?', hosts={'type': 'array'},
                   metadata='object', uuid='string')
KEYPAIR = fields(('name',), name='string', public_key='string',
                 fingerprint='string', user_id='string', type='string',
                 private_key='string')
HYPERVISOR = fields(('id',), id=_ID, hypervisor_hostname='string',
                    state='string', status='string')
QUOTA_SET = one('quota_set', fields(('id',), id='string'))
SECURITY_GROUP = fields(('id', 'name'), id=_ID, name='string',
                        description='string', tenant_id='string',
                        rules={'type': 'array'})
SERVER_GROUP = fields(('id', 'name'), id='string', name='string',
                      members={'type': 'array'}, policies={'type': 'array'},
                      policy='string', rules='object', metadata='object',
                      project_id='string', user_id='string')
# From 2.69 a service of a cell that does not answer is listed with
# binary, host, zone, status and state only (as Nova does).
SERVICE = fields(('binary', 'host'), id=_ID, binary='string',
                 host='string', zone='string', status='string',
                 state='string', updated_at='string?',
                 disabled_reason='string?', forced_down='boolean')
MIGRATION = fields(('id',), id='integer', uuid='string', status='string',
                   migration_type='string', source_compute='string?',
                   dest_compute='string?', instance_uuid='string')
INTERFACE = fields(('port_id', 'net_id'), port_id='string', net_id='string',
                   port_state='string', mac_addr='string',
                   fixed_ips={'type': 'array'}, tag='string?')
ACTION = fields(('action', 'request_id'), action='string',
                request_id='string', instance_uuid='string',
                start_time='string', events={'type': 'array'})
FLOATING_IP = fields(('id', 'ip', 'pool'), id=_ID, ip='string',
                     pool='string', fixed_ip='string?', instance_id='string?')
NETWORK = fields(('id',), id='string', label='string', cidr='string?')
HOST_ACTION = fields(('host',), host='string', power_action='string',
                     status='string', maintenance_mode='string')
METADATA = one('metadata', _DICT)
META = one('meta', {'type': 'object', 'minProperties': 1,
                    'maxProperties': 1, 'additionalProperties': _STR})
# A server action answers as the action does: most 202 with no body,
# some 200 or 202 with a body of their own (adminPass, output, console,
# image_id, the rebuilt server), a few 204.
ACTION_ANSWER = {'type': 'object'}


def _crud(base, member, key, item, plural=None, create='200',
          delete='204', listed=None):
    """The list, create, show, update and delete of one collection."""
    plural = plural or key + 's'
    return {
        ('GET', base): {'200': listed or many(plural, item)},
        ('POST', base): {create: one(key, item)},
        ('GET', member): {'200': one(key, item)},
        ('PUT', member): {'200': one(key, item)},
        ('DELETE', member): {delete: None},
    }


def _metadata(base):
    return {
        ('GET', base): {'200': METADATA},
        ('POST', base): {'200': METADATA},
        ('PUT', base): {'200': METADATA},
        ('GET', base + '/{key}'): {'200': META},
        ('PUT', base + '/{key}'): {'200': META},
        ('DELETE', base + '/{key}'): {'204': None},
    }


def _table():
    s = V + '/servers/{server_id}'
    flavor = V + '/flavors/{flavor_id}'
    table = {
        ('GET', '/'): {'200': many('versions', VERSION)},
        ('GET', V): {'200': one('version', VERSION)},
        ('GET', V + '/extensions'): {'200': many('extensions')},
        ('GET', V + '/extensions/{alias}'): {'200': one('extension')},
        ('GET', V + '/limits'): {'200': one('limits', fields(
            ('absolute',), absolute='object', rate={'type': 'array'}))},
        # servers
        ('GET', V + '/servers'): {'200': _with_links('servers',
                                                     SERVER_BRIEF)},
        ('GET', V + '/servers/detail'): {'200': _with_links('servers',
                                                            SERVER)},
        ('POST', V + '/servers'): {'202': SERVER_CREATED},
        ('GET', s): {'200': one('server', SERVER)},
        ('PUT', s): {'200': one('server', SERVER)},
        ('DELETE', s): {'204': None},
        ('POST', s + '/action'): {'200': ACTION_ANSWER,
                                  '202': ACTION_ANSWER, '204': None},
        ('GET', s + '/diagnostics'): {'200': {'type': 'object'}},
        ('GET', s + '/ips'): {'200': one('addresses')},
        ('GET', s + '/ips/{network_label}'): {'200': {
            'type': 'object', 'minProperties': 1, 'maxProperties': 1,
            'additionalProperties': {'type': 'array'}}},
        ('GET', s + '/migrations'): {'200': many('migrations', MIGRATION)},
        ('GET', s + '/migrations/{migration_id}'): {
            '200': one('migration', MIGRATION)},
        ('DELETE', s + '/migrations/{migration_id}'): {'202': None},
        ('POST', s + '/migrations/{migration_id}/action'): {'202': None},
        ('GET', s + '/os-instance-actions'): {'200': many(
            'instanceActions', ACTION, {'links': _LINKS})},
        ('GET', s + '/os-instance-actions/{request_id}'): {
            '200': one('instanceAction', ACTION)},
        ('GET', s + '/os-interface'): {'200': many('interfaceAttachments',
                                                   INTERFACE)},
        ('POST', s + '/os-interface'): {'200': one('interfaceAttachment',
                                                   INTERFACE)},
        ('GET', s + '/os-interface/{port_id}'): {
            '200': one('interfaceAttachment', INTERFACE)},
        ('DELETE', s + '/os-interface/{port_id}'): {'202': None},
        ('GET', s + '/os-security-groups'): {'200': many(
            'security_groups', SECURITY_GROUP)},
        ('GET', s + '/os-server-password'): {'200': one('password',
                                                        _STR)},
        ('DELETE', s + '/os-server-password'): {'204': None},
        ('GET', s + '/tags'): {'200': one('tags', {
            'type': 'array', 'items': _STR})},
        ('PUT', s + '/tags'): {'200': one('tags', {
            'type': 'array', 'items': _STR})},
        ('DELETE', s + '/tags'): {'204': None},
        ('GET', s + '/tags/{tag}'): {'204': None},
        ('PUT', s + '/tags/{tag}'): {'201': None, '204': None},
        ('DELETE', s + '/tags/{tag}'): {'204': None},
        ('GET', s + '/topology'): {'200': fields(
            ('nodes',), nodes={'type': 'array'},
            pagesize_kb='integer?')},
        # flavors
        ('GET', V + '/flavors'): {'200': _with_links('flavors',
                                                     FLAVOR_BRIEF)},
        ('GET', V + '/flavors/detail'): {'200': _with_links('flavors',
                                                            FLAVOR)},
        ('POST', V + '/flavors'): {'200': one('flavor', FLAVOR)},
        ('GET', flavor): {'200': one('flavor', FLAVOR)},
        ('PUT', flavor): {'200': one('flavor', FLAVOR)},
        ('DELETE', flavor): {'202': None},
        ('POST', flavor + '/action'): {'200': FLAVOR_ACCESS},
        ('GET', flavor + '/os-flavor-access'): {'200': FLAVOR_ACCESS},
        ('GET', flavor + '/os-extra_specs'): {'200': one('extra_specs',
                                                         _DICT)},
        ('POST', flavor + '/os-extra_specs'): {'200': one('extra_specs',
                                                          _DICT)},
        ('GET', flavor + '/os-extra_specs/{key}'): {'200': META[
            'properties']['meta']},
        ('PUT', flavor + '/os-extra_specs/{key}'): {'200': META[
            'properties']['meta']},
        ('DELETE', flavor + '/os-extra_specs/{key}'): {'200': None},
        # the image proxy (to 2.35)
        ('GET', V + '/images'): {'200': _with_links('images', IMAGE)},
        ('GET', V + '/images/detail'): {'200': _with_links('images',
                                                           IMAGE)},
        ('GET', V + '/images/{image_id}'): {'200': one('image', IMAGE)},
        ('DELETE', V + '/images/{image_id}'): {'204': None},
        # aggregates, zones
        ('POST', V + '/os-aggregates/{aggregate_id}/action'): {
            '200': one('aggregate', AGGREGATE)},
        ('GET', V + '/os-availability-zone'): {'200': many(
            'availabilityZoneInfo', fields(
                ('zoneName', 'zoneState'), zoneName='string',
                zoneState='object', hosts={'type': ['object', 'null']}))},
        ('GET', V + '/os-availability-zone/detail'): {'200': many(
            'availabilityZoneInfo', fields(
                ('zoneName', 'zoneState'), zoneName='string',
                zoneState='object', hosts={'type': ['object', 'null']}))},
        # the network proxies (to 2.35)
        ('GET', V + '/os-floating-ip-pools'): {'200': many(
            'floating_ip_pools', fields(('name',), name='string'))},
        ('GET', V + '/os-networks'): {'200': many('networks', NETWORK)},
        ('GET', V + '/os-networks/{network_id}'): {
            '200': one('network', NETWORK)},
        ('GET', V + '/os-tenant-networks'): {'200': many('networks',
                                                          NETWORK)},
        ('GET', V + '/os-tenant-networks/{network_id}'): {
            '200': one('network', NETWORK)},
        ('POST', V + '/os-security-group-rules'): {'200': one(
            'security_group_rule', fields(
                ('id', 'parent_group_id'), id=_ID, parent_group_id=_ID,
                ip_protocol='string?', from_port='integer?',
                to_port='integer?', ip_range='object',
                group='object'))},
        ('DELETE', V + '/os-security-group-rules/{rule_id}'): {
            '202': None},
        # hosts (to 2.42), hypervisors
        ('GET', V + '/os-hosts'): {'200': many('hosts', fields(
            ('host_name', 'service'), host_name='string', service='string',
            zone='string'))},
        ('GET', V + '/os-hosts/{host_name}'): {'200': many('host')},
        ('PUT', V + '/os-hosts/{host_name}'): {'200': HOST_ACTION},
        ('GET', V + '/os-hosts/{host_name}/reboot'): {'200': HOST_ACTION},
        ('GET', V + '/os-hosts/{host_name}/shutdown'): {
            '200': HOST_ACTION},
        ('GET', V + '/os-hosts/{host_name}/startup'): {'200': HOST_ACTION},
        ('GET', V + '/os-hypervisors'): {'200': _with_links(
            'hypervisors', HYPERVISOR)},
        ('GET', V + '/os-hypervisors/detail'): {'200': _with_links(
            'hypervisors', HYPERVISOR)},
        ('GET', V + '/os-hypervisors/statistics'): {'200': one(
            'hypervisor_statistics', fields(('count',), count='integer'))},
        ('GET', V + '/os-hypervisors/{hostname_pattern}/search'): {
            '200': many('hypervisors', HYPERVISOR)},
        ('GET', V + '/os-hypervisors/{hostname_pattern}/servers'): {
            '200': many('hypervisors', HYPERVISOR)},
        ('GET', V + '/os-hypervisors/{hypervisor_id}'): {
            '200': one('hypervisor', HYPERVISOR)},
        ('GET', V + '/os-hypervisors/{hypervisor_id}/uptime'): {
            '200': one('hypervisor', HYPERVISOR)},
        ('GET', V + '/os-instance_usage_audit_log'): {
            '200': one('instance_usage_audit_logs')},
        ('GET', V + '/os-instance_usage_audit_log/{before_timestamp}'): {
            '200': one('instance_usage_audit_log')},
        # key pairs: 201 and 204 from 2.2, 200 and 202 before.
        ('GET', V + '/os-keypairs'): {'200': many(
            'keypairs', one('keypair', KEYPAIR), {'keypairs_links': _PAGE})},
        ('POST', V + '/os-keypairs'): {'200': one('keypair', KEYPAIR),
                                       '201': one('keypair', KEYPAIR)},
        ('GET', V + '/os-keypairs/{name}'): {'200': one('keypair',
                                                        KEYPAIR)},
        ('DELETE', V + '/os-keypairs/{name}'): {'202': None, '204': None},
        ('GET', V + '/os-migrations'): {'200': _with_links('migrations',
                                                           MIGRATION)},
        # quotas
        ('GET', V + '/os-quota-class-sets/{class_name}'): {
            '200': one('quota_class_set')},
        ('PUT', V + '/os-quota-class-sets/{class_name}'): {
            '200': one('quota_class_set')},
        ('GET', V + '/os-quota-sets/{project_id}'): {'200': QUOTA_SET},
        ('PUT', V + '/os-quota-sets/{project_id}'): {
            '200': one('quota_set')},
        ('DELETE', V + '/os-quota-sets/{project_id}'): {'202': None},
        ('GET', V + '/os-quota-sets/{project_id}/defaults'): {
            '200': QUOTA_SET},
        ('GET', V + '/os-quota-sets/{project_id}/detail'): {
            '200': QUOTA_SET},
        # external events: 207 when some of them failed.
        ('POST', V + '/os-server-external-events'): {
            '200': many('events'), '207': many('events')},
        ('GET', V + '/os-services'): {'200': many('services', SERVICE)},
        ('PUT', V + '/os-services/{service_id}'): {'200': one(
            'service', {'type': 'object'})},
        ('DELETE', V + '/os-services/{service_id}'): {'204': None},
        ('GET', V + '/os-simple-tenant-usage'): {'200': many(
            'tenant_usages', None, {'tenant_usages_links': _PAGE})},
        ('GET', V + '/os-simple-tenant-usage/{tenant_id}'): {'200': fields(
            ('tenant_usage',), tenant_usage='object',
            tenant_usage_links=_PAGE)},
    }
    table.update(_metadata(s + '/metadata'))
    table.update(_metadata(V + '/images/{image_id}/metadata'))
    table.update(_crud(V + '/os-aggregates',
                       V + '/os-aggregates/{aggregate_id}', 'aggregate',
                       AGGREGATE, delete='200'))
    table.update(_crud(V + '/os-security-groups',
                       V + '/os-security-groups/{group_id}',
                       'security_group', SECURITY_GROUP, delete='202'))
    table.update(_crud(V + '/os-floating-ips',
                       V + '/os-floating-ips/{floating_ip_id}',
                       'floating_ip', FLOATING_IP, delete='202'))
    table.update(_crud(V + '/os-server-groups',
                       V + '/os-server-groups/{group_id}', 'server_group',
                       SERVER_GROUP))
    # Server groups and floating IPs are not updated.
    del table[('PUT', V + '/os-server-groups/{group_id}')]
    del table[('PUT', V + '/os-floating-ips/{floating_ip_id}')]
    return table


RESPONSES = _table()
