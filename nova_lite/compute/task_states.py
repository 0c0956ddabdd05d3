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
RESCUING = 'rescuing'
UNRESCUING = 'unrescuing'
DELETING = 'deleting'
# createImage (a snapshot): set by the API, then by the compute
IMAGE_SNAPSHOT = 'image_snapshot'
# createBackup: a snapshot, then the rotation of older backups
IMAGE_BACKUP = 'image_backup'
IMAGE_PENDING_UPLOAD = 'image_pending_upload'
IMAGE_UPLOADING = 'image_uploading'

# Moves (NOVA_FACTS §5): resize and cold migrate
RESIZE_PREP = 'resize_prep'
RESIZE_MIGRATING = 'resize_migrating'
RESIZE_MIGRATED = 'resize_migrated'
RESIZE_FINISH = 'resize_finish'
RESIZE_REVERTING = 'resize_reverting'
RESIZE_CONFIRMING = 'resize_confirming'
# live migration
MIGRATING = 'migrating'
# rebuild and evacuate
REBUILDING = 'rebuilding'
REBUILD_BLOCK_DEVICE_MAPPING = 'rebuild_block_device_mapping'
REBUILD_SPAWNING = 'rebuild_spawning'
# shelve
SHELVING = 'shelving'
SHELVING_IMAGE_PENDING_UPLOAD = 'shelving_image_pending_upload'
SHELVING_IMAGE_UPLOADING = 'shelving_image_uploading'
SHELVING_OFFLOADING = 'shelving_offloading'
UNSHELVING = 'unshelving'
# soft delete (reclaim_instance_interval) and restore
SOFT_DELETING = 'soft-deleting'
RESTORING = 'restoring'
