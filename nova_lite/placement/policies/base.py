"""The base rules every placement rule refers to, with Placement's names.

Placement's rules are written against five named base rules, so that a
deployment can retarget a whole class of APIs from its policy file by
overriding one name (``admin_or_service_api``, say) and the open-policy
tests can open every rule by name. The names and check strings are
Placement 16's:

* with ``[oslo_policy] enforce_new_defaults = False`` (legacy) each base
  rule but ``admin_api`` also accepts its deprecated form, ``role:admin``,
  so an admin may do everything, including reshape;
* with the new defaults, admin or service for most APIs, service alone for
  reshape, and a project's reader may read that project's usages.

Every rule is project scoped (``scope_types = ['project']``): a
system-scoped token is refused, as by Placement.
"""

from oslo_policy import policy

ADMIN_API = 'admin_api'
SERVICE_API = 'service_api'
ADMIN_OR_SERVICE_API = 'admin_or_service_api'
PROJECT_READER_API = 'project_reader_api'
ADMIN_OR_PROJECT_READER_OR_SERVICE_API = (
    'admin_or_project_reader_or_service_api')

# The check strings the API rules use.
ADMIN_OR_SERVICE = 'rule:%s' % ADMIN_OR_SERVICE_API
SERVICE = 'rule:%s' % SERVICE_API
ADMIN_OR_PROJECT_READER_OR_SERVICE = (
    'rule:%s' % ADMIN_OR_PROJECT_READER_OR_SERVICE_API)

PROJECT_SCOPE = ['project']

_LEGACY_ADMIN = policy.DeprecatedRule(
    name='rule:%s' % ADMIN_API, check_str='role:admin',
    deprecated_reason='Placement now has secure-RBAC defaults with the '
                      'reader and service roles; the admin-only rule goes.',
    deprecated_since='W')


def _base(name, check_str, description, scope_types=PROJECT_SCOPE,
          deprecated=True):
    return policy.RuleDefault(
        name=name, check_str=check_str, description=description,
        scope_types=scope_types,
        deprecated_rule=_LEGACY_ADMIN if deprecated else None)


def rules():
    return [
        _base(ADMIN_API, 'role:admin',
              'The admin role: what most APIs accepted before the '
              'secure-RBAC defaults.', deprecated=False),
        _base(SERVICE_API, 'role:service',
              'The service role: service-to-service APIs.'),
        _base(ADMIN_OR_SERVICE_API, 'role:admin or role:service',
              'Admin or service: most placement APIs.'),
        _base(PROJECT_READER_API,
              'role:reader and project_id:%(project_id)s',
              'A reader of the project the request is about.',
              scope_types=None),
        _base(ADMIN_OR_PROJECT_READER_OR_SERVICE_API,
              'role:admin or rule:%s or role:service' % PROJECT_READER_API,
              'Admin, service, or a reader of the project the request is '
              'about: project-level read APIs.'),
    ]


def rule(name, description, operations, check_str=ADMIN_OR_SERVICE):
    """A documented project-scoped API rule over one of the base rules."""
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{'method': m, 'path': p} for m, p in operations],
        scope_types=PROJECT_SCOPE)
