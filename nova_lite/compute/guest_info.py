"""What the API asks a compute about a guest, or tells it from outside:
diagnostics, and external events (Neutron's ``network-vif-plugged``,
Ironic-style ``power-update``).

Diagnostics come from the driver of a running guest only (Nova:
``InstanceInvalidState`` otherwise, a 409 in the API). ``power-update``
is best effort, as in Nova: it applies only to an instance that is
active and running (``POWER_OFF``) or stopped and shut down
(``POWER_ON``) with no task; the compute sets the task state, the driver
records the new power state and the instance its vm state. The API has
already started the ``start``/``stop`` action; the compute records the
``compute_power_update`` event under it. Network events find nobody
waiting here (nova_lite plugs no VIFs) and are logged.
"""

from oslo_log import log as logging

from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import exception
from nova_lite.virt import power_state

LOG = logging.getLogger(__name__)

POWER_ON = 'POWER_ON'
POWER_OFF = 'POWER_OFF'
POWER_UPDATE_EVENT = 'compute_power_update'
# tag -> (state the instance must be in, task state while it changes,
# what it is after)
_POWER_UPDATES = {
    POWER_ON: ((vm_states.STOPPED, power_state.SHUTDOWN),
               task_states.POWERING_ON,
               (vm_states.ACTIVE, power_state.RUNNING)),
    POWER_OFF: ((vm_states.ACTIVE, power_state.RUNNING),
                task_states.POWERING_OFF,
                (vm_states.STOPPED, power_state.SHUTDOWN)),
}


class GuestInfo:
    """Diagnostics and external events of one compute's guests."""

    def __init__(self, driver, records, events, conductor_api):
        self.driver = driver
        self.records = records
        self.events = events
        self.conductor_api = conductor_api

    def _running(self, instance, method):
        state = self.driver.get_info(instance).state
        if state != power_state.RUNNING:
            raise exception.InstanceInvalidState(
                action=method, uuid=instance.uuid, attr='power_state',
                state=power_state.STATE_MAP.get(state, state))

    def get_diagnostics(self, instance):
        """The driver's free-form diagnostics (API before 2.48)."""
        self._running(instance, 'get_diagnostics')
        return self.driver.get_diagnostics(instance)

    def get_instance_diagnostics(self, instance):
        """The standard diagnostics (API 2.48)."""
        self._running(instance, 'get_diagnostics')
        return self.driver.get_instance_diagnostics(instance)

    def external_instance_event(self, context, events):
        """Handle each event (dicts: ``name``, ``server_uuid``, ``tag``,
        ``status``) for the instances of this host."""
        for event in events:
            uuid = event['server_uuid']
            if event['name'] == 'power-update':
                self._power_update(context, uuid, event.get('tag'))
            else:
                LOG.info('Event %s-%s for instance %s: nothing waits for '
                         'it here', event['name'], event.get('tag'), uuid)

    def _power_update(self, context, uuid, tag):
        try:
            instance = self.conductor_api.instance_get_by_uuid(context,
                                                               uuid)
        except exception.InstanceNotFound:
            LOG.info('power-update for instance %s that is gone', uuid)
            return
        try:
            with self.events.step(context, uuid, POWER_UPDATE_EVENT,
                                  fault=True):
                self._apply_power_update(context, instance, tag)
        except Exception as error:  # noqa: BLE001 - recorded as a fault
            LOG.warning('power-update %s of instance %s failed: %s', tag,
                        uuid, error)

    def _apply_power_update(self, context, instance, tag):
        (vm_from, power_from), task, (vm_to, power_to) = _POWER_UPDATES[tag]
        if (instance.task_state is not None or
                instance.vm_state != vm_from or
                instance.power_state != power_from):
            LOG.info('power-update %s of instance %s is a no-op: it is %s, '
                     'task %s, power state %s', tag, instance.uuid,
                     instance.vm_state, instance.task_state,
                     instance.power_state)
            return
        try:
            self.records.update(context, instance.uuid,
                                {'task_state': task},
                                expected_task_state=[None])
        except exception.UnexpectedTaskStateError as lost:
            LOG.info('power-update %s of instance %s preempted: %s', tag,
                     instance.uuid, lost)
            return
        self.driver.power_update_event(instance, tag)
        self.records.update(
            context, instance.uuid,
            {'vm_state': vm_to, 'power_state': power_to,
             'task_state': None}, expected_task_state=[task])
        LOG.info('power-update %s of instance %s done', tag, instance.uuid)
