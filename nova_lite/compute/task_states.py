"""Transient states of an instance (``instances.task_state``).

The API sets a task state before it casts to the compute; the compute
saves its result with ``expected_task_state`` so that two actions racing
on one instance cannot both win. ``None`` means no task in progress.
"""

SCHEDULING = 'scheduling'
BLOCK_DEVICE_MAPPING = 'block_device_mapping'
NETWORKING = 'networking'
SPAWNING = 'spawning'

POWERING_OFF = 'powering-off'
POWERING_ON = 'powering-on'
REBOOTING = 'rebooting'
REBOOTING_HARD = 'rebooting_hard'
REBOOT_PENDING = 'reboot_pending'
REBOOT_STARTED = 'reboot_started'
PAUSING = 'pausing'
UNPAUSING = 'unpausing'
SUSPENDING = 'suspending'
RESUMING = 'resuming'
DELETING = 'deleting'
