"""Soft server group weighers: affinity and anti-affinity as preferences.

For a ``soft-affinity`` group, hosts already running more of the group's
members weigh more; for ``soft-anti-affinity``, less. Unlike the hard
policies' filters they never reject a host, so a build succeeds even when
the preference cannot be honoured. The multipliers must be positive; the
sign comes from the policy. Members placed earlier in the same request
count (the manager appends each pick to ``instance_group.hosts``).
"""

from nova_lite.scheduler import weights


class _SoftGroupWeigher(weights.BaseHostWeigher):
    POLICY = None

    def weigh_objects(self, hosts, spec):
        """All zeros when the request has no group of this policy."""
        group = spec.instance_group
        if group is None or group.policy != self.POLICY:
            return [0] * len(hosts)
        return super().weigh_objects(hosts, spec)

    def depends_on_picks(self, spec):
        """Each pick of the request adds a member on its host."""
        group = spec.instance_group
        return group is not None and group.policy == self.POLICY

    def members_on(self, host_state, spec):
        group = spec.instance_group
        if group is None or group.policy != self.POLICY:
            return 0
        return group.count_on(host_state.host)


class ServerGroupSoftAffinityWeigher(_SoftGroupWeigher):
    """Prefers hosts with more members of a soft-affinity group."""

    POLICY = 'soft-affinity'
    multiplier_option = 'soft_affinity_weight_multiplier'

    def _weigh_object(self, host_state, spec):
        return self.members_on(host_state, spec)


class ServerGroupSoftAntiAffinityWeigher(_SoftGroupWeigher):
    """Prefers hosts with fewer members of a soft-anti-affinity group."""

    POLICY = 'soft-anti-affinity'
    multiplier_option = 'soft_anti_affinity_weight_multiplier'

    def _weigh_object(self, host_state, spec):
        return -self.members_on(host_state, spec)
