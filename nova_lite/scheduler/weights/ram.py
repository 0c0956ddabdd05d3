"""RAMWeigher: free RAM.

With a positive multiplier (the default) the host with the most free RAM
wins, spreading instances over hosts; a negative one stacks them onto the
fullest host that still fits, keeping other hosts empty.
"""

from nova_lite.scheduler import weights


class RAMWeigher(weights.BaseHostWeigher):
    """Weighs hosts by ``free_ram_mb``."""

    minval = 0
    attribute = 'free_ram_mb'
    multiplier_option = 'ram_weight_multiplier'
