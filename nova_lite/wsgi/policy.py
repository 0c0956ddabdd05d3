"""oslo.policy enforcement for the REST services nova-lite-api serves.

The compute API, the image service and the dashboard each name their own
default rules (Nova's names, ``os_compute_api:...``); a :class:`Policy`
holds one enforcer per configuration for one service, with that
service's defaults and the shared base rules registered and the same
``[oslo_policy] policy_file`` read, so a deployment overrides any rule of
any of them in one file. Handlers pass the short form of a rule
(``'os-services:list'``).
"""

import threading

from oslo_policy import generator
from oslo_policy import policy as oslo_policy
import webob.exc

from nova_lite import conf as nl_conf

CONF = nl_conf.CONF

P = 'os_compute_api:'
# The prefixes of rule names Nova gives without ``os_compute_api:``.
OWN_PREFIXES = ('compute:',)

ADMIN = 'role:admin'
PROJECT_MEMBER = 'role:member and project_id:%(project_id)s'
PROJECT_READER = 'role:reader and project_id:%(project_id)s'

BASE_RULES = [
    oslo_policy.RuleDefault('admin_api', ADMIN, 'Admins only.'),
    oslo_policy.RuleDefault('project_member_or_admin',
                            'rule:admin_api or (%s)' % PROJECT_MEMBER,
                            'Members of the owning project, or admins.'),
    oslo_policy.RuleDefault('project_reader_or_admin',
                            'rule:admin_api or (%s) or (%s)' % (
                                PROJECT_READER, PROJECT_MEMBER),
                            'Readers of the owning project, or admins.'),
    oslo_policy.RuleDefault('any_member', 'rule:admin_api or role:member',
                            'Any authenticated user with the member role.'),
    oslo_policy.RuleDefault('any_reader',
                            'rule:admin_api or role:member or role:reader',
                            'Any authenticated user.'),
    oslo_policy.RuleDefault('owner_member_or_admin',
                            'rule:admin_api or (role:member and '
                            'user_id:%(user_id)s)',
                            'The owning user (with the member role), or '
                            'admins.'),
    oslo_policy.RuleDefault('owner_reader_or_admin',
                            'rule:admin_api or ((role:member or '
                            'role:reader) and user_id:%(user_id)s)',
                            'The owning user, or admins.'),
]

_LOCK = threading.Lock()
# (id of the Policy, id of the configuration) -> enforcer
_ENFORCERS = {}


def full_name(rule):
    """The registered name of ``rule``: Nova's ``os_compute_api:``
    prefix added, except to the rules Nova names otherwise
    (``compute:server:topology:index``)."""
    return rule if rule.startswith(OWN_PREFIXES) else P + rule


def documented(rules):
    """DocumentedRuleDefaults of ``(name, check, description, [(method,
    path)])`` tuples, named by :func:`full_name`."""
    return [oslo_policy.DocumentedRuleDefault(
        full_name(name), 'rule:' + check, description,
        [{'method': m, 'path': p} for m, p in operations])
        for name, check, description, operations in rules]


def merge(*rule_lists):
    """One list of defaults, each name once (the first one given)."""
    seen = set()
    merged = []
    for rules in rule_lists:
        for rule in rules:
            if rule.name not in seen:
                seen.add(rule.name)
                merged.append(rule)
    return merged


def sample_yaml(rules):
    """The defaults as a commented policy.yaml (every rule commented out)."""
    return ''.join(generator._format_rule_default_yaml(rule)
                   for rule in rules)


def reset():
    """Forget every service's enforcer (tests that change policy options)."""
    with _LOCK:
        for enforcer in _ENFORCERS.values():
            enforcer.clear()
        _ENFORCERS.clear()


class Policy:
    """One service's rules and its enforcers.

    :param list_rules: a callable returning the service's defaults (read
        when an enforcer is first made).
    :param prefix: what the short rule names handlers pass are prefixed
        with (Nova's ``os_compute_api:``; none for Neutron's names).
    """

    def __init__(self, list_rules, prefix=P):
        self.list_rules = list_rules
        self.prefix = prefix

    def full_name(self, rule):
        """The registered name of the short name ``rule``."""
        if self.prefix == P:
            return full_name(rule)
        return self.prefix + rule

    def get_enforcer(self, conf=CONF):
        with _LOCK:
            key = (id(self), id(conf))
            enforcer = _ENFORCERS.get(key)
            if enforcer is None:
                enforcer = oslo_policy.Enforcer(conf)
                enforcer.suppress_deprecation_warnings = True
                enforcer.suppress_default_change_warnings = True
                enforcer.register_defaults(merge(BASE_RULES,
                                                 self.list_rules()))
                enforcer.load_rules()
                _ENFORCERS[key] = enforcer
            return enforcer

    def check(self, context, rule, target=None):
        """True when ``context`` may use ``rule`` on ``target``."""
        target = target or {'project_id': context.project_id,
                            'user_id': context.user_id}
        return self.get_enforcer().authorize(self.full_name(rule), target,
                                             context, do_raise=False)

    def authorize(self, context, rule, target=None):
        """403 unless ``context`` may use ``rule`` on ``target``.

        ``target`` defaults to the caller's own project and user, which is
        right for collections; pass the owner of an existing item.
        """
        if not self.check(context, rule, target):
            raise webob.exc.HTTPForbidden(
                "Policy doesn't allow %s to be performed."
                % self.full_name(rule))
