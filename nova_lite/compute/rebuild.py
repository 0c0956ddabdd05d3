"""Rebuild and evacuate on a compute; clean-up of evacuated instances."""


class RebuildMixin:
    """Part of :class:`nova_lite.compute.manager.ComputeManager`."""
