"""Shelve, shelve offload and unshelve on a compute (NOVA_FACTS §5.5).

* ``shelve_instance``: the API set task ``shelving`` and created the
  snapshot image; the guest is powered off, the driver stores it as that
  image (task ``shelving_image_pending_upload`` then
  ``shelving_image_uploading``, see :mod:`nova_lite.compute.snapshot`)
  and the instance becomes ``shelved`` (system metadata ``shelved_at``,
  ``shelved_host``, ``shelved_image_id``). It keeps its guest and its
  allocation on this host until it is offloaded: right away when
  ``[DEFAULT] shelved_offload_time`` is 0, after that many seconds (a
  periodic task here) when positive, never by itself when -1.
* ``shelve_offload_instance`` (and the automatic offload): the guest is
  destroyed, the instance's allocation deleted, host and node cleared:
  ``shelved_offloaded`` holds nothing anywhere.
* ``unshelve_instance``: a guest still here is powered on; an offloaded
  instance is spawned on the node the scheduler chose and claimed (the
  super conductor casts here with that node, and the snapshot image as
  the image). A failed spawn drops the new allocation and puts the
  instance back to ``shelved_offloaded`` with a fault, as Nova does. Once
  unshelved, either way, the snapshot image is deleted, as Nova does.
"""

import datetime

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.clients import image as image_client
from nova_lite.compute import snapshot
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import conf as nl_conf
from nova_lite import exception
from nova_lite import notifications
from nova_lite.virt import power_state

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)

SHELVE_EVENT = 'compute_shelve_instance'
OFFLOAD_EVENT = 'compute_shelve_offload_instance'
UNSHELVE_EVENT = 'compute_unshelve_instance'
SHELVED_KEYS = ('shelved_at', 'shelved_host', 'shelved_image_id')
# Seconds between two looks for shelved instances due for offload, at most.
OFFLOAD_CHECK_MAX = 60
# What a failed shelve or unshelve in place leaves: no task.
_NO_TASK = {'task_state': None}
# What a failed unshelve by spawn leaves: offloaded again.
_OFFLOADED = {'vm_state': vm_states.SHELVED_OFFLOADED, 'task_state': None,
              'power_state': power_state.SHUTDOWN, 'host': None,
              'node': None, 'compute_id': None}


def _without_shelved_keys(system_metadata):
    return {k: v for k, v in (system_metadata or {}).items()
            if k not in SHELVED_KEYS}


def _shelved_since(instance):
    """When the instance was shelved (None if unknown)."""
    text = (instance.system_metadata or {}).get('shelved_at')
    if not text:
        return None
    try:
        return timeutils.normalize_time(timeutils.parse_isotime(text))
    except ValueError:
        return None


class Shelving:
    """Shelve, offload and unshelve on one compute host.

    :param conductor_api: the cell conductor (shelved instances of this
        host, for the automatic offload).
    """

    def __init__(self, host, driver, records, events, allocations, tracker,
                 conductor_api):
        self.host = host
        self.driver = driver
        self.records = records
        self.events = events
        self.allocations = allocations
        self.tracker = tracker
        self.conductor_api = conductor_api
        self._client = None

    @property
    def image_client(self):
        """The driver's image client when it has one, else our own."""
        client = getattr(self.driver, 'image_client', None) or self._client
        if client is None:
            client = self._client = image_client.ImageClient()
        return client

    def _delete_snapshot(self, instance):
        """Delete the shelve's snapshot image of an unshelved instance
        (Nova's ``_delete_snapshot_of_shelved_instance``): a failure is a
        warning, the instance is unshelved anyway."""
        image_id = (instance.system_metadata or {}).get('shelved_image_id')
        if not image_id or image_id == instance.image_ref:
            return
        try:
            self.image_client.delete(image_id)
        except image_client.ImageNotFound:
            pass
        except image_client.ImageClientError as error:
            LOG.warning('Snapshot image %s of unshelved instance %s not '
                        'deleted: %s', image_id, instance.uuid, error)
            return
        LOG.info('Snapshot image %s of unshelved instance %s deleted',
                 image_id, instance.uuid)

    # -- shelve ----------------------------------------------------------

    def shelve_instance(self, context, instance, image_id=None):
        """Power off, snapshot into ``image_id`` (when given), record the
        shelve, offload if configured."""
        uuid = instance.uuid
        offload_now = CONF.shelved_offload_time == 0
        self._notify(context, instance, 'shelve', 'start')
        report = snapshot.TaskStateReporter(
            self.records, context, uuid, task_states.SHELVING,
            snapshot.SHELVING_STATES)
        try:
            with self.events.step(context, uuid, SHELVE_EVENT, fault=True,
                                  revert=_NO_TASK):
                self.driver.power_off(instance)
                if image_id:
                    self.driver.snapshot(context, instance, image_id,
                                         report)
                system_metadata = dict(instance.system_metadata or {})
                system_metadata.update(
                    shelved_at=timeutils.utcnow().isoformat(),
                    shelved_host=self.host)
                if image_id:
                    system_metadata['shelved_image_id'] = image_id
                instance = self.records.update(
                    context, uuid,
                    {'vm_state': vm_states.SHELVED,
                     'task_state': (task_states.SHELVING_OFFLOADING
                                    if offload_now else None),
                     'power_state': self.driver.get_info(instance).state,
                     'system_metadata': system_metadata},
                    expected_task_state=[report.last])
        except Exception as error:  # noqa: BLE001 - recorded as a fault
            _log_failure(SHELVE_EVENT, uuid, error)
            if image_id:
                snapshot.drop_unfinished_image(self.image_client, image_id)
            return
        LOG.info('Instance %s shelved on %s', uuid, self.host)
        self._notify(context, instance, 'shelve', 'end')
        if offload_now:
            self.offload(context, instance)

    def offload(self, context, instance):
        """Destroy the guest, clear host/node, then free the allocation
        (in that order: an instance that still names this host never
        lacks its allocation)."""
        uuid = instance.uuid
        node = instance.node
        self._notify(context, instance, 'shelve_offload', 'start')
        try:
            with self.events.step(context, uuid, OFFLOAD_EVENT, fault=True,
                                  revert=_NO_TASK):
                self.driver.destroy(context, instance)
                instance = self.records.update(
                    context, uuid,
                    {'vm_state': vm_states.SHELVED_OFFLOADED,
                     'task_state': None, 'power_state': power_state.SHUTDOWN,
                     'host': None, 'node': None, 'compute_id': None},
                    expected_task_state=[task_states.SHELVING_OFFLOADING])
                self.allocations.drop(uuid)
        except Exception as error:  # noqa: BLE001 - recorded as a fault
            _log_failure(OFFLOAD_EVENT, uuid, error)
            return
        if node:
            self.tracker.refresh_usage(context, node)
        LOG.info('Instance %s offloaded from %s: no guest, no allocation',
                 uuid, node)
        self._notify(context, instance, 'shelve_offload', 'end')

    def _notify(self, context, instance, action, phase):
        notifications.instance_action(context, instance, self.host, action,
                                      phase)

    # -- automatic offload -------------------------------------------------

    def offload_expired_shelved_instances(self, context):
        """Offload the instances of this host shelved longer than
        ``shelved_offload_time`` seconds; returns how many were."""
        timeout = CONF.shelved_offload_time
        if timeout <= 0:
            return 0
        deadline = timeutils.utcnow() - datetime.timedelta(seconds=timeout)
        shelved = self.conductor_api.instance_get_all_by_filters(
            context, {'host': self.host, 'vm_state': vm_states.SHELVED,
                      'task_state': None})
        offloaded = 0
        for instance in shelved:
            since = _shelved_since(instance)
            if since is None or since > deadline:
                continue
            try:
                instance = self.records.update(
                    context, instance.uuid,
                    {'task_state': task_states.SHELVING_OFFLOADING},
                    expected_task_state=[None],
                    expected_vm_state=[vm_states.SHELVED])
            except (exception.InstanceNotFound,
                    exception.UnexpectedTaskStateError,
                    exception.UnexpectedVMStateError) as changed:
                LOG.info('Shelved instance %s not offloaded: %s',
                         instance.uuid, changed)
                continue
            LOG.info('Instance %s shelved for more than %d s: offloading',
                     instance.uuid, timeout)
            self.offload(context, instance)
            offloaded += 1
        return offloaded

    # -- unshelve --------------------------------------------------------

    def unshelve_instance(self, context, instance, node, image):
        """Power on the guest kept here, or spawn the offloaded instance
        on ``node`` (claimed by the scheduler)."""
        self._notify(context, instance, 'unshelve', 'start')
        if instance.vm_state == vm_states.SHELVED and \
                instance.host == self.host:
            self._unshelve_in_place(context, instance)
        else:
            self._unshelve_by_spawn(context, instance, node, image)

    def _unshelve_in_place(self, context, instance):
        uuid = instance.uuid
        try:
            with self.events.step(context, uuid, UNSHELVE_EVENT, fault=True,
                                  revert=_NO_TASK):
                self.driver.power_on(context, instance)
                # As Nova: the snapshot goes before the instance is ACTIVE.
                self._delete_snapshot(instance)
                instance = self.records.update(
                    context, uuid,
                    {'vm_state': vm_states.ACTIVE, 'task_state': None,
                     'power_state': self.driver.get_info(instance).state,
                     'system_metadata': _without_shelved_keys(
                         instance.system_metadata)},
                    expected_task_state=[task_states.UNSHELVING])
        except Exception as error:  # noqa: BLE001 - recorded as a fault
            _log_failure(UNSHELVE_EVENT, uuid, error)
            return
        LOG.info('Instance %s unshelved on %s (guest kept)', uuid,
                 self.host)
        self._notify(context, instance, 'unshelve', 'end')

    def _unshelve_by_spawn(self, context, instance, node, image):
        uuid = instance.uuid
        values = {'task_state': task_states.SPAWNING, 'host': self.host,
                  'node': node}
        compute_node = self.tracker.get_node(node)
        if compute_node is not None:
            values['compute_id'] = compute_node.id
        try:
            instance = self.records.update(
                context, uuid, values,
                expected_task_state=[task_states.UNSHELVING])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError) as changed:
            LOG.info('Instance %s changed before its unshelve (%s); '
                     'dropping its new allocation', uuid, changed)
            self.allocations.drop(uuid)
            return
        try:
            with self.events.step(
                    context, uuid, UNSHELVE_EVENT, fault=True,
                    undo=lambda error: self._undo_spawn(context, instance,
                                                        node, error),
                    revert=_OFFLOADED,
                    expected_task_state=[task_states.SPAWNING]):
                instance = self._spawn(context, instance, node, image)
        except Exception:  # noqa: BLE001 - back to offloaded
            self.tracker.refresh_usage(context, node)
            return
        self.tracker.refresh_usage(context, node)
        LOG.info('Instance %s unshelved on %s', uuid, node)
        self._notify(context, instance, 'unshelve', 'end')

    def _spawn(self, context, instance, node, image):
        allocations = self.allocations.claimed(instance.uuid, node)
        self.driver.spawn(context, instance, image or {}, allocations)
        # As Nova: the shelve's snapshot goes before the instance is
        # ACTIVE, so whoever sees it ACTIVE no longer finds the snapshot.
        self._delete_snapshot(instance)
        return self.records.update(
            context, instance.uuid,
            {'vm_state': vm_states.ACTIVE, 'task_state': None,
             'power_state': self.driver.get_info(instance).state,
             'system_metadata': _without_shelved_keys(
                 instance.system_metadata)},
            expected_task_state=[task_states.SPAWNING])

    def _undo_spawn(self, context, instance, node, error):
        """No guest and no allocation left: the instance goes back to
        ``shelved_offloaded`` (the bracket writes it, with a fault)."""
        uuid = instance.uuid
        LOG.warning('Unshelve of instance %s on %s failed: %s', uuid, node,
                    error)
        try:
            self.driver.destroy(context, instance)
        except Exception as destroy_error:  # noqa: BLE001
            LOG.warning('Cleanup of the guest of %s failed: %s', uuid,
                        destroy_error)
        self.allocations.drop(uuid)


def _log_failure(event, uuid, error):
    LOG.warning('%s of instance %s failed: %s', event, uuid, error)
