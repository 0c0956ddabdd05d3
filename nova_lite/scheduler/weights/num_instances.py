"""NumInstancesWeigher: instances on the host.

Off by default (multiplier 0.0); positive packs instances onto busy hosts,
negative spreads them by count rather than by free resources.
"""

from nova_lite.scheduler import weights


class NumInstancesWeigher(weights.BaseHostWeigher):
    """Weighs hosts by ``num_instances``."""

    attribute = 'num_instances'
    multiplier_option = 'num_instances_weight_multiplier'
