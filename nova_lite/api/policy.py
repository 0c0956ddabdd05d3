"""The compute API's oslo.policy enforcer and :func:`authorize`.

One enforcer per process and configuration (see
:mod:`nova_lite.wsgi.policy`), with the defaults of
:mod:`nova_lite.api.policies` (a deployment overrides rules in
``[oslo_policy] policy_file``). Rule names are Nova's
(``os_compute_api:os-services:list``); handlers pass the short form
(``'os-services:list'``).
"""

from nova_lite.api import policies
from nova_lite.wsgi import policy as wsgi_policy

_POLICY = wsgi_policy.Policy(policies.list_rules)

get_enforcer = _POLICY.get_enforcer
check = _POLICY.check
authorize = _POLICY.authorize
reset = wsgi_policy.reset
