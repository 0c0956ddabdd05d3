"""Cold migrate and resize on a compute: prep, resize, finish, confirm."""


class ResizeMixin:
    """Part of :class:`nova_lite.compute.manager.ComputeManager`."""
