"""Instance count filters: skip hosts that already run many instances.

NumInstancesFilter keeps hosts below ``[filter_scheduler]
max_instances_per_host``; AggregateNumInstancesFilter reads the limit from
the host's aggregate metadata ``max_instances_per_host`` first (the
smallest value when several aggregates set it).
"""

from oslo_log import log as logging

from nova_lite import conf as nl_conf
from nova_lite.scheduler import filters
from nova_lite.scheduler.filters import utils

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)


class NumInstancesFilter(filters.BaseHostFilter):
    """Rejects hosts with ``max_instances_per_host`` or more instances."""

    RUN_ON_REBUILD = False

    def max_instances(self, host_state):
        return CONF.filter_scheduler.max_instances_per_host

    def host_passes(self, host_state, spec):
        limit = self.max_instances(host_state)
        if host_state.num_instances < limit:
            return True
        LOG.debug('%s rejected: %d instances, limit %d',
                  host_state, host_state.num_instances, limit)
        return False


class AggregateNumInstancesFilter(NumInstancesFilter):
    """NumInstancesFilter with a per-aggregate ``max_instances_per_host``."""

    def max_instances(self, host_state):
        return utils.aggregate_number(
            host_state, 'max_instances_per_host',
            CONF.filter_scheduler.max_instances_per_host, cast=int)
