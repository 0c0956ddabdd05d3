"""The cell conductor's reschedule: the next alternate, no scheduler.

A compute whose build failed deletes its own allocation, puts the
instance back to ``scheduling`` and casts ``build_instances`` to its cell
conductor with the Selections it was not tried on. Here, per instance:

1. count the attempt; past ``[scheduler] max_attempts`` it is over;
2. take the alternates in order and claim each one's stored allocation
   request in placement (a new consumer: generation None); a refused claim
   falls through to the next alternate;
3. with a claim: record the alternate's availability zone (from the
   Selection: no API database up here), cast ``build_and_run_instance`` to
   that compute with the alternates still left;
4. with none left: ERROR, with a fault that says the retries ran out and
   keeps the text of the last build error.

Nothing here calls the scheduler, the super conductor or the API database.
"""

from oslo_log import log as logging

from nova_lite.compute import task_states
from nova_lite.conductor import decisions
from nova_lite.conductor.tasks import common
from nova_lite import conf as nl_conf
from nova_lite import exception
from nova_lite import notifications
from nova_lite import objects

CONF = nl_conf.CONF
LOG = logging.getLogger(__name__)


# Task states a failed build may leave; anything else (``deleting``) means
# the user acted meanwhile.
_BUILD_TASK_STATES = [None, task_states.SCHEDULING, task_states.SPAWNING,
                      task_states.NETWORKING,
                      task_states.BLOCK_DEVICE_MAPPING]


class MaxRetriesExceeded(exception.NoValidHost):
    msg_fmt = 'Exceeded maximum number of retries. %(reason)s'


def _attempts(spec):
    """Attempts made so far for this instance (the first build counts)."""
    retry = common.spec_value(spec, 'retry')
    if isinstance(retry, dict):
        return int(retry.get('num_attempts') or 1)
    num = common.spec_value(spec, 'num_attempts')
    if num is None and retry is not None:
        num = getattr(retry, 'num_attempts', None)
    return int(num or 1)


def _set_attempts(spec, value):
    retry = common.spec_value(spec, 'retry')
    if isinstance(retry, dict):
        retry['num_attempts'] = value
        spec.retry = retry
    elif retry is not None and hasattr(retry, 'num_attempts'):
        retry.num_attempts = value
    elif 'num_attempts' in getattr(spec, 'fields', {}):
        spec.num_attempts = value


def _last_error(cctxt, instance_uuid, exc_reason):
    if exc_reason:
        return exc_reason
    fault = objects.InstanceFault.get_latest_for_instance(cctxt,
                                                          instance_uuid)
    return fault.message if fault is not None else None


def _out_of_hosts(reason, last_error):
    """The error of a reschedule that cannot go on; it keeps the text of
    the last build failure (a fault message holds 255 characters: the
    instance uuid is left out, the fault belongs to it anyway)."""
    text = reason
    if last_error:
        text = '%s Last error: %s' % (text, last_error)
    return MaxRetriesExceeded(reason=text)


class RescheduleTask:
    """One ``build_instances`` request of a compute, in the cell."""

    def __init__(self, cctxt, instances, request_spec, host_lists, image,
                 exc_reason, compute_api, placement):
        self.cctxt = cctxt
        self.instances = instances
        self.request_spec = request_spec
        self.host_lists = host_lists
        self.image = image
        self.exc_reason = exc_reason
        self.compute_api = compute_api
        self.placement = placement

    def execute(self):
        for instance, host_list in zip(self.instances, self.host_lists,
                                       strict=False):
            try:
                self._retry_one(instance, list(host_list or []))
            except Exception as exc:  # noqa: BLE001 - fault, not a lost build
                LOG.exception('Reschedule of instance %s failed',
                              instance.uuid)
                common.delete_allocations(self.placement, instance.uuid)
                common.set_error_with_fault(self.cctxt, instance.uuid, exc)

    def _fail(self, instance, reason):
        error = _out_of_hosts(reason, _last_error(
            self.cctxt, instance.uuid, self.exc_reason))
        common.set_error_with_fault(self.cctxt, instance.uuid, error)
        notifications.compute_task_error(
            self.cctxt, 'build_instances', instance.uuid, self.request_spec,
            error, CONF.host)

    def _claim_next(self, instance, host_list, refused=None):
        """Pop alternates until one is claimed; (Selection, rest) or None.
        Alternates placement refused are added to ``refused``."""
        project_id = instance.project_id
        user_id = instance.user_id or self.cctxt.user_id
        while host_list:
            selection = host_list.pop(0)
            if common.claim_alternate(self.placement, instance.uuid,
                                      selection, project_id, user_id):
                return selection, host_list
            if refused is not None:
                refused.append(selection)
        return None

    def _record(self, instance_uuid, attempts, refused, picked, rest):
        """Append this attempt to the instance's decision record."""
        decisions.append(self.cctxt, instance_uuid,
                         decisions.reschedule_attempt(
                             attempts, self.exc_reason, refused, picked,
                             rest),
                         event=common.RESCHEDULE_EVENT)

    def _retry_one(self, instance, host_list):
        instance_uuid = instance.uuid
        attempts = _attempts(self.request_spec) + 1
        if attempts > CONF.scheduler.max_attempts:
            self._fail(instance, 'Exceeded max scheduling attempts %d.'
                       % CONF.scheduler.max_attempts)
            return
        _set_attempts(self.request_spec, attempts)
        if not host_list:
            self._record(instance_uuid, attempts, [], None, [])
            self._fail(instance, 'Exhausted all hosts available for '
                       'retrying build failures.')
            return
        refused = []
        claimed = self._claim_next(instance, host_list, refused)
        if claimed is None:
            self._record(instance_uuid, attempts, refused, None, [])
            self._fail(instance, 'Exhausted all hosts available for '
                       'retrying build failures.')
            return
        selection, rest = claimed
        self._record(instance_uuid, attempts, refused, selection, rest)
        instance = self._prepare_instance(instance, selection)
        if instance is None:
            common.delete_allocations(self.placement, instance_uuid)
            return
        LOG.info('Rescheduling instance %s to %s/%s (attempt %d, %d '
                 'alternates left)', instance.uuid, selection.service_host,
                 selection.nodename, attempts, len(rest))
        self.compute_api.build_and_run_instance(
            self.cctxt, instance, selection.service_host,
            selection.nodename, self.request_spec, rest, image=self.image)

    def _prepare_instance(self, instance, selection):
        """The instance stamped with the alternate's AZ, back in
        ``scheduling``; None when it was deleted meanwhile."""
        try:
            fresh = objects.Instance.get_by_uuid(self.cctxt, instance.uuid)
            if selection.obj_attr_is_set('availability_zone') and \
                    selection.availability_zone:
                fresh.availability_zone = selection.availability_zone
            fresh.host = None
            fresh.node = None
            fresh.task_state = task_states.SCHEDULING
            fresh.save(expected_task_state=_BUILD_TASK_STATES)
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError) as exc:
            LOG.info('Instance %s was deleted during the reschedule: %s',
                     instance.uuid, exc)
            return None
        return fresh
