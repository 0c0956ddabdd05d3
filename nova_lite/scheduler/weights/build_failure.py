"""BuildFailureWeigher: avoid hosts whose recent builds failed.

A compute counts its failed builds (reset by a successful one). The
multiplier is applied negated, so a larger ``build_failure_weight_
multiplier`` pushes failing hosts further down; its large default makes a
failing host lose against any other weigher's preference.
"""

from nova_lite.scheduler import weights


class BuildFailureWeigher(weights.BaseHostWeigher):
    """Weighs hosts by ``failed_builds`` (negatively)."""

    attribute = 'failed_builds'
    multiplier_option = 'build_failure_weight_multiplier'

    def default_multiplier(self):
        return -1.0 * super().default_multiplier()

    def weight_multiplier(self, host_state, default=None):
        base = super().weight_multiplier(host_state, default)
        # An aggregate override is given as a positive number too.
        return base if base <= 0 else -base
