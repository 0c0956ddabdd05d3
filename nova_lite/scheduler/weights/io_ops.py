"""IoOpsWeigher: concurrent I/O-heavy tasks on the host.

The default multiplier (-1.0) prefers quiet hosts; a positive one prefers
busy hosts.
"""

from nova_lite.scheduler import weights


class IoOpsWeigher(weights.BaseHostWeigher):
    """Weighs hosts by ``num_io_ops``."""

    minval = 0
    attribute = 'num_io_ops'
    multiplier_option = 'io_ops_weight_multiplier'
