"""Builds a previous process of this host took from the bus and lost.

The RPC listener acknowledges a build cast when it receives it. A process
that dies after that (killed, or past its graceful shutdown timeout)
before the build moved the instance to this host leaves an instance
``building`` with no host and a claim on one of this host's nodes, that
no compute will ever build: without this, only the super conductor's
reaper would end it, after ``[compute] instance_build_timeout``. Nova's
compute looks for such instances at start (by the allocations on its
nodes) and puts them in ERROR; so does nova_lite, with two differences:

* a cast still queued for this host is not lost: the restarted process
  will receive it. So the instances are only *suspects* when the process
  starts (:meth:`InterruptedBuilds.find`, before it consumes); once it
  consumes, it calls itself (the base API's ``ping``, over its own queue,
  which the broker delivers in order) and, when the answer comes, every
  cast queued before has been received. A suspect whose build was received
  by this process is no longer one;
* the claim is released with the ERROR (nova_lite's rule for any build
  that ends in ERROR), and the save expects the instance still
  ``building`` with no task or ``scheduling``, so a build that started
  meanwhile wins.

A conductor creates an instance a moment before it casts its build: a
suspect is only judged once it was last written more than
:data:`RECENT` seconds ago (the check waits for that).

The alternates of a lost build travelled in the lost message, so it
cannot be rescheduled; ERROR with a fault is what Nova does too.
"""

import datetime
import threading

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite import exception
from nova_lite import instance_events

LOG = logging.getLogger(__name__)

# Seconds an instance must have been left alone before it is judged lost
# (longer than a conductor takes from creating the instance to casting).
RECENT = 10
PING_ARG = 'interrupted-builds'
_NOT_STARTED = (task_states.SCHEDULING, None)


class InterruptedBuild(exception.NovaLiteException):
    msg_fmt = '%(reason)s'
    code = 500


def _last_written(instance):
    stamp = instance.updated_at or instance.created_at
    return stamp.replace(tzinfo=None) if stamp is not None else None


class InterruptedBuilds:
    """The suspects of one start of the compute on ``host``.

    :param conductor: the cell conductor's API (reads, through
        ``records``: writes).
    :param placement: placement client (allocations of a consumer).
    :param allocations: drops a claim
        (:class:`~nova_lite.compute.allocations.InstanceAllocations`).
    :param builds: the host's :class:`~nova_lite.compute.build.Builds`
        (which notes whether the suspects' builds arrive).
    """

    def __init__(self, host, records, conductor, placement, allocations,
                 builds):
        self.host = host
        self.records = records
        self.conductor = conductor
        self.placement = placement
        self.allocations = allocations
        self.builds = builds
        self.suspects = set()
        self.stopping = threading.Event()

    def find(self, context, node_uuids):
        """Remember the instances building, with no host, claimed on one
        of ``node_uuids``; how many. (The cell's hostless builds first,
        then their claims: no placement request when there are none.)"""
        nodes = set(node_uuids)
        building = self.conductor.instance_get_all_by_filters(
            context, {'vm_state': vm_states.BUILDING, 'host': None})
        suspects = set()
        for instance in building:
            if instance.task_state not in _NOT_STARTED:
                continue
            body = self.placement.get_allocations(instance.uuid) or {}
            if nodes & set(body.get('allocations') or {}):
                suspects.add(instance.uuid)
        self.suspects = suspects
        self.builds.watch(suspects)
        if suspects:
            LOG.info('%d instances claimed on %s but not started; judged '
                     'once the queued builds are received',
                     len(suspects), self.host)
        return len(suspects)

    def check(self, context, now=None):
        """After the queued builds were received: ERROR (claim freed)
        the suspects whose build did not arrive; how many. Waits (up to
        :data:`RECENT` s) for the recently written ones."""
        try:
            return self._check(context, now)
        finally:
            self.suspects = set()
            self.builds.watch(())

    def _check(self, context, now):
        left = {u for u in self.suspects if not self.builds.received(u)}
        if not left:
            return 0
        instances = self._still_lost(context, left)
        newest = max((_last_written(i) for i in instances
                      if _last_written(i) is not None), default=None)
        now = (now or timeutils.utcnow()).replace(tzinfo=None)
        if newest is not None:
            wait = (newest + datetime.timedelta(seconds=RECENT) -
                    now).total_seconds()
            if wait > 0:
                if self.stopping.wait(wait):
                    return 0
                instances = self._still_lost(context, left)
        count = 0
        for instance in instances:
            if self.builds.received(instance.uuid):
                continue
            if self._fail(context, instance.uuid):
                count += 1
        if count:
            LOG.warning('%d builds taken by a previous process of %s and '
                        'never started put in ERROR', count, self.host)
        return count

    def _still_lost(self, context, uuids):
        instances = self.conductor.instance_get_all_by_filters(
            context, {'uuid': sorted(uuids),
                      'vm_state': vm_states.BUILDING, 'host': None})
        return [i for i in instances if i.task_state in _NOT_STARTED]

    def _fail(self, context, uuid):
        error = InterruptedBuild(
            reason='The compute service on %s stopped after it had taken '
                   'the build request and before the build started' %
                   self.host)
        try:
            self.records.update(
                context, uuid, {'vm_state': vm_states.ERROR,
                                'task_state': None},
                expected_vm_state=[vm_states.BUILDING],
                expected_task_state=list(_NOT_STARTED))
        except (exception.InstanceNotFound, exception.UnexpectedVMStateError,
                exception.UnexpectedTaskStateError) as changed:
            LOG.info('Instance %s not put in ERROR: %s', uuid, changed)
            return False
        instance_events.record_fault(self.conductor, context, uuid, error,
                                     host=self.host)
        self.allocations.drop(uuid)
        LOG.info('Instance %s in ERROR: %s', uuid, error)
        return True
