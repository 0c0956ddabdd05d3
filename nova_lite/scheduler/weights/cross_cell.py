"""CrossCellWeigher: keep moves in the instance's cell when possible.

During a move that may cross cells (``spec.source_cell_uuid`` set), a host
in the instance's current cell weighs 1 and others -1; moving between
cells is much more expensive than within one. Builds weigh every host 0.
"""

from nova_lite.scheduler import weights


class CrossCellWeigher(weights.BaseHostWeigher):
    """Prefers hosts in the moving instance's own cell."""

    multiplier_option = 'cross_cell_move_weight_multiplier'

    def weigh_objects(self, hosts, spec):
        """All zeros unless the request is a cross-cell move."""
        if not _cross_cell_move(spec):
            return [0] * len(hosts)
        source = spec.source_cell_uuid
        return [1 if host.cell_uuid == source else -1 for host in hosts]

    def _weigh_object(self, host_state, spec):
        if not _cross_cell_move(spec):
            return 0
        return 1 if host_state.cell_uuid == spec.source_cell_uuid else -1


def _cross_cell_move(spec):
    dest = spec.requested_destination
    return bool(spec.source_cell_uuid) and (
        dest is None or dest.allow_cross_cell_move)
