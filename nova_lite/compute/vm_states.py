"""Stable states of an instance (``instances.vm_state``), as Nova names them.

A vm state says what the instance *is*; the task state
(:mod:`nova_lite.compute.task_states`) says what is being done to it.
"""

ACTIVE = 'active'
BUILDING = 'building'
PAUSED = 'paused'
SUSPENDED = 'suspended'
STOPPED = 'stopped'
RESCUED = 'rescued'
RESIZED = 'resized'
SOFT_DELETED = 'soft-delete'
DELETED = 'deleted'
ERROR = 'error'
SHELVED = 'shelved'
SHELVED_OFFLOADED = 'shelved_offloaded'
