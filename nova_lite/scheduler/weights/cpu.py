"""CPUWeigher: free vCPUs, counting the CPU allocation ratio.

Free vCPUs are ``vcpus_total * cpu_allocation_ratio - vcpus_used``; a
positive multiplier spreads, a negative one stacks.
"""

from nova_lite.scheduler import weights


class CPUWeigher(weights.BaseHostWeigher):
    """Weighs hosts by free (overcommitted) vCPUs."""

    minval = 0
    multiplier_option = 'cpu_weight_multiplier'

    def _weigh_object(self, host_state, spec):
        total = host_state.vcpus_total * host_state.cpu_allocation_ratio
        return total - host_state.vcpus_used
