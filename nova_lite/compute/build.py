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
   this read runs beside step 1, and the build's action event is
   started in the same conductor call as step 1: the event wraps the
   whole build, as Nova's, whose build event is started before the
   state check and finished ``Success`` when the build does not start.
   One conductor round trip on the way to ACTIVE instead of two and a
   placement request;
3. spawns through the driver, then records the outcome:

   * success: ``active``, the node's ``failed_builds`` reset, the node's
     usage refreshed;
   * ``BuildAbort`` (another host would not help): guest and allocation
     removed, ``failed_builds`` raised, ERROR with a fault;
   * ``BuildFailed`` or anything unexpected: the same cleanup, then, with
     alternates left, back to ``scheduling`` and ``build_instances`` to the
     cell conductor with the remaining Selections; with none left, ERROR
     with a fault saying so.

Notifications, as Nova's compute sends them: ``instance.create.start``
once the instance is building here, ``instance.create.end`` once it is
active, ``instance.create.error`` (with the fault) when the build fails
here, whether it is rescheduled or not.

The conductor calls of a build are retried while they fail for a reason
that says nothing about the instance (``records`` is built on a
:class:`~nova_lite.compute.conductor_retry.RetryingConductor`). When they
still fail, or anything else escapes, the build is abandoned, never left
half done: guest destroyed, allocation deleted, ERROR with a fault as far
as the conductor lets us write it (what it does not, the build timeout
finishes: :mod:`nova_lite.compute.stale_builds`).
"""

import concurrent.futures
import threading
import time

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import notifications
from nova_lite.virt import exception as virt_exc
from nova_lite.virt import power_state

LOG = logging.getLogger(__name__)

BUILD_EVENT = 'compute_build_and_run_instance'
_BUILD_START_STATES = [task_states.SCHEDULING, None]


class Builds:
    """The builds of one compute host: queued, run, and their outcome.

    :param records: the host's :class:`~nova_lite.compute.records.
        InstanceRecords`; ``events`` its action bracket.
    :param allocations: reads the claim to spawn with, drops it on
        failure (:class:`~nova_lite.compute.allocations.
        InstanceAllocations`).
    :param tracker: the resource tracker (nodes, usage, failed builds).
    :param task_api: the cell conductor's ComputeTaskAPI (reschedules).
    """

    def __init__(self, host, driver, records, events, allocations, tracker,
                 task_api, max_builds):
        self.host = host
        self.driver = driver
        self.records = records
        self.events = events
        self.allocations = allocations
        self.tracker = tracker
        self.task_api = task_api
        self._pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=max_builds, thread_name_prefix='build')
        # The steps a build runs beside its first conductor call.
        self._beside_pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=2 * max_builds, thread_name_prefix='build-beside')
        # future -> the build's arguments, while queued or running.
        self._pending = {}
        # Instances watched for their build (see watch()), and those of
        # them whose build this process received.
        self._watched = set()
        self._received = set()
        self._lock = threading.Lock()
        self._drained = True

    def build_and_run_instance(self, context, instance, node, request_spec,
                               host_list, image):
        """Queue the build of ``instance`` on ``node`` and return."""
        args = (context, instance, node, request_spec,
                list(host_list or []), image)
        with self._lock:
            if instance.uuid in self._watched:
                self._received.add(instance.uuid)
            future = self._pool.submit(self._run_build, *args)
            self._pending[future] = args
        future.add_done_callback(self._build_done)

    def watch(self, instance_uuids):
        """Note from now on whether the builds of ``instance_uuids`` are
        received (replaces the watched set; empty: stop watching)."""
        with self._lock:
            self._watched = set(instance_uuids)
            self._received &= self._watched

    def received(self, instance_uuid):
        """Whether this process received the build of a watched
        instance."""
        with self._lock:
            return instance_uuid in self._received

    def _build_done(self, future):
        with self._lock:
            self._pending.pop(future, None)

    @property
    def in_flight(self):
        """How many builds are queued or running."""
        with self._lock:
            return len(self._pending)

    def wait(self, timeout=None):
        """Block until no build is queued or running; False if some
        still are after ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._lock:
                pending = list(self._pending)
            if not pending:
                return True
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return False
            concurrent.futures.wait(pending, timeout=left)

    def drain(self, timeout, hand_back):
        """At a graceful stop: wait up to ``timeout`` seconds (None: no
        limit) for the builds queued and running; then give each build
        still queued to ``hand_back(*args)`` (the compute casts it to its
        own queue again, for its next process). True when none is left
        running."""
        if self.wait(timeout):
            return True
        with self._lock:
            pending = list(self._pending.items())
        # (cancel() runs the done callback, which takes the lock)
        queued = [(f, a) for f, a in pending if f.cancel()]
        handed = 0
        for _future, args in queued:
            try:
                hand_back(*args)
            except Exception as error:  # noqa: BLE001 - the bus is away
                LOG.warning('Queued build of instance %s not handed back '
                            '(%s); the next start of %s ends it',
                            args[1].uuid, error, self.host)
                continue
            handed += 1
        running = self.in_flight
        LOG.warning('Graceful stop of %s: %d queued builds handed back to '
                    'its queue, %d still running are left to its next '
                    'start', self.host, handed, running)
        self._drained = running == 0
        return self._drained

    def stop(self):
        """Stop the pools: after the builds finished, or (when a drain
        ran out of time) without waiting for the running ones."""
        self._pool.shutdown(wait=self._drained, cancel_futures=True)
        self._beside_pool.shutdown(wait=self._drained)

    def _run_build(self, context, instance, node, request_spec, host_list,
                   image):
        # oslo.log takes the request id from the thread's context: this
        # pool thread's is otherwise the last build's, or none.
        context.update_store()
        try:
            self._do_build(context, instance, node, request_spec, host_list,
                           image)
        except Exception as error:  # noqa: BLE001 - never leave it half done
            LOG.exception('Build of instance %s on %s failed unexpectedly',
                          instance.uuid, node)
            self._abandon(context, instance, node, error)

    def _abandon(self, context, instance, node, error):
        """Free what the build holds and end it in ERROR (best effort:
        a conductor still unreachable leaves the ERROR to the build
        timeout, but never a guest or a claim)."""
        self._clean_up(context, instance)
        reason = exception.NovaLiteException(
            'Build of instance %s on %s could not be completed: %s'
            % (instance.uuid, node, error))
        reason.code = 500
        try:
            self.records.set_error(context, instance.uuid, reason,
                                   clear_host=True,
                                   expected_vm_state=vm_states.BUILDING)
        except Exception as record_error:  # noqa: BLE001 - conductor away
            LOG.error('Instance %s not put in ERROR (%s); the build '
                      'timeout will', instance.uuid, record_error)

    def _do_build(self, context, instance, node, request_spec, host_list,
                  image):
        uuid = instance.uuid
        claimed = nl_context.run_as(self._beside_pool, context,
                                    self.allocations.claimed, uuid, node)
        instance = self._start_build(context, instance, node)
        if instance is None:
            self.events.finish(context, uuid, BUILD_EVENT)
            return
        self._notify(context, instance, 'start')
        try:
            with self.events.step(
                    context, uuid, BUILD_EVENT, started=True,
                    undo=lambda error: self._clean_up(context,
                                                      instance)) as step:
                allocations = claimed.result()
                self.driver.spawn(context, instance, image or {},
                                  allocations)
                # NOTE(nova_lite): ACTIVE before the event is finished,
                # as in Nova (whose event wraps the whole build, the
                # instance's last save included): the server is ACTIVE
                # one conductor call sooner.
                not_active, usage_done = self._set_active(context, uuid,
                                                          node, step)
        except virt_exc.BuildAbort as error:
            self._build_aborted(context, instance, node, error)
        except Exception as error:  # noqa: BLE001 - reschedulable
            self._build_failed(context, instance, node, error,
                               request_spec, host_list, image)
        else:
            self._build_succeeded(context, instance, node, not_active,
                                  usage_done)

    def _notify(self, context, instance, phase, fault=None):
        keypairs = []
        if instance.key_name:
            keypairs.append(_InstanceKey(instance))
        notifications.instance_create(context, instance, self.host, phase,
                                      fault=fault, keypairs=keypairs)

    def _start_build(self, context, instance, node):
        """The instance in building/spawning here; None if it went away.
        The build's event is started in the same conductor call,
        whatever the write's fate."""
        values = {'vm_state': vm_states.BUILDING,
                  'task_state': task_states.SPAWNING,
                  'host': self.host, 'node': node, 'launched_on': self.host}
        compute_node = self.tracker.get_node(node)
        if compute_node is not None:
            values['compute_id'] = compute_node.id
        try:
            return self.records.conductor.build_start(
                context, instance.uuid, values, _BUILD_START_STATES,
                [vm_states.BUILDING], BUILD_EVENT, self.host)
        except (exception.InstanceNotFound,
                exception.UnexpectedTaskStateError,
                exception.UnexpectedVMStateError) as error:
            if self._claim_is_dead(context, instance.uuid, error):
                LOG.info('Instance %s changed before its build started '
                         '(%s); dropping its allocation', instance.uuid,
                         error)
                self.allocations.drop(instance.uuid)
            else:
                LOG.warning('Build of instance %s received again (%s); '
                            'ignored', instance.uuid, error)
            return None

    def _claim_is_dead(self, context, uuid, error):
        """Whether the claim of an instance whose build cannot start is
        nobody's any more: deleted, being deleted, in ERROR. A build
        cast delivered twice (a broker that crashed before it saw the
        ack) finds the instance ACTIVE: its claim must stay."""
        if isinstance(error, exception.InstanceNotFound):
            return True
        try:
            current = self.records.conductor.instance_get_by_uuid(context,
                                                                  uuid)
        except exception.InstanceNotFound:
            return True
        return (current.vm_state in (vm_states.ERROR, vm_states.DELETED) or
                current.task_state == task_states.DELETING)

    def _set_active(self, context, uuid, node, step):
        """Write ACTIVE; (what prevented it (None: written), whether the
        node's usage was written too).

        The build's event is finished and the node's usage written in the
        same call (the tracker's lock held across it, see
        ``usage_change``; when another build holds it, the usage is
        refreshed after): one call where there would be three. Nothing
        raised here is the spawn's failure: the caller judges it once the
        build's event is finished (a guest that spawned is never
        rescheduled).
        """
        values = {'vm_state': vm_states.ACTIVE, 'task_state': None,
                  'power_state': power_state.RUNNING,
                  'launched_at': timeutils.utcnow()}
        expected = [task_states.SPAWNING]
        conductor = self.records.conductor
        try:
            with self.tracker.usage_change(node) as usage:
                usage.written(conductor.build_finish(
                    context, uuid, values, expected, BUILD_EVENT,
                    node=usage.values()))
        except Exception as error:  # noqa: BLE001 - judged by the caller
            return error, False
        step.finished = True
        return None, usage.done

    def _build_succeeded(self, context, instance, node, not_active,
                         usage_done=False):
        uuid = instance.uuid
        if not_active is not None:
            error = not_active
            if not isinstance(error, (exception.InstanceNotFound,
                                      exception.UnexpectedTaskStateError)):
                raise error
            if self._claim_is_dead(context, uuid, error):
                # NOTE(nova_lite): deleted, or put in ERROR by the build
                # timeout, while the driver spawned: that freed what the
                # build held then, before this guest existed (Nova's
                # _build_resources shuts the guest down likewise).
                LOG.info('Instance %s ended during its build (%s); '
                         'destroying its guest', uuid, error)
                self._clean_up(context, instance)
                return
            LOG.info('Instance %s changed during its build (%s); its guest '
                     'is left to the delete', uuid, error)
        LOG.info('Instance %s active on %s', uuid, node)
        if not_active is None:
            instance.vm_state = vm_states.ACTIVE
            instance.task_state = None
            instance.power_state = power_state.RUNNING
            instance.launched_at = timeutils.utcnow()
            self._notify(context, instance, 'end')
        self._note_result(context, node, succeeded=True)
        if usage_done:
            return
        try:
            self.tracker.refresh_usage(context, node)
        except Exception as error:  # noqa: BLE001 - the periodic redoes it
            LOG.warning('Usage of %s not refreshed: %s', node, error)

    def _note_result(self, context, node, succeeded):
        """The node's failed-build count (best effort: a count, not the
        instance's fate)."""
        try:
            self.tracker.build_result(context, node, succeeded=succeeded)
        except Exception as error:  # noqa: BLE001 - conductor away
            LOG.warning('Build result on %s not recorded: %s', node, error)

    def release(self, context, instance):
        """What a build given up elsewhere (timed out, left over by a
        previous process) holds: its guest and its allocation."""
        self._clean_up(context, instance)

    def _clean_up(self, context, instance):
        """No guest and no allocation left by a failed build."""
        try:
            self.driver.destroy(context, instance)
        except Exception as destroy_error:  # noqa: BLE001
            LOG.warning('Cleanup of the guest of %s failed: %s',
                        instance.uuid, destroy_error)
        self.allocations.drop(instance.uuid)

    def _build_aborted(self, context, instance, node, error):
        LOG.info('Build of instance %s aborted on %s: %s', instance.uuid,
                 node, error)
        self._notify(context, instance, 'error', fault=error)
        self._note_result(context, node, succeeded=False)
        self.records.set_error(context, instance.uuid, error,
                               clear_host=True)

    def _build_failed(self, context, instance, node, error, request_spec,
                      host_list, image):
        LOG.info('Build of instance %s failed on %s: %s', instance.uuid,
                 node, error)
        self._notify(context, instance, 'error', fault=error)
        self._note_result(context, node, succeeded=False)
        if not host_list:
            reason = exception.NovaLiteException(
                'Build of instance %s failed on %s and no alternate host is '
                'left to retry on: %s' % (instance.uuid, node, error))
            reason.code = 500
            self.records.set_error(context, instance.uuid, reason,
                                   clear_host=True)
            return
        self._reschedule(context, instance, error, request_spec, host_list,
                         image)

    def _reschedule(self, context, instance, error, request_spec, host_list,
                    image):
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
        self.task_api.build_instances(context, [instance], request_spec,
                                      [host_list], image=image,
                                      exc_reason=str(error))


class _InstanceKey:
    """The key pair an instance was booted with, as its record keeps it
    (name and public key; the fingerprint is the API's)."""

    def __init__(self, instance):
        self.user_id = instance.user_id
        self.name = instance.key_name
        self.public_key = instance.key_data
        self.fingerprint = None
        self.type = 'ssh'
