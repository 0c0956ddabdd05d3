"""Soft delete, restore and reclaim (``[DEFAULT] reclaim_instance_interval``).

With a positive interval the API makes a delete soft: it stamps
``deleted_at``, sets the task ``soft-deleting`` and casts here. The
compute powers the guest off and the instance becomes ``SOFT_DELETED``;
its guest, its allocation in placement and its row stay, so ``restore``
(task ``restoring``) powers it back on, ``ACTIVE``. A periodic task of the
compute reclaims, as a normal delete, the soft-deleted instances of its
host whose ``deleted_at`` is older than the interval. All as in Nova.
"""

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import notifications

LOG = logging.getLogger(__name__)

SOFT_DELETE_EVENT = 'compute_soft_delete_instance'
RESTORE_EVENT = 'compute_restore_instance'
# Seconds between two reclaim passes at most.
RECLAIM_CHECK_MAX = 60


class DeferredDeletes:
    """Soft-deleted instances of one compute host.

    :param lifecycle: the host's :class:`~nova_lite.compute.lifecycle.
        Lifecycle` (a reclaim is its delete).
    """

    def __init__(self, host, driver, records, events, conductor_api,
                 lifecycle):
        self.host = host
        self.driver = driver
        self.records = records
        self.events = events
        self.conductor_api = conductor_api
        self.lifecycle = lifecycle

    def soft_delete_instance(self, context, instance):
        """Power the guest off; SOFT_DELETED (resources kept)."""
        self._act(context, instance, SOFT_DELETE_EVENT,
                  lambda: self.driver.power_off(instance),
                  task_states.SOFT_DELETING, vm_states.SOFT_DELETED,
                  'soft_delete')

    def restore_instance(self, context, instance):
        """Power the guest back on; ACTIVE."""
        self._act(context, instance, RESTORE_EVENT,
                  lambda: self.driver.power_on(context, instance),
                  task_states.RESTORING, vm_states.ACTIVE, 'restore')

    def _act(self, context, instance, event, call, task_state, vm_state,
             action):
        """``action``: the notifications' (``instance.<action>.*``)."""
        notifications.instance_action(context, instance, self.host, action,
                                      'start')
        try:
            with self.events.step(context, instance.uuid, event, fault=True,
                                  revert={'task_state': None},
                                  expected_task_state=[task_state]):
                call()
                instance = self.records.update(
                    context, instance.uuid,
                    {'vm_state': vm_state, 'task_state': None,
                     'power_state': self.driver.get_info(instance).state},
                    expected_task_state=[task_state])
        except Exception as error:  # noqa: BLE001 - recorded as a fault
            LOG.warning('%s of instance %s failed: %s', event,
                        instance.uuid, error)
            return
        LOG.info('Instance %s is %s', instance.uuid, vm_state)
        notifications.instance_action(context, instance, self.host, action,
                                      'end')

    def reclaim_queued_deletes(self, context, interval):
        """Delete for good the instances soft-deleted here more than
        ``interval`` seconds ago; how many were."""
        instances = self.conductor_api.instance_get_all_by_filters(
            context, {'vm_state': vm_states.SOFT_DELETED,
                      'task_state': None, 'host': self.host})
        reclaimed = 0
        for instance in instances:
            deleted_at = instance.deleted_at
            if deleted_at is not None and not timeutils.is_older_than(
                    deleted_at.replace(tzinfo=None), interval):
                continue
            LOG.info('Reclaiming soft-deleted instance %s', instance.uuid)
            self.lifecycle.terminate_instance(context, instance)
            reclaimed += 1
        return reclaimed
