"""The compute API's oslo.policy enforcer and :func:`authorize`.

One enforcer per process, created from the global configuration with the
defaults of :mod:`nova_lite.api.policies` (a deployment overrides rules in
``[oslo_policy] policy_file``). Rule names are Nova's
(``os_compute_api:os-services:list``); handlers pass the short form
(``'os-services:list'``).
"""

import threading

from oslo_policy import policy as oslo_policy
import webob.exc

from nova_lite.api import policies
from nova_lite import conf as nl_conf

CONF = nl_conf.CONF

_LOCK = threading.Lock()
_ENFORCER = {}


def get_enforcer(conf=CONF):
    with _LOCK:
        enforcer = _ENFORCER.get(id(conf))
        if enforcer is None:
            enforcer = oslo_policy.Enforcer(conf)
            enforcer.suppress_deprecation_warnings = True
            enforcer.suppress_default_change_warnings = True
            enforcer.register_defaults(policies.list_rules())
            enforcer.load_rules()
            _ENFORCER[id(conf)] = enforcer
        return enforcer


def reset():
    """Forget the enforcer (tests that change policy options)."""
    with _LOCK:
        for enforcer in _ENFORCER.values():
            enforcer.clear()
        _ENFORCER.clear()


def check(context, rule, target=None):
    """True when ``context`` may use ``rule`` on ``target``."""
    target = target or {'project_id': context.project_id,
                        'user_id': context.user_id}
    return get_enforcer().authorize(policies.full_name(rule), target,
                                    context, do_raise=False)


def authorize(context, rule, target=None):
    """403 unless ``context`` may use ``rule`` on ``target``.

    ``target`` defaults to the caller's own project and user, which is
    right for collections; pass the owner of an existing item.
    """
    if not check(context, rule, target):
        raise webob.exc.HTTPForbidden(
            "Policy doesn't allow %s to be performed."
            % policies.full_name(rule))
