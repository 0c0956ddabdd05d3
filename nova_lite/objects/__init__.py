"""Versioned objects of nova_lite (see :mod:`nova_lite.objects.base`).

:func:`register_all` imports every object module so the registry knows
them all; entry points and tests call it once before any RPC.
"""


def register_all():
    """Import every object module (registering its classes)."""
    # NOTE(nova_lite): imported for their registration side effect.
    __import__('nova_lite.objects.service')
    __import__('nova_lite.objects.selection')
