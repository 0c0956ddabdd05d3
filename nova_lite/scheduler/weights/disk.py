"""DiskWeigher: free local disk (spread by default, stack when negative)."""

from nova_lite.scheduler import weights


class DiskWeigher(weights.BaseHostWeigher):
    """Weighs hosts by ``free_disk_mb``."""

    minval = 0
    attribute = 'free_disk_mb'
    multiplier_option = 'disk_weight_multiplier'
