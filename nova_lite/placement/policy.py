"""Placement's oslo.policy enforcer and the ``authorize`` helper.

The enforcer is created once per process from the global configuration;
the lab default is the legacy rule set (``enforce_new_defaults = False``),
set here as an option default so a deployment can still flip it in its
configuration file. oslo.policy always checks a rule's scope types: a
token of the wrong scope is a 403 like any other refusal.

oslo.policy's ``authorize`` loads the rules before every check: it looks
for the policy file and the policy directories in every configuration
directory (each request, when there is no policy file) and evaluates the
rule tree (a ``getfullargspec`` per check): about a tenth of a small
request's CPU.
:func:`authorize` loads the rules (so a changed policy file is read
again, as upstream) at most once per ``RELOAD_INTERVAL`` seconds, and
remembers each decision (rule, target, credentials) until the next load.
"""

import threading
import time

from oslo_policy import opts as policy_opts
from oslo_policy import policy
import webob.exc

from nova_lite import conf as nl_conf
from nova_lite.placement import errors
from nova_lite.placement import policies

CONF = nl_conf.CONF


# Seconds a load of the rules (and the decisions made on them) is used.
RELOAD_INTERVAL = 1.0
# Decisions remembered at most (distinct users and projects), then forgotten.
MAX_DECISIONS = 10000


def _hashable(value):
    return tuple(value) if isinstance(value, list) else value


def _decision_key(rule_name, target, context):
    """What a decision depends on: the rule, the target and the
    credentials oslo.policy reads from the context."""
    creds = context.to_policy_values()
    return (rule_name,
            tuple(sorted((k, _hashable(v)) for k, v in target.items())),
            tuple(sorted((k, _hashable(v)) for k, v in creds.items())))


class _Decisions:
    """The decisions made on one load of the rules."""

    def __init__(self, rules, loaded_at):
        self.rules = rules
        self.loaded_at = loaded_at
        self.allowed = {}

    def current(self, enforcer, now):
        return (self.rules is enforcer.rules
                and now - self.loaded_at < RELOAD_INTERVAL)


class _EnforcerHolder:
    def __init__(self):
        self.lock = threading.Lock()
        self.enforcer = None
        self.decisions = None

    def get(self, conf):
        with self.lock:
            if self.enforcer is None:
                enforcer = policy.Enforcer(conf)
                # NOTE(nova_lite): the legacy rules are the lab default on
                # purpose; a warning per rule on every start says nothing.
                enforcer.suppress_deprecation_warnings = True
                enforcer.suppress_default_change_warnings = True
                enforcer.register_defaults(policies.list_rules())
                enforcer.load_rules()
                self.enforcer = enforcer
            return self.enforcer

    def reset(self):
        with self.lock:
            if self.enforcer is not None:
                self.enforcer.clear()
            self.enforcer = None
            self.decisions = None

    def allowed(self, conf, rule_name, target, context, clock=time.monotonic):
        """Whether ``context`` may use ``rule_name`` on ``target``."""
        enforcer = self.get(conf)
        now = clock()
        decisions = self.decisions
        if decisions is None or not decisions.current(enforcer, now):
            with self.lock:
                enforcer.load_rules()
                decisions = _Decisions(enforcer.rules, now)
                self.decisions = decisions
        try:
            key = _decision_key(rule_name, target, context)
            hash(key)
        except TypeError:
            key = None
        if key in decisions.allowed:
            return decisions.allowed[key]
        try:
            enforcer.authorize(rule_name, target, context, do_raise=True)
            allowed = True
        except (policy.PolicyNotAuthorized, policy.InvalidScope):
            allowed = False
        if key is not None:
            if len(decisions.allowed) >= MAX_DECISIONS:
                decisions.allowed.clear()
            decisions.allowed[key] = allowed
        return allowed


_HOLDER = _EnforcerHolder()


def set_lab_defaults(conf=CONF):
    policy_opts.set_defaults(conf, enforce_new_defaults=False)


set_lab_defaults()


def get_enforcer(conf=CONF):
    return _HOLDER.get(conf)


def reset():
    _HOLDER.reset()


def authorize(context, rule_name, target=None):
    """403 (JSON) unless ``context`` may use ``rule_name``."""
    target = target or {'project_id': context.project_id,
                        'user_id': context.user_id}
    if not _HOLDER.allowed(CONF, rule_name, target, context):
        raise webob.exc.HTTPForbidden(
            'Policy does not allow %s to be performed.' % rule_name,
            comment=errors.DEFAULT)
