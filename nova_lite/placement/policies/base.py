"""Check strings shared by placement's policy rules.

Placement is an admin/service API. The lab default is the legacy rule set
(``[oslo_policy] enforce_new_defaults = False``): every rule also accepts
its deprecated ``role:admin`` form, so the noauth2 ``admin`` token may do
everything, including reshape. With the new defaults enforced, the
secure-RBAC rules apply alone (admin or service, reshape service only).
"""

from oslo_policy import policy

ADMIN = 'role:admin'
SERVICE = 'role:service'
ADMIN_OR_SERVICE = 'role:admin or role:service'

LEGACY_ADMIN = policy.RuleDefault(
    name='placement:legacy_admin', check_str=ADMIN,
    description='Legacy rule: the admin role may use every placement API.')

_DEPRECATION_REASON = ('Placement now supports the service role and '
                       'secure-RBAC defaults.')


def rule(name, description, operations, check_str=ADMIN_OR_SERVICE):
    """A documented rule whose legacy (deprecated) form is role:admin."""
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{'method': m, 'path': p} for m, p in operations],
        deprecated_rule=policy.DeprecatedRule(
            name=name, check_str=ADMIN, deprecated_reason=_DEPRECATION_REASON,
            deprecated_since='2026.1'))


def rules():
    return [LEGACY_ADMIN]
