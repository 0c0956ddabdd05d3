"""I/O operation filters: skip hosts busy with many I/O-heavy tasks.

``num_io_ops`` counts the builds, resizes, snapshots and such running on
the host (from the compute's stats). IoOpsFilter keeps hosts below
``[filter_scheduler] max_io_ops_per_host``; AggregateIoOpsFilter reads the
limit from the host's aggregate metadata ``max_io_ops_per_host`` first
(the smallest value when several aggregates set it).
"""

from oslo_log import log as logging

from nova_lite import conf as nl_conf
from nova_lite.scheduler import filters
from nova_lite.scheduler.filters import utils

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)


class IoOpsFilter(filters.BaseHostFilter):
    """Rejects hosts with ``max_io_ops_per_host`` or more I/O tasks."""

    RUN_ON_REBUILD = False

    def max_io_ops(self, host_state):
        return CONF.filter_scheduler.max_io_ops_per_host

    def host_passes(self, host_state, spec):
        limit = self.max_io_ops(host_state)
        if host_state.num_io_ops < limit:
            return True
        LOG.debug('%s rejected: %d I/O operations, limit %d',
                  host_state, host_state.num_io_ops, limit)
        return False


class AggregateIoOpsFilter(IoOpsFilter):
    """IoOpsFilter with a per-aggregate ``max_io_ops_per_host``."""

    def max_io_ops(self, host_state):
        return utils.aggregate_number(
            host_state, 'max_io_ops_per_host',
            CONF.filter_scheduler.max_io_ops_per_host, cast=int)
