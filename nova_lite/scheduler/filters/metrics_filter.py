"""MetricsFilter: only hosts reporting every metric MetricsWeigher uses.

With ``[metrics] required`` (the default), a host that lacks a metric of
``[metrics] weight_setting`` is removed, so MetricsWeigher compares hosts
on the same footing.
"""

from oslo_log import log as logging

from nova_lite import conf as nl_conf
from nova_lite.scheduler import filters
from nova_lite.scheduler.weights import metrics as metrics_weigher

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)


class MetricsFilter(filters.BaseHostFilter):
    """Rejects hosts missing a metric named in ``weight_setting``."""

    run_filter_once_per_request = True
    RUN_ON_REBUILD = False

    def host_passes(self, host_state, spec):
        if not CONF.metrics.required:
            return True
        names = [name for name, _ in metrics_weigher.parse_weight_setting()]
        missing = [name for name in names if name not in host_state.metrics]
        if missing:
            LOG.debug('%s rejected: metrics %s missing', host_state, missing)
            return False
        return True
