"""Classic resource filters: RAM, disk and vCPUs counted on host state.

Nova removed RamFilter, DiskFilter and CoreFilter in Train and their
Aggregate* variants in Victoria: placement checks MEMORY_MB, DISK_GB and
VCPU with the allocation ratios of each provider's inventory, and the
per-aggregate ratios never worked once placement did the claiming.
nova_lite keeps them as optional plugins (not enabled by default) for
studying the old FilterScheduler behaviour; they read the usage the host
manager loaded from the cell database, so they can disagree with placement
while that usage lags.

Each filter computes ``limit = total * allocation_ratio`` and passes a host
whose ``limit - used`` still holds the flavor. The Aggregate* variants take
the ratio from aggregate metadata (``ram_allocation_ratio``,
``disk_allocation_ratio``, ``cpu_allocation_ratio``; the smallest when
several aggregates set it) and fall back to the host's own ratio.
"""

from oslo_log import log as logging

from nova_lite.scheduler import filters
from nova_lite.scheduler.filters import utils

LOG = logging.getLogger(__name__)


class _RatioFilter(filters.BaseHostFilter):
    RATIO_KEY = None

    def allocation_ratio(self, host_state):
        return getattr(host_state, self.RATIO_KEY)


class _AggregateRatio:
    """Mixin: the ratio comes from aggregate metadata first."""

    def allocation_ratio(self, host_state):
        return utils.aggregate_number(
            host_state, self.RATIO_KEY, getattr(host_state, self.RATIO_KEY))


class RamFilter(_RatioFilter):
    """Rejects hosts without the flavor's RAM (classic, pre-placement)."""

    RATIO_KEY = 'ram_allocation_ratio'

    def host_passes(self, host_state, spec):
        wanted = spec.flavor.memory_mb
        total = host_state.total_usable_ram_mb
        used = total - host_state.free_ram_mb
        usable = total * self.allocation_ratio(host_state) - used
        if usable >= wanted:
            host_state.limits['memory_mb'] = (
                total * self.allocation_ratio(host_state))
            return True
        LOG.debug('%s rejected: %.0f MB usable RAM, %d MB wanted',
                  host_state, usable, wanted)
        return False


class DiskFilter(_RatioFilter):
    """Rejects hosts without the flavor's disk (classic, pre-placement)."""

    RATIO_KEY = 'disk_allocation_ratio'

    def host_passes(self, host_state, spec):
        flavor = spec.flavor
        wanted = (flavor.root_gb + flavor.ephemeral_gb) * 1024 + flavor.swap
        total = host_state.total_usable_disk_gb * 1024
        used = total - host_state.free_disk_mb
        limit = total * self.allocation_ratio(host_state)
        usable = limit - used
        if usable >= wanted:
            host_state.limits['disk_gb'] = limit / 1024
            return True
        LOG.debug('%s rejected: %.0f MB usable disk, %d MB wanted',
                  host_state, usable, wanted)
        return False


class CoreFilter(_RatioFilter):
    """Rejects hosts without the flavor's vCPUs (classic, pre-placement)."""

    RATIO_KEY = 'cpu_allocation_ratio'

    def host_passes(self, host_state, spec):
        wanted = spec.flavor.vcpus
        total = host_state.vcpus_total
        if not total:
            # A host that reports no CPUs is not judged (as in Nova).
            return True
        if wanted > total:
            LOG.debug('%s rejected: %d vCPUs wanted, %d physical',
                      host_state, wanted, total)
            return False
        limit = total * self.allocation_ratio(host_state)
        free = limit - host_state.vcpus_used
        if free >= wanted:
            host_state.limits['vcpu'] = limit
            return True
        LOG.debug('%s rejected: %.1f vCPUs free, %d wanted',
                  host_state, free, wanted)
        return False


class AggregateRamFilter(_AggregateRatio, RamFilter):
    """RamFilter with ``ram_allocation_ratio`` from aggregate metadata."""


class AggregateDiskFilter(_AggregateRatio, DiskFilter):
    """DiskFilter with ``disk_allocation_ratio`` from aggregate metadata."""


class AggregateCoreFilter(_AggregateRatio, CoreFilter):
    """CoreFilter with ``cpu_allocation_ratio`` from aggregate metadata."""
