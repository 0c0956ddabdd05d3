"""The super conductor's unshelve of a shelved-offloaded instance.

An offloaded instance holds no allocation and has no host, so unshelving
it is a small build (NOVA_FACTS §5.5):

1. the request spec (the stored one, or the API's copy with this
   request's availability zone or 2.91 host) is restricted to the
   instance's cell and asked of the scheduler without alternates; the
   scheduler claims the chosen node for the instance in placement;
2. the instance takes the availability zone of its new host, and
   ``unshelve_instance`` is cast to that compute over the cell's bus: it
   spawns the guest and sets host and node (a failed spawn drops the
   claim there).

When the shelve's snapshot image is gone, the instance goes to ERROR with
a fault, as in Nova. When no host fits, the scheduler fails or times out,
or the cast fails, the instance stays ``shelved_offloaded`` with no task,
a fault says why
and the action's ``conductor_unshelve_instance`` event is an error; no
claim is left behind (an offloaded instance holds nothing, so whatever
it holds then is this task's claim).
"""


from oslo_log import log as logging

from nova_lite import cells
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite.conductor import decisions
from nova_lite.conductor.tasks import common
from nova_lite import exception
from nova_lite.image import interface as image_api
from nova_lite import objects
from nova_lite.scheduler import rpcapi as scheduler_rpcapi

LOG = logging.getLogger(__name__)

EVENT = 'conductor_unshelve_instance'
# What a failed unshelve leaves: offloaded again, no task.
_OFFLOADED = {'vm_state': vm_states.SHELVED_OFFLOADED, 'task_state': None,
              'host': None, 'node': None}


class UnshelveTask:
    """Schedule one offloaded instance and hand it to its new compute."""

    def __init__(self, context, instance, request_spec, scheduler_api,
                 compute_api, placement):
        self.context = context
        self.instance = instance
        self.request_spec = request_spec
        self.scheduler_api = scheduler_api
        self.compute_api = compute_api
        self.placement = placement
        # The host chosen, once the scheduler answered.
        self.selection = None

    def execute(self):
        uuid = self.instance.uuid
        try:
            mapping = objects.InstanceMapping.get_by_instance_uuid(
                self.context, uuid)
        except exception.InstanceMappingNotFound:
            LOG.info('Instance %s was deleted before its unshelve', uuid)
            return
        cell = mapping.cell_mapping
        with cells.target_cell(self.context, cell) as cctxt:
            instance = self._current(cctxt, uuid)
            if instance is None:
                return
            try:
                with common.action_events().step(
                        cctxt, uuid, EVENT, fault=True,
                        undo=lambda error: self._undo(uuid, error),
                        revert=_revert_values,
                        expected_task_state=[task_states.UNSHELVING]):
                    image = _image_of(instance)
                    spec = self._scheduling_spec(instance, cell)
                    self.selection = self._schedule(cctxt, spec, uuid)
                    self._hand_over(cctxt, instance, self.selection, spec,
                                    image)
            except Exception:  # noqa: BLE001 - no claim may leak
                return
            decisions.describe_event(cctxt, uuid, EVENT)

    def _undo(self, uuid, error):
        """Whatever the instance holds now is this task's claim."""
        LOG.warning('Unshelve of instance %s failed in the conductor (%s): '
                    '%s', uuid, 'host %s' % self.selection.service_host
                    if self.selection else 'no host', error)
        common.delete_allocations(self.placement, uuid)

    @staticmethod
    def _current(cctxt, uuid):
        """The instance if it still waits for this unshelve, else None."""
        try:
            instance = objects.Instance.get_by_uuid(cctxt, uuid)
        except exception.InstanceNotFound:
            LOG.info('Instance %s was deleted before its unshelve', uuid)
            return None
        if instance.vm_state != vm_states.SHELVED_OFFLOADED or \
                instance.task_state != task_states.UNSHELVING:
            LOG.info('Instance %s is %s/%s: not unshelving it', uuid,
                     instance.vm_state, instance.task_state)
            return None
        return instance

    def _scheduling_spec(self, instance, cell):
        """The spec to schedule with: this request's wishes (zone, 2.91
        host), the current flavor, restricted to the instance's cell,
        nothing forced or ignored from earlier moves."""
        wanted = (self.request_spec.get('requested_destination')
                  if self.request_spec is not None else None)
        return objects.RequestSpec.for_move(
            self.context, instance, cell.uuid,
            host=wanted.host if wanted else None,
            node=wanted.node if wanted else None, base=self.request_spec)

    def _schedule(self, cctxt, spec, uuid):
        return common.first_selection(decisions.select_and_store(
            self.scheduler_api, self.context, cctxt, spec, uuid,
            'unshelve'))

    def _hand_over(self, cctxt, instance, selection, spec, image):
        zone = (getattr(selection, 'availability_zone', None) or
                common.default_availability_zone())
        if instance.availability_zone != zone:
            instance.availability_zone = zone
            instance.save(expected_task_state=[task_states.UNSHELVING])
        LOG.info('Unshelving instance %s on %s/%s', instance.uuid,
                 selection.service_host, selection.nodename)
        self.compute_api.unshelve_instance(
            cctxt, instance, selection.service_host,
            node=selection.nodename, request_spec=spec, image=image)


def _revert_values(error):
    """What a failure leaves: offloaded again, or ERROR when the shelve's
    snapshot is gone (nothing to unshelve from, as in Nova)."""
    if isinstance(error, exception.ShelvedImageNotFound):
        return {'vm_state': vm_states.ERROR, 'task_state': None}
    return _OFFLOADED


def _image_of(instance):
    """The image to spawn from: the shelve's snapshot
    (``shelved_image_id``; ShelvedImageNotFound when it is gone), else the
    instance's image (None if gone)."""
    snapshot_id = (instance.system_metadata or {}).get('shelved_image_id')
    if snapshot_id:
        image = image_api.find(snapshot_id)
        if image is None:
            raise exception.ShelvedImageNotFound(image_id=snapshot_id)
        return image
    if not instance.image_ref:
        return None
    try:
        return image_api.find(instance.image_ref)
    except Exception as error:  # noqa: BLE001 - spawn without it
        LOG.warning('Image %s of instance %s not readable: %s',
                    instance.image_ref, instance.uuid, error)
        return None


def unshelve_instance(context, instance, request_spec, transport,
                      placement):
    """Run an :class:`UnshelveTask` with the usual clients."""
    UnshelveTask(context, instance, request_spec,
                 scheduler_rpcapi.SchedulerAPI(transport=transport),
                 compute_rpcapi.ComputeAPI(), placement).execute()
