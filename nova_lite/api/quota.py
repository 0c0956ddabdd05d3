"""Quota limits and usage of a project (instances, cores, ram, ...).

Limits are the ``[quota]`` defaults overridden by the project's own rows
in the API DB (and a user's rows within the project). Usage of servers is
counted where the servers are: every cell's live instances of the project
(read in parallel) plus the project's build requests not yet in a cell.
A cell that does not answer counts as empty (with a warning).
"""

from oslo_log import log as logging

from nova_lite import cells
from nova_lite import conf as nl_conf
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite.objects import build_request as build_request_obj
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import instance_group as group_obj
from nova_lite.objects import keypair as keypair_obj
from nova_lite.objects import quota_classes
from nova_lite.objects import quotas

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

# The resources os-quota-sets shows, in Nova's order (network and file
# quotas are gone at 2.36 / 2.57).
RESOURCES = ('instances', 'cores', 'ram', 'metadata_items', 'key_pairs',
             'server_groups', 'server_group_members', 'injected_files',
             'injected_file_content_bytes', 'injected_file_path_bytes')
FILE_RESOURCES = ('injected_files', 'injected_file_content_bytes',
                  'injected_file_path_bytes')
SERVER_RESOURCES = ('instances', 'cores', 'ram')
# The [quota] option of a resource whose name differs (as in Nova).
_OPTION_OF = {'injected_file_path_bytes': 'injected_file_path_length'}


class OverQuota(exception.NovaLiteException):
    """A request would exceed a limit (HTTP 403 in the API)."""

    code = 403

    def __init__(self, resource, requested, used, allowed):
        super().__init__(
            'Quota exceeded for %s: Requested %d, but already used %d of %d '
            '%s' % (resource, requested, used, allowed, resource))


class MetadataLimitExceeded(exception.NovaLiteException):
    """More metadata items than the project's limit (HTTP 403)."""

    code = 403

    def __init__(self, allowed):
        super().__init__('Maximum number of metadata items exceeds %d'
                         % allowed)


def check_metadata_items(context, metadata):
    """Raise MetadataLimitExceeded if a server's metadata has more items
    than ``metadata_items`` of the caller's project allows (the schema
    sets no count: the limit is a quota, as in Nova)."""
    if not metadata:
        return
    limit = limits_for(context, context.project_id)['metadata_items']
    if limit is not None and 0 <= limit < len(metadata):
        raise MetadataLimitExceeded(limit)


def default_limits(context=None):
    """The ``[quota]`` defaults, overridden by the quota class
    ``default`` (os-quota-class-sets), as in Nova; read as the admin
    (with ``context``: an elevated copy, in its open transaction)."""
    admin = (context.elevated() if context is not None
             else nl_context.get_admin_context())
    limits = {name: getattr(CONF.quota, _OPTION_OF.get(name, name))
              for name in RESOURCES}
    limits.update(quota_classes.default_overrides(admin, RESOURCES))
    return limits


def limits_for(context, project_id, user_id=None):
    """{resource: limit} of the project (and user) after overrides."""
    limits = default_limits(context)
    limits.update(quotas.get_all_by_project(context, project_id))
    if user_id:
        limits.update(quotas.get_all_by_project_and_user(
            context, project_id, user_id))
    return limits


def _build_request_usage(context, project_id, user_id):
    usage = {'instances': 0, 'cores': 0, 'ram': 0}
    builds = build_request_obj.BuildRequestList.get_all(context, project_id)
    for build in builds:
        instance = build.instance or {}
        if user_id and instance.get('user_id') not in (None, user_id):
            continue
        usage['instances'] += 1
        usage['cores'] += int(instance.get('vcpus') or 0)
        usage['ram'] += int(instance.get('memory_mb') or 0)
    return usage


def server_usage(context, project_id, user_id=None):
    """{'instances', 'cores', 'ram'} the project's servers use."""
    usage = _build_request_usage(context, project_id, user_id)
    results = cells.scatter_gather_all(
        context, instance_obj.InstanceList.get_counts, project_id, user_id)
    for cell_uuid, result in results.items():
        if cells.is_failure(result):
            LOG.warning('Cell %s not counted in the usage of project %s',
                        cell_uuid, project_id)
            continue
        for name in SERVER_RESOURCES:
            usage[name] += result[name]
    return usage


def usage_for(context, project_id, user_id=None):
    """{resource: in use} for every resource of :data:`RESOURCES`."""
    usage = dict.fromkeys(RESOURCES, 0)
    usage.update(server_usage(context, project_id, user_id))
    groups = group_obj.InstanceGroup.get_all(context, project_id)
    usage['server_groups'] = len(groups)
    if user_id:
        usage['key_pairs'] = len(keypair_obj.KeyPair.get_all_by_user(
            context, user_id))
    return usage


def check_servers(context, project_id, user_id, count, vcpus, memory_mb):
    """Raise OverQuota unless ``count`` more servers of that size fit."""
    limits = limits_for(context, project_id, user_id)
    used = server_usage(context, project_id)
    wanted = {'instances': count, 'cores': count * vcpus,
              'ram': count * memory_mb}
    for name in SERVER_RESOURCES:
        _check(name, wanted[name], used[name], limits[name])


def check_count(resource, requested, used, limit):
    """Raise OverQuota unless ``used + requested <= limit`` (or -1)."""
    _check(resource, requested, used, limit)


def _check(resource, requested, used, limit):
    if limit is not None and limit >= 0 and used + requested > limit:
        raise OverQuota(resource, requested, used, limit)
