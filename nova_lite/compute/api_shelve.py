"""Shelve, shelve offload, unshelve: the compute API facade part."""


class ShelveAPIMixin:
    """Part of :class:`nova_lite.compute.api.API` (uses its helpers:
    ``_check_not_locked``, ``compute_rpcapi``, ``compute_task_api``,
    ``placement``)."""
