"""Live migration on a compute: destination checks, source and dest."""


class LiveMigrationMixin:
    """Part of :class:`nova_lite.compute.manager.ComputeManager`."""
