"""Shelve, shelve offload and unshelve on a compute."""


class ShelveMixin:
    """Part of :class:`nova_lite.compute.manager.ComputeManager`."""
