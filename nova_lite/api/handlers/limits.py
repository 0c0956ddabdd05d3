"""GET /limits: the caller's (or, for admins, ``tenant_id``'s) limits.

Only absolute limits exist (``rate`` is always empty); network limits
are gone at 2.36, image metadata at 2.39, file injection at 2.57.
"""

from nova_lite.api import microversion
from nova_lite.api import policy
from nova_lite.api import quota
from nova_lite.api import util
from nova_lite.api import validation

QUERY = {'type': 'object',
         'properties': {'tenant_id': {'type': 'string', 'minLength': 1,
                                      'maxLength': 255}},
         'additionalProperties': True}
QUERY_V2_75 = dict(QUERY, additionalProperties=False)

_LIMIT_NAMES = (
    ('maxTotalInstances', 'instances'), ('maxTotalCores', 'cores'),
    ('maxTotalRAMSize', 'ram'), ('maxServerMeta', 'metadata_items'),
    ('maxTotalKeypairs', 'key_pairs'), ('maxServerGroups', 'server_groups'),
    ('maxServerGroupMembers', 'server_group_members'),
)
_USED_NAMES = (
    ('totalInstancesUsed', 'instances'), ('totalCoresUsed', 'cores'),
    ('totalRAMUsed', 'ram'), ('totalServerGroupsUsed', 'server_groups'),
)


def _absolute(req, limits, usage):
    absolute = {name: limits[resource] for name, resource in _LIMIT_NAMES}
    absolute.update({name: usage[resource]
                     for name, resource in _USED_NAMES})
    if not microversion.at_least(req, '2.57'):
        absolute['maxPersonality'] = limits['injected_files']
        absolute['maxPersonalitySize'] = limits[
            'injected_file_content_bytes']
    if not microversion.at_least(req, '2.39'):
        absolute['maxImageMeta'] = limits['metadata_items']
    if not microversion.at_least(req, '2.36'):
        absolute.update({'maxSecurityGroups': -1,
                         'maxSecurityGroupRules': -1,
                         'maxTotalFloatingIps': -1,
                         'totalFloatingIpsUsed': 0,
                         'totalSecurityGroupsUsed': 0})
    return absolute


def query_schema(req):
    """The query schema of GET /limits at ``req``'s version."""
    return QUERY_V2_75 if microversion.at_least(req, '2.75') else QUERY


def show_limits(req):
    """GET /limits[?tenant_id=]."""
    context = util.context(req)
    policy.authorize(context, 'limits')
    validation.query(req, query_schema(req))
    project_id = context.project_id
    tenant_id = req.GET.get('tenant_id')
    if tenant_id and tenant_id != project_id and policy.check(
            context, 'limits:other_project'):
        project_id = tenant_id
    limits = quota.limits_for(context, project_id)
    usage = quota.usage_for(context, project_id)
    return util.json_response({'limits': {
        'rate': [], 'absolute': _absolute(req, limits, usage)}})
