"""AggregateMultiTenancyIsolation: keep tenant-dedicated hosts dedicated.

A host in an aggregate with metadata ``filter_tenant_id`` (or any key
starting with it, e.g. ``filter_tenant_id2``, each value possibly a comma
list) only takes instances of those projects. Other hosts take anyone;
pair it with the ``limit_tenants_to_placement_aggregate`` prefilter to keep
the projects on their hosts too.
"""

from oslo_log import log as logging

from nova_lite.scheduler import filters

LOG = logging.getLogger(__name__)

KEY_PREFIX = 'filter_tenant_id'


def allowed_projects(host_state):
    """Projects the host is dedicated to (empty: open to every project)."""
    projects = set()
    for key, values in host_state.aggregate_metadata().items():
        if key.startswith(KEY_PREFIX):
            projects.update(v for v in values if v)
    return projects


class AggregateMultiTenancyIsolation(filters.BaseHostFilter):
    """Rejects dedicated hosts for projects they are not dedicated to."""

    run_filter_once_per_request = True
    RUN_ON_REBUILD = False

    def host_passes(self, host_state, spec):
        projects = allowed_projects(host_state)
        if not projects or spec.project_id in projects:
            return True
        LOG.debug('%s rejected: dedicated to projects %s, not %s',
                  host_state, sorted(projects), spec.project_id)
        return False
