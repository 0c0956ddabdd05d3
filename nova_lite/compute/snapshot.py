"""Server snapshots on a compute: ``createImage``, ``createBackup`` and
shelve's image.

The API created the image (``queued``) and set the instance's task state
(``image_snapshot`` for createImage, ``shelving`` for shelve); here the
driver stores the guest's disk as that image's data through the image
API (:meth:`nova_lite.virt.driver.ComputeDriver.snapshot`), reporting
``image_pending_upload`` then ``image_uploading`` (``shelving_image_*``
during a shelve, as Nova maps them). A snapshot that fails leaves no
task state and deletes its image unless it became active, as Nova does.
A backup (``image_backup``) is a snapshot followed by the rotation: the
backups of the instance with the same ``backup_type`` are listed newest
first and those beyond ``rotation`` deleted (Nova's ``_rotate_backups``).
"""

from oslo_log import log as logging

from nova_lite.clients import image as image_client
from nova_lite.compute import task_states
from nova_lite import notifications

LOG = logging.getLogger(__name__)

SNAPSHOT_EVENT = 'compute_snapshot_instance'
BACKUP_EVENT = 'compute_backup_instance'
_NO_TASK = {'task_state': None}
# The driver's progress states, as a shelve reports them.
SHELVING_STATES = {
    task_states.IMAGE_PENDING_UPLOAD:
        task_states.SHELVING_IMAGE_PENDING_UPLOAD,
    task_states.IMAGE_UPLOADING: task_states.SHELVING_IMAGE_UPLOADING,
}


class TaskStateReporter:
    """The driver's ``update_task_state`` callback for one instance.

    :param first_expected: the task state the first report replaces
        (what the API set).
    :param mapping: how to translate the driver's states (a shelve's).
    """

    def __init__(self, records, context, instance_uuid, first_expected,
                 mapping=None):
        self.records = records
        self.context = context
        self.uuid = instance_uuid
        self.first_expected = first_expected
        self.mapping = mapping or {}
        self.last = first_expected

    def __call__(self, task_state, expected_state=None):
        state = self.mapping.get(task_state, task_state)
        expected = self.mapping.get(expected_state, expected_state) \
            if expected_state else self.first_expected
        self.records.update(self.context, self.uuid, {'task_state': state},
                            expected_task_state=[expected])
        self.last = state


def drop_unfinished_image(client, image_id):
    """Delete a snapshot image that did not become active."""
    try:
        if client.get(image_id).get('status') != 'active':
            client.delete(image_id)
            LOG.info('Unfinished snapshot image %s deleted', image_id)
    except image_client.ImageClientError as error:
        LOG.warning('Snapshot image %s not cleaned up: %s', image_id, error)


class Snapshots:
    """``snapshot_instance`` on one compute host."""

    def __init__(self, host, driver, records, events, tracker):
        self.host = host
        self.driver = driver
        self.records = records
        self.events = events
        self.tracker = tracker
        self._client = None

    @property
    def image_client(self):
        """The driver's image client when it has one, else our own."""
        client = getattr(self.driver, 'image_client', None) or self._client
        if client is None:
            client = self._client = image_client.ImageClient()
        return client

    def snapshot_instance(self, context, image_id, instance):
        """Store the guest as image ``image_id``; no task state after."""
        if self._snapshot(context, image_id, instance,
                          task_states.IMAGE_SNAPSHOT, SNAPSHOT_EVENT):
            LOG.info('Instance %s snapshotted to image %s', instance.uuid,
                     image_id)

    def backup_instance(self, context, image_id, instance, backup_type,
                        rotation):
        """A snapshot into ``image_id``, then keep the ``rotation``
        newest ``backup_type`` backups of the instance."""
        if not self._snapshot(context, image_id, instance,
                              task_states.IMAGE_BACKUP, BACKUP_EVENT):
            return
        LOG.info('Instance %s backed up to image %s (%s)', instance.uuid,
                 image_id, backup_type)
        self.rotate_backups(instance.uuid, backup_type, rotation)

    def _snapshot(self, context, image_id, instance, task_state, event):
        """The driver's snapshot under ``task_state``; whether it
        worked (a failure is the action's fault, its image dropped)."""
        uuid = instance.uuid
        report = TaskStateReporter(self.records, context, uuid, task_state)
        self._notify(context, instance, 'start', image_id)
        try:
            with self.events.step(context, uuid, event, fault=True,
                                  revert=_NO_TASK):
                self.driver.snapshot(context, instance, image_id, report)
                self.records.update(context, uuid, {'task_state': None},
                                    expected_task_state=[report.last])
        except Exception as error:  # noqa: BLE001 - recorded as a fault
            LOG.warning('Snapshot of instance %s to image %s failed: %s',
                        uuid, image_id, error)
            drop_unfinished_image(self.image_client, image_id)
            return False
        self._notify(context, instance, 'end', image_id)
        return True

    def _notify(self, context, instance, phase, image_id):
        notifications.instance_action(
            context, instance, self.host, 'snapshot', phase,
            payload_cls=notifications.payloads.InstanceActionSnapshotPayload,
            snapshot_image_id=image_id)

    def rotate_backups(self, instance_uuid, backup_type, rotation):
        """Delete the oldest ``backup_type`` backups of the instance
        beyond the ``rotation`` newest."""
        try:
            backups = self.image_client.list(
                image_type='backup', backup_type=backup_type,
                instance_uuid=instance_uuid, sort_key='created_at',
                sort_dir='desc')
        except image_client.ImageClientError as error:
            LOG.warning('Backups of instance %s not rotated: %s',
                        instance_uuid, error)
            return
        for image in backups[rotation:]:
            try:
                self.image_client.delete(image['id'])
            except image_client.ImageNotFound:
                continue
            except image_client.ImageClientError as error:
                LOG.warning('Backup %s of instance %s not rotated out: %s',
                            image['id'], instance_uuid, error)
                continue
            LOG.info('Backup %s of instance %s rotated out (rotation %d)',
                     image['id'], instance_uuid, rotation)
