"""CrossCellWeigher: keep moves in the instance's cell when possible.

During a move that may cross cells (``spec.source_cell_uuid`` set), a host
in the instance's current cell weighs 1 and others -1; moving between
cells is much more expensive than within one. Builds weigh every host 0.
"""

from nova_lite.scheduler import weights


class CrossCellWeigher(weights.BaseHostWeigher):
    """Prefers hosts in the moving instance's own cell."""

    multiplier_option = 'cross_cell_move_weight_multiplier'

    def _weigh_object(self, host_state, spec):
        source = spec.source_cell_uuid
        dest = spec.requested_destination
        if not source or (dest is not None and
                          not dest.allow_cross_cell_move):
            return 0
        return 1 if host_state.cell_uuid == source else -1
