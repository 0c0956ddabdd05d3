"""The dashboard's policy: its one rule and its enforcer.

The rule keeps the name nova-lite-api has always used for it
(``os_compute_api:os-dashboard``), so a policy file written for it keeps
working.
"""

from nova_lite.wsgi import policy as wsgi_policy

# (name, check rule, description, [(method, path)])
_RULES = [
    ('os-dashboard', 'admin_api',
     'The capacity dashboard and its data API (every cell, host, node, '
     'provider and server)', [('GET', '/dashboard')]),
]


def list_rules():
    return wsgi_policy.BASE_RULES + wsgi_policy.documented(_RULES)


_POLICY = wsgi_policy.Policy(list_rules)

check = _POLICY.check
authorize = _POLICY.authorize
