"""AggregateInstanceExtraSpecsFilter: flavor extra specs vs aggregates.

A flavor extra spec ``aggregate_instance_extra_specs:KEY`` (or an
unscoped ``KEY``) requires every host to be in an aggregate whose metadata
``KEY`` matches the requirement (see ``extra_specs_ops`` for operators).
Keys in other scopes (``resources:``, ``trait:``, ``hw:``...) are left to
their own consumers.
"""

from oslo_log import log as logging

from nova_lite.scheduler import filters
from nova_lite.scheduler.filters import extra_specs_ops

LOG = logging.getLogger(__name__)

SCOPE = 'aggregate_instance_extra_specs'

# Unscoped keys that are not aggregate requirements.
_NOT_AGGREGATE_KEYS = frozenset(['group_policy'])


def _aggregate_requirements(extra_specs):
    for key, requirement in extra_specs.items():
        scope, sep, name = key.partition(':')
        if sep:
            if scope != SCOPE:
                continue
            yield name, requirement
        elif key not in _NOT_AGGREGATE_KEYS:
            yield key, requirement


class AggregateInstanceExtraSpecsFilter(filters.BaseHostFilter):
    """Rejects hosts whose aggregates do not match the flavor."""

    run_filter_once_per_request = True
    RUN_ON_REBUILD = False

    def host_passes(self, host_state, spec):
        requirements = list(_aggregate_requirements(
            spec.flavor.extra_specs))
        if not requirements:
            return True
        metadata = host_state.aggregate_metadata()
        for key, requirement in requirements:
            values = metadata.get(key)
            if not values:
                LOG.debug('%s rejected: no aggregate sets %s',
                          host_state, key)
                return False
            if not any(extra_specs_ops.match(v, requirement)
                       for v in values):
                LOG.debug('%s rejected: aggregate %s=%s does not match %s',
                          host_state, key, sorted(values), requirement)
                return False
        return True
