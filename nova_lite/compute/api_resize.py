"""Resize, cold migrate, confirm, revert: the compute API facade part."""


class ResizeAPIMixin:
    """Part of :class:`nova_lite.compute.api.API` (uses its helpers:
    ``_check_not_locked``, ``compute_rpcapi``, ``compute_task_api``,
    ``placement``)."""
