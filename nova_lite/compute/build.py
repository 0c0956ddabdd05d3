"""Builds on a compute: ``build_and_run_instance`` and its outcomes.

The RPC handler only queues the build (at most ``[compute]
max_concurrent_builds`` at once) and returns: the caster never waits. A
build then:

1. moves the instance to ``building``/``spawning`` on this host, from
   ``scheduling`` (or no task); any other state means the user deleted
   it meanwhile and the build stops, dropping its allocation;
2. reads the allocation the scheduler (or the cell conductor, on a
   reschedule) claimed in placement; the compute never claims, so no
   allocation is a final failure;
3. spawns through the driver, then records the outcome:

   * success: ``active``, the node's ``failed_builds`` reset, the node's
     usage refreshed;
   * ``BuildAbort`` (another host would not help): guest and allocation
     removed, ``failed_builds`` raised, ERROR with a fault;
   * ``BuildFailed`` or anything unexpected: the same cleanup, then, with
     alternates left, back to ``scheduling`` and ``build_instances`` to the
     cell conductor with the remaining Selections; with none left, ERROR
     with a fault saying so.
"""

import concurrent.futures
import threading
import time

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.clients import placement as placement_client
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import exception
from nova_lite.virt import exception as virt_exc
from nova_lite.virt import power_state

LOG = logging.getLogger(__name__)

BUILD_EVENT = 'compute_build_and_run_instance'
_BUILD_START_STATES = [task_states.SCHEDULING, None]


def _compute_task_api(transport):
    """The cell conductor's ComputeTaskAPI, or None when not available."""
    try:
        from nova_lite.conductor import compute_task_rpcapi
    except ImportError:
        return None
    return compute_task_rpcapi.ComputeTaskAPI(transport=transport)


class BuildMixin:
    """The build part of :class:`nova_lite.compute.manager.ComputeManager`.

    Expects ``self.driver``, ``self.rt``, ``self.records``,
    ``self.reportclient``, ``self.host``, ``self.transport`` and
    ``self._build_pool`` (set up by the manager).
    """

    def _init_builds(self, max_builds):
        self._build_pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=max_builds, thread_name_prefix='build')
        self._builds = set()
        self._builds_lock = threading.Lock()

    def build_and_run_instance(self, context, instance, node,
                               request_spec=None, host_list=None,
                               image=None, **kwargs):
        """Cast: build ``instance`` on ``node`` of this host (queued)."""
        future = self._build_pool.submit(
            self._run_build, context, instance, node, request_spec,
            list(host_list or []), image)
        with self._builds_lock:
            self._builds.add(future)
        future.add_done_callback(self._build_done)

    def _build_done(self, future):
        with self._builds_lock:
            self._builds.discard(future)

    def wait_for_builds(self, timeout=None):
        """Block until no build is queued or running (tests, benchmarks);
        False if some still are after ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._builds_lock:
                pending = list(self._builds)
            if not pending:
                return True
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return False
            concurrent.futures.wait(pending, timeout=left)

    def _stop_builds(self):
        self._build_pool.shutdown(wait=True)

    def _run_build(self, context, instance, node, request_spec, host_list,
                   image):
        try:
            self._do_build(context, instance, node, request_spec, host_list,
                           image)
        except Exception:  # noqa: BLE001 - a build thread must not die loud
            LOG.exception('Build of instance %s on %s failed unexpectedly',
                          instance.uuid, node)

    def _do_build(self, context, instance, node, request_spec, host_list,
                  image):
        uuid = instance.uuid
        instance = self._start_build(context, instance, node)
        if instance is None:
            return
        self.records.event_start(context, uuid, BUILD_EVENT)
        try:
            allocations = self._claimed_allocations(uuid, node)
            self.driver.spawn(context, instance, image or {}, allocations)
        except virt_exc.BuildAbort as error:
            self._build_aborted(context, instance, node, error)
        except Exception as error:  # noqa: BLE001 - reschedulable
            self._build_failed(context, instance, node, error,
                               request_spec, host_list, image)
        else:
            self._build_succeeded(context, instance, node)

    def _start_build(self, context, instance, node):
        """The instance in building/spawning here; None if it went away."""
        values = {'vm_state': vm_states.BUILDING,
                  'task_state': task_states.SPAWNING,
                  'host': self.host, 'node': node, 'launched_on': self.host}
        compute_node = self.rt.get_node(node)
        if compute_node is not None:
            values['compute_id'] = compute_node.id
        try:
            return self.records.update(
                context, instance.uuid, values,
                expected_task_state=_BUILD_START_STATES)
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError) as error:
            LOG.info('Instance %s changed before its build started (%s); '
                     'dropping its allocation', instance.uuid, error)
            self._drop_allocation(instance.uuid)
            return None

    def _claimed_allocations(self, uuid, node):
        try:
            answer = self.reportclient.get_allocations(uuid)
        except placement_client.PlacementClientError as error:
            raise virt_exc.BuildFailed(
                instance_uuid=uuid, node=node,
                reason='allocations unreadable: %s' % error)
        allocations = answer.get('allocations') or {}
        if not allocations:
            raise virt_exc.BuildAbort(
                instance_uuid=uuid, node=node,
                reason='no allocation in placement (computes never claim)')
        return {rp: {'resources': dict(entry['resources'])}
                for rp, entry in allocations.items()}

    def _build_succeeded(self, context, instance, node):
        uuid = instance.uuid
        try:
            self.records.update(
                context, uuid,
                {'vm_state': vm_states.ACTIVE, 'task_state': None,
                 'power_state': power_state.RUNNING,
                 'launched_at': timeutils.utcnow()},
                expected_task_state=[task_states.SPAWNING])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError) as error:
            LOG.info('Instance %s changed during its build (%s); its guest '
                     'is left to the delete', uuid, error)
        self.records.event_finish(context, uuid, BUILD_EVENT)
        self.rt.build_result(context, node, succeeded=True)
        self.rt.refresh_usage(context, node)
        LOG.info('Instance %s active on %s', uuid, node)

    def _clean_up_failed_build(self, context, instance, node, error):
        try:
            self.driver.destroy(context, instance)
        except Exception as destroy_error:  # noqa: BLE001
            LOG.warning('Cleanup of the guest of %s failed: %s',
                        instance.uuid, destroy_error)
        self._drop_allocation(instance.uuid)
        self.records.event_finish(context, instance.uuid, BUILD_EVENT,
                                  error=error)
        self.rt.build_result(context, node, succeeded=False)

    def _drop_allocation(self, uuid):
        try:
            self.reportclient.delete_allocation(uuid)
        except placement_client.PlacementClientError as error:
            LOG.error('Allocation of instance %s not deleted: %s', uuid,
                      error)

    def _build_aborted(self, context, instance, node, error):
        LOG.info('Build of instance %s aborted on %s: %s', instance.uuid,
                 node, error)
        self._clean_up_failed_build(context, instance, node, error)
        self.records.set_error(context, instance.uuid, error,
                               clear_host=True)

    def _build_failed(self, context, instance, node, error, request_spec,
                      host_list, image):
        LOG.info('Build of instance %s failed on %s: %s', instance.uuid,
                 node, error)
        self._clean_up_failed_build(context, instance, node, error)
        task_api = _compute_task_api(self.transport) if host_list else None
        if task_api is None:
            reason = exception.NovaLiteException(
                'Build of instance %s failed on %s and no alternate host is '
                'left to retry on: %s' % (instance.uuid, node, error))
            reason.code = 500
            self.records.set_error(context, instance.uuid, reason,
                                   clear_host=True)
            return
        self._reschedule(context, instance, error, request_spec, host_list,
                         image, task_api)

    def _reschedule(self, context, instance, error, request_spec, host_list,
                    image, task_api):
        try:
            instance = self.records.update(
                context, instance.uuid,
                {'host': None, 'node': None,
                 'task_state': task_states.SCHEDULING},
                expected_task_state=[task_states.SPAWNING])
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError) as changed:
            LOG.info('Instance %s not rescheduled: %s', instance.uuid,
                     changed)
            return
        LOG.info('Rescheduling instance %s: %d alternates left',
                 instance.uuid, len(host_list))
        task_api.build_instances(context, [instance], request_spec,
                                 [host_list], image=image,
                                 exc_reason=str(error))
