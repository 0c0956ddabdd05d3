"""Server snapshots on a compute: ``createImage`` and shelve's image.

The API created the image (``queued``) and set the instance's task state
(``image_snapshot`` for createImage, ``shelving`` for shelve); here the
driver stores the guest's disk as that image's data through the image
API (:meth:`nova_lite.virt.driver.ComputeDriver.snapshot`), reporting
``image_pending_upload`` then ``image_uploading`` (``shelving_image_*``
during a shelve, as Nova maps them). A snapshot that fails leaves no
task state and deletes its image unless it became active, as Nova does.
"""

from oslo_log import log as logging

from nova_lite.clients import image as image_client
from nova_lite.compute import task_states

LOG = logging.getLogger(__name__)

SNAPSHOT_EVENT = 'compute_snapshot_instance'
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
        uuid = instance.uuid
        report = TaskStateReporter(self.records, context, uuid,
                                   task_states.IMAGE_SNAPSHOT)
        try:
            with self.events.step(context, uuid, SNAPSHOT_EVENT, fault=True,
                                  revert=_NO_TASK):
                self.driver.snapshot(context, instance, image_id, report)
                self.records.update(context, uuid, {'task_state': None},
                                    expected_task_state=[report.last])
        except Exception as error:  # noqa: BLE001 - recorded as a fault
            LOG.warning('Snapshot of instance %s to image %s failed: %s',
                        uuid, image_id, error)
            drop_unfinished_image(self.image_client, image_id)
            return
        LOG.info('Instance %s snapshotted to image %s', uuid, image_id)
