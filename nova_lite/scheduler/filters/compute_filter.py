"""ComputeFilter: only hosts whose compute service is enabled and alive.

Placement also hides disabled computes (the COMPUTE_STATUS_DISABLED
prefilter), but the trait is set by the compute itself and lags behind;
this filter reads the service row the host manager loaded, including the
heartbeat age, so a dead compute is never picked.
"""

from oslo_log import log as logging

from nova_lite.scheduler import filters

LOG = logging.getLogger(__name__)


class ComputeFilter(filters.BaseHostFilter):
    """Rejects hosts whose service is disabled, forced down or not up."""

    run_filter_once_per_request = True
    RUN_ON_REBUILD = False

    def host_passes(self, host_state, spec):
        service = host_state.service
        if service.get('disabled'):
            LOG.debug('%s rejected: compute service disabled (%s)',
                      host_state, service.get('disabled_reason'))
            return False
        if not host_state.service_up:
            LOG.warning('%s rejected: compute service is down', host_state)
            return False
        return True
