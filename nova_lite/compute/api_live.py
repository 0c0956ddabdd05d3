"""Live migration, evacuate and rebuild: the compute API facade part."""


class LiveAPIMixin:
    """Part of :class:`nova_lite.compute.api.API` (uses its helpers:
    ``_check_not_locked``, ``compute_rpcapi``, ``compute_task_api``,
    ``placement``)."""
