"""Versioned objects of nova_lite (see :mod:`nova_lite.objects.base`).

:func:`register_all` imports every object module so the registry knows
them all; entry points and tests call it once before any RPC. What only
the API reads and writes (aggregates, key pairs, server groups, host
mappings, quota limits, flavor management) is in plain record modules
(:mod:`nova_lite.objects.record`), not versioned and not registered.
"""


def register_all():
    """Import every object module (registering its classes)."""
    # NOTE(nova_lite): imported for their registration side effect.
    __import__('nova_lite.objects.service')
    __import__('nova_lite.objects.selection')
    __import__('nova_lite.objects.flavor')
    __import__('nova_lite.objects.request_spec')
    __import__('nova_lite.objects.compute_node')
    __import__('nova_lite.objects.instance')
    __import__('nova_lite.objects.instance_fault')
    __import__('nova_lite.objects.instance_action')
    __import__('nova_lite.objects.cell_mapping')
    __import__('nova_lite.objects.instance_mapping')
    __import__('nova_lite.objects.build_request')
    __import__('nova_lite.objects.migration')
    __import__('nova_lite.objects.task_log')
    __import__('nova_lite.objects.scheduling_decision')
