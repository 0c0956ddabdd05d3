"""DiskWeigher: free local disk (spread by default, stack when negative)."""

from nova_lite.scheduler import weights


class DiskWeigher(weights.BaseHostWeigher):
    """Weighs hosts by ``free_disk_mb``."""

    minval = 0
    multiplier_option = 'disk_weight_multiplier'

    def _weigh_object(self, host_state, spec):
        return host_state.free_disk_mb
