"""Default policy rules of the compute API, as data.

Nova-like defaults: the admin-only APIs (hypervisors, services,
aggregates, migrations, os-hosts, forced host/node, flavor management)
need the ``admin`` role; what belongs to a project is reachable by that
project's members (writes) and readers (reads) and by admins; the
``reader`` role alone never writes. ``list_rules`` feeds the enforcer and
``oslopolicy-sample-generator``.
"""

from oslo_policy import generator
from oslo_policy import policy

from nova_lite.api.policies import server_extras

ADMIN = 'role:admin'
PROJECT_MEMBER = 'role:member and project_id:%(project_id)s'
PROJECT_READER = 'role:reader and project_id:%(project_id)s'

BASE_RULES = [
    policy.RuleDefault('admin_api', ADMIN, 'Admins only.'),
    policy.RuleDefault('project_member_or_admin',
                       'rule:admin_api or (%s)' % PROJECT_MEMBER,
                       'Members of the owning project, or admins.'),
    policy.RuleDefault('project_reader_or_admin',
                       'rule:admin_api or (%s) or (%s)' % (PROJECT_READER,
                                                          PROJECT_MEMBER),
                       'Readers of the owning project, or admins.'),
    policy.RuleDefault('any_member', 'rule:admin_api or role:member',
                       'Any authenticated user with the member role.'),
    policy.RuleDefault('any_reader',
                       'rule:admin_api or role:member or role:reader',
                       'Any authenticated user.'),
    policy.RuleDefault('owner_member_or_admin',
                       'rule:admin_api or (role:member and '
                       'user_id:%(user_id)s)',
                       'The owning user (with the member role), or admins.'),
    policy.RuleDefault('owner_reader_or_admin',
                       'rule:admin_api or ((role:member or role:reader) and '
                       'user_id:%(user_id)s)',
                       'The owning user, or admins.'),
]

P = 'os_compute_api:'

# (name, check rule, description, [(method, path)])
_API_RULES = [
    ('flavors:list', 'any_reader', 'List and show flavors',
     [('GET', '/flavors'), ('GET', '/flavors/{id}')]),
    ('os-flavor-manage:create', 'admin_api', 'Create a flavor',
     [('POST', '/flavors')]),
    ('os-flavor-manage:update', 'admin_api', 'Update a flavor',
     [('PUT', '/flavors/{id}')]),
    ('os-flavor-manage:delete', 'admin_api', 'Delete a flavor',
     [('DELETE', '/flavors/{id}')]),
    ('os-flavor-access', 'admin_api', 'List flavor access',
     [('GET', '/flavors/{id}/os-flavor-access')]),
    ('os-flavor-access:add_tenant_access', 'admin_api',
     'Give a project access to a flavor', [('POST', '/flavors/{id}/action')]),
    ('os-flavor-access:remove_tenant_access', 'admin_api',
     'Take access away', [('POST', '/flavors/{id}/action')]),
    ('os-flavor-extra-specs:index', 'any_reader', 'List extra specs',
     [('GET', '/flavors/{id}/os-extra_specs')]),
    ('os-flavor-extra-specs:show', 'any_reader', 'Show an extra spec',
     [('GET', '/flavors/{id}/os-extra_specs/{key}')]),
    ('os-flavor-extra-specs:create', 'admin_api', 'Create extra specs',
     [('POST', '/flavors/{id}/os-extra_specs')]),
    ('os-flavor-extra-specs:update', 'admin_api', 'Update an extra spec',
     [('PUT', '/flavors/{id}/os-extra_specs/{key}')]),
    ('os-flavor-extra-specs:delete', 'admin_api', 'Delete an extra spec',
     [('DELETE', '/flavors/{id}/os-extra_specs/{key}')]),
    ('images:list', 'any_reader', 'List and show images, their data '
     'and members (Glance decides which images each caller sees)',
     [('GET', '/image/v2/images'), ('GET', '/image/v2/images/{id}')]),
    ('images:write', 'any_member', 'Create, update, upload, tag, share '
     'and delete images (owners only, as in Glance)',
     [('POST', '/image/v2/images'), ('PATCH', '/image/v2/images/{id}'),
      ('DELETE', '/image/v2/images/{id}')]),
    ('os-keypairs:index', 'owner_reader_or_admin', 'List key pairs',
     [('GET', '/os-keypairs')]),
    ('os-keypairs:show', 'owner_reader_or_admin', 'Show a key pair',
     [('GET', '/os-keypairs/{name}')]),
    ('os-keypairs:create', 'owner_member_or_admin', 'Create a key pair',
     [('POST', '/os-keypairs')]),
    ('os-keypairs:delete', 'owner_member_or_admin', 'Delete a key pair',
     [('DELETE', '/os-keypairs/{name}')]),
    ('os-availability-zone:list', 'any_reader', 'List zones',
     [('GET', '/os-availability-zone')]),
    ('os-availability-zone:detail', 'admin_api', 'List zones with hosts',
     [('GET', '/os-availability-zone/detail')]),
    ('os-aggregates:index', 'admin_api', 'List aggregates',
     [('GET', '/os-aggregates')]),
    ('os-aggregates:create', 'admin_api', 'Create an aggregate',
     [('POST', '/os-aggregates')]),
    ('os-aggregates:show', 'admin_api', 'Show an aggregate',
     [('GET', '/os-aggregates/{id}')]),
    ('os-aggregates:update', 'admin_api', 'Update an aggregate',
     [('PUT', '/os-aggregates/{id}')]),
    ('os-aggregates:delete', 'admin_api', 'Delete an aggregate',
     [('DELETE', '/os-aggregates/{id}')]),
    ('os-aggregates:add_host', 'admin_api', 'Add a host',
     [('POST', '/os-aggregates/{id}/action')]),
    ('os-aggregates:remove_host', 'admin_api', 'Remove a host',
     [('POST', '/os-aggregates/{id}/action')]),
    ('os-aggregates:set_metadata', 'admin_api', 'Set metadata',
     [('POST', '/os-aggregates/{id}/action')]),
    ('os-server-groups:index', 'project_reader_or_admin',
     'List server groups', [('GET', '/os-server-groups')]),
    ('os-server-groups:index:all_projects', 'admin_api',
     'List every project\'s server groups', [('GET', '/os-server-groups')]),
    ('os-server-groups:show', 'project_reader_or_admin',
     'Show a server group', [('GET', '/os-server-groups/{id}')]),
    ('os-server-groups:create', 'project_member_or_admin',
     'Create a server group', [('POST', '/os-server-groups')]),
    ('os-server-groups:delete', 'project_member_or_admin',
     'Delete a server group', [('DELETE', '/os-server-groups/{id}')]),
    ('os-services:list', 'admin_api', 'List services',
     [('GET', '/os-services')]),
    ('os-services:update', 'admin_api', 'Enable, disable, force down',
     [('PUT', '/os-services/{id}')]),
    ('os-services:delete', 'admin_api', 'Delete a service',
     [('DELETE', '/os-services/{id}')]),
    ('os-dashboard', 'admin_api',
     'The capacity dashboard and its data API (every cell, host, node, '
     'provider and server)', [('GET', '/dashboard')]),
    ('os-hypervisors:list', 'admin_api', 'List hypervisors',
     [('GET', '/os-hypervisors')]),
    ('os-hypervisors:list-detail', 'admin_api', 'List hypervisors in detail',
     [('GET', '/os-hypervisors/detail')]),
    ('os-hypervisors:show', 'admin_api', 'Show a hypervisor',
     [('GET', '/os-hypervisors/{id}')]),
    ('os-hypervisors:statistics', 'admin_api', 'Hypervisor statistics',
     [('GET', '/os-hypervisors/statistics')]),
    ('os-hosts:list', 'admin_api', 'List hosts', [('GET', '/os-hosts')]),
    ('os-hosts:show', 'admin_api', 'Show a host',
     [('GET', '/os-hosts/{host_name}')]),
    ('os-hosts:update', 'admin_api', 'Enable a host or put it in '
     'maintenance (the fake driver only answers)',
     [('PUT', '/os-hosts/{host_name}')]),
    ('os-hosts:reboot', 'admin_api', 'Reboot a host (the fake driver only '
     'answers)', [('GET', '/os-hosts/{host_name}/reboot')]),
    ('os-hosts:shutdown', 'admin_api', 'Shut a host down (the fake driver '
     'only answers)', [('GET', '/os-hosts/{host_name}/shutdown')]),
    ('os-hosts:start', 'admin_api', 'Start a host (the fake driver only '
     'answers)', [('GET', '/os-hosts/{host_name}/startup')]),
    ('limits', 'any_reader', 'Show the caller\'s limits',
     [('GET', '/limits')]),
    ('limits:other_project', 'admin_api', 'Show another project\'s limits',
     [('GET', '/limits')]),
    ('os-quota-sets:show', 'project_reader_or_admin', 'Show quotas',
     [('GET', '/os-quota-sets/{project_id}')]),
    ('os-quota-sets:defaults', 'any_reader', 'Show default quotas',
     [('GET', '/os-quota-sets/{project_id}/defaults')]),
    ('os-quota-sets:update', 'admin_api', 'Update quotas',
     [('PUT', '/os-quota-sets/{project_id}')]),
    ('os-quota-sets:delete', 'admin_api', 'Revert quotas to defaults',
     [('DELETE', '/os-quota-sets/{project_id}')]),
    ('os-instance-actions:list', 'project_reader_or_admin',
     'List a server\'s actions',
     [('GET', '/servers/{server_id}/os-instance-actions')]),
    ('os-instance-actions:show', 'project_reader_or_admin',
     'Show a server action',
     [('GET', '/servers/{server_id}/os-instance-actions/{request_id}')]),
    ('os-instance-actions:events', 'admin_api',
     'See events of an action', [('GET', '/servers/{server_id}/'
                                  'os-instance-actions/{request_id}')]),
    ('os-instance-actions:events:details', 'admin_api',
     'See event details', [('GET', '/servers/{server_id}/'
                           'os-instance-actions/{request_id}')]),
    ('os-migrations:index', 'admin_api', 'List migrations',
     [('GET', '/os-migrations')]),
    # Live migration, evacuate, rebuild, server migrations.
    ('os-migrate-server:migrate_live', 'admin_api',
     'Live-migrate a server', [('POST', '/servers/{id}/action')]),
    ('os-evacuate', 'admin_api', 'Evacuate a server from a down host',
     [('POST', '/servers/{id}/action')]),
    ('servers:create_image', 'project_member_or_admin',
     'Create an image from a server (createImage)',
     [('POST', '/servers/{server_id}/action (createImage)')]),
    ('os-create-backup', 'project_member_or_admin',
     'Create a back up of a server (createBackup)',
     [('POST', '/servers/{server_id}/action (createBackup)')]),
    ('servers:rebuild', 'project_member_or_admin', 'Rebuild a server',
     [('POST', '/servers/{id}/action')]),
    ('servers:rebuild:trusted_certs', 'project_member_or_admin',
     'Rebuild a server with trusted image certificate IDs',
     [('POST', '/servers/{server_id}/action (rebuild)')]),
    ('servers:migrations:index', 'admin_api',
     'List the in-progress live migrations of a server',
     [('GET', '/servers/{server_id}/migrations')]),
    ('servers:migrations:show', 'admin_api',
     'Show an in-progress live migration of a server',
     [('GET', '/servers/{server_id}/migrations/{migration_id}')]),
    ('servers:migrations:delete', 'admin_api',
     'Abort an in-progress live migration',
     [('DELETE', '/servers/{server_id}/migrations/{migration_id}')]),
    ('servers:migrations:force_complete', 'admin_api',
     'Force an in-progress live migration to complete',
     [('POST', '/servers/{server_id}/migrations/{migration_id}/action')]),
    # Servers (used by nova_lite/api/handlers/servers.py).
    ('servers:index', 'project_reader_or_admin', 'List servers',
     [('GET', '/servers')]),
    ('servers:detail', 'project_reader_or_admin', 'List servers in detail',
     [('GET', '/servers/detail')]),
    ('servers:index:get_all_tenants', 'admin_api',
     'List every project\'s servers', [('GET', '/servers')]),
    ('servers:detail:get_all_tenants', 'admin_api',
     'List every project\'s servers in detail',
     [('GET', '/servers/detail')]),
    ('servers:show', 'project_reader_or_admin', 'Show a server',
     [('GET', '/servers/{id}')]),
    ('servers:show:host_status', 'admin_api', 'See host_status',
     [('GET', '/servers/{id}')]),
    ('servers:create', 'project_member_or_admin', 'Create a server',
     [('POST', '/servers')]),
    ('servers:create:trusted_certs', 'project_member_or_admin',
     'Create a server with trusted image certificate IDs',
     [('POST', '/servers')]),
    ('servers:create:forced_host', 'admin_api',
     'Create a server on a given host or node (az:host:node)',
     [('POST', '/servers')]),
    ('servers:update', 'project_member_or_admin', 'Update a server',
     [('PUT', '/servers/{id}')]),
    ('servers:delete', 'project_member_or_admin', 'Delete a server',
     [('DELETE', '/servers/{id}')]),
    ('servers:start', 'project_member_or_admin', 'Start a server',
     [('POST', '/servers/{id}/action')]),
    ('servers:stop', 'project_member_or_admin', 'Stop a server',
     [('POST', '/servers/{id}/action')]),
    ('servers:reboot', 'project_member_or_admin', 'Reboot a server',
     [('POST', '/servers/{id}/action')]),
    ('os-pause-server:pause', 'project_member_or_admin', 'Pause',
     [('POST', '/servers/{id}/action')]),
    ('os-pause-server:unpause', 'project_member_or_admin', 'Unpause',
     [('POST', '/servers/{id}/action')]),
    ('os-suspend-server:suspend', 'project_member_or_admin', 'Suspend',
     [('POST', '/servers/{id}/action')]),
    ('os-suspend-server:resume', 'project_member_or_admin', 'Resume',
     [('POST', '/servers/{id}/action')]),
    # ---- resize / cold migrate ----
    ('servers:resize', 'project_member_or_admin', 'Resize a server',
     [('POST', '/servers/{id}/action (resize)')]),
    ('servers:confirm_resize', 'project_member_or_admin',
     'Confirm a resize or cold migration',
     [('POST', '/servers/{id}/action (confirmResize)')]),
    ('servers:revert_resize', 'project_member_or_admin',
     'Revert a resize or cold migration',
     [('POST', '/servers/{id}/action (revertResize)')]),
    ('os-migrate-server:migrate', 'admin_api', 'Cold migrate a server',
     [('POST', '/servers/{id}/action (migrate)')]),
    ('os-migrate-server:migrate:host', 'admin_api',
     'Cold migrate a server to a given host (2.56)',
     [('POST', '/servers/{id}/action (migrate)')]),
    # ---- end of resize / cold migrate ----
    ('os-lock-server:lock', 'project_member_or_admin', 'Lock',
     [('POST', '/servers/{id}/action')]),
    ('os-lock-server:unlock', 'project_member_or_admin', 'Unlock',
     [('POST', '/servers/{id}/action')]),
    ('os-shelve:shelve', 'project_member_or_admin', 'Shelve a server',
     [('POST', '/servers/{id}/action (shelve)')]),
    ('os-shelve:shelve_offload', 'admin_api',
     'Offload a shelved server now',
     [('POST', '/servers/{id}/action (shelveOffload)')]),
    ('os-shelve:unshelve', 'project_member_or_admin', 'Unshelve a server',
     [('POST', '/servers/{id}/action (unshelve)')]),
    ('os-shelve:unshelve_to_host', 'admin_api',
     'Unshelve a shelved-offloaded server to a given host (2.91)',
     [('POST', '/servers/{id}/action (unshelve)')]),
    ('os-extended-server-attributes', 'admin_api',
     'See OS-EXT-SRV-ATTR:* of servers', [('GET', '/servers/{id}')]),
]


# The prefixes of rule names Nova gives without ``os_compute_api:``.
OWN_PREFIXES = ('compute:',)


def full_name(rule):
    """The registered name of ``rule``: Nova's ``os_compute_api:``
    prefix added, except to the rules Nova names otherwise
    (``compute:server:topology:index``)."""
    return rule if rule.startswith(OWN_PREFIXES) else P + rule


def api_rules():
    return [policy.DocumentedRuleDefault(full_name(name), 'rule:' + check,
                                         description,
                                         [{'method': m, 'path': p}
                                          for m, p in operations])
            for name, check, description, operations in
            _API_RULES + server_extras.RULES]


def list_rules():
    return BASE_RULES + api_rules()


def sample_yaml():
    """The defaults as a commented policy.yaml (every rule commented out)."""
    return ''.join(generator._format_rule_default_yaml(rule)
                   for rule in list_rules())

