"""AvailabilityZoneFilter: only hosts in the requested availability zone.

Nova removed this filter in 2023.2 because the ``map_az_to_placement_
aggregate`` prefilter asks placement for the zone's aggregates instead.
nova_lite does both: the prefilter narrows the placement query, and this
filter checks the zone of each host from the host aggregates the scheduler
loaded (a host in no zone is in the default zone).
"""

from oslo_log import log as logging

from nova_lite.scheduler import filters

LOG = logging.getLogger(__name__)


class AvailabilityZoneFilter(filters.BaseHostFilter):
    """Rejects hosts outside ``spec.availability_zone``."""

    run_filter_once_per_request = True
    RUN_ON_REBUILD = False

    def filter_all(self, hosts, spec):
        """Every host when no zone is asked (no per-host look)."""
        if not spec.availability_zone:
            return list(hosts)
        return super().filter_all(hosts, spec)

    def host_passes(self, host_state, spec):
        wanted = spec.availability_zone
        if not wanted:
            return True
        zone = host_state.availability_zone
        if zone == wanted:
            return True
        LOG.debug('%s rejected: in zone %s, %s requested',
                  host_state, zone, wanted)
        return False
