"""Placement's oslo.policy enforcer and the ``authorize`` helper.

The enforcer is created once per process from the global configuration;
the lab default is the legacy rule set (``enforce_new_defaults = False``),
set here as an option default so a deployment can still flip it in its
configuration file. oslo.policy always checks a rule's scope types: a
token of the wrong scope is a 403 like any other refusal.
"""

import threading

from oslo_policy import opts as policy_opts
from oslo_policy import policy
import webob.exc

from nova_lite import conf as nl_conf
from nova_lite.placement import errors
from nova_lite.placement import policies

CONF = nl_conf.CONF


class _EnforcerHolder:
    def __init__(self):
        self.lock = threading.Lock()
        self.enforcer = None

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
    try:
        get_enforcer().authorize(rule_name, target, context,
                                 do_raise=True)
    except (policy.PolicyNotAuthorized, policy.InvalidScope):
        raise webob.exc.HTTPForbidden(
            'Policy does not allow %s to be performed.' % rule_name,
            comment=errors.DEFAULT)
