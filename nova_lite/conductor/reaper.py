"""The super conductor's reaper: builds that nobody will ever finish.

A compute fails the builds of its own host that outlive ``[compute]
instance_build_timeout`` (:mod:`nova_lite.compute.stale_builds`). Two
kinds of build have no compute to do that, and would otherwise stay BUILD
forever, holding their claim and their quota:

* build requests never scheduled: the cast to the super conductor was
  lost (a broker killed), or the super conductor died while it held them;
  they are buried in cell0 in ERROR with a fault, as a NoValidHost is;
* instances that never got a host, in any cell or in cell0: the super
  conductor or a cell conductor died after creating the row, or a compute
  gave up on the build while its conductor was unreachable.

Both are older than the build timeout, by their ``created_at``; both have
their claim in placement deleted. And a claim the scheduler made for an
instance that was buried meanwhile (the conductor's call timed out, the
scheduler's answer came too late or was lost in a broker outage) is
deleted: an instance of cell0, deleted or not, holds nothing. That sweep
also runs on its own every :data:`CELL0_CLAIM_CHECK` seconds over the
instances buried in the last :data:`CELL0_CLAIM_RECENT` seconds
(:func:`reap_recent_cell0_claims`): a late claim lands within a minute or
two of the burial (the scheduler checks its caller's deadline before it
claims, so only a claim already on its way to placement can be late), and
should not wait for the next run of the build reaper. Only the super
conductor runs this: it alone reaches the API database and every cell.
"""

import datetime

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite import cells
from nova_lite.compute import task_states
from nova_lite.compute import vm_states
from nova_lite.conductor.tasks import bury
from nova_lite.conductor.tasks import common
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import cell_mapping as cell_mapping_obj

LOG = logging.getLogger(__name__)

# Seconds after its burial during which a cell0 instance is checked for a
# claim the scheduler made late (at least twice the build timeout).
CELL0_CLAIM_WINDOW = 600
# Seconds between two sweeps of the claims of recently buried instances,
# and how recently buried: longer than a claim can take to land in
# placement (its client timeout, then placement's own database retries).
CELL0_CLAIM_CHECK = 10
CELL0_CLAIM_RECENT = 180


class StuckBuild(exception.NovaLiteException):
    msg_fmt = '%(reason)s'
    code = 500


def _older_than(created_at, limit):
    if created_at is None:
        return False
    return created_at.replace(tzinfo=None) < limit


def reap(context, placement, timeout, now=None):
    """ERROR (with a fault, claim deleted) what is stuck; how many."""
    now = (now or timeutils.utcnow()).replace(tzinfo=None)
    limit = now - datetime.timedelta(seconds=timeout)
    since = now - datetime.timedelta(
        seconds=max(CELL0_CLAIM_WINDOW, 2 * timeout))
    return (reap_build_requests(context, placement, timeout, limit) +
            reap_hostless_instances(context, placement, timeout, limit) +
            reap_cell0_claims(context, placement, since))


def reap_build_requests(context, placement, timeout, limit):
    """Bury the build requests not scheduled within ``timeout``."""
    stuck = [br for br in objects.BuildRequestList.get_all(context)
             if _older_than(br.created_at, limit)]
    if not stuck:
        return 0
    cell0 = objects.CellMapping.get_by_uuid(context,
                                            cell_mapping_obj.CELL0_UUID)
    error = StuckBuild(reason='The instance was not scheduled within %d '
                       'seconds (its request was lost); giving up' % timeout)
    count = 0
    for build_request in stuck:
        uuid = build_request.instance_uuid
        try:
            bury.bury_one(context, cell0, build_request, error)
        except (exception.InstanceMappingNotFound,
                exception.BuildRequestNotFound):
            continue
        common.delete_allocations(placement, uuid)
        count += 1
    if count:
        LOG.warning('%d build requests never scheduled put in ERROR', count)
    return count


def reap_hostless_instances(context, placement, timeout, limit):
    """ERROR the instances still building without a host after
    ``timeout``, in every cell."""
    error = StuckBuild(reason='The build of the instance did not reach a '
                       'host within %d seconds; giving up' % timeout)
    count = 0
    for cell in objects.CellMappingList.get_all(context):
        try:
            count += _reap_cell(context, cell, placement, error, limit)
        except Exception as exc:  # noqa: BLE001 - next cell, next run
            LOG.warning('Stuck builds of cell %s not checked: %s',
                        cell.identity, exc)
    return count


def _reap_cell(context, cell, placement, error, limit):
    count = 0
    with cells.target_cell(context, cell) as cctxt:
        building = objects.InstanceList.get_by_filters(
            cctxt, {'vm_state': vm_states.BUILDING, 'host': None})
        for instance in building:
            if instance.host or not _older_than(instance.created_at, limit):
                continue
            if _set_error(cctxt, instance, error):
                common.delete_allocations(placement, instance.uuid)
                count += 1
    if count:
        LOG.warning('%d instances without a host in cell %s put in ERROR',
                    count, cell.identity)
    return count


def _set_error(cctxt, instance, error):
    instance.vm_state = vm_states.ERROR
    instance.task_state = None
    try:
        # NOTE(nova_lite): only from the states a build starts from: a
        # compute that took the build meanwhile (its cast was late) made it
        # spawning on its host, and it now owns the claim and the timeout.
        instance.save(expected_vm_state=[vm_states.BUILDING],
                      expected_task_state=[task_states.SCHEDULING, None])
    except (exception.InstanceNotFound, exception.UnexpectedVMStateError,
            exception.UnexpectedTaskStateError):
        return False
    common.set_error_with_fault(cctxt, instance.uuid, error)
    return True


def reap_recent_cell0_claims(context, placement, now=None):
    """:func:`reap_cell0_claims` of the last :data:`CELL0_CLAIM_RECENT`
    seconds; how many claims were deleted."""
    now = (now or timeutils.utcnow()).replace(tzinfo=None)
    return reap_cell0_claims(
        context, placement,
        now - datetime.timedelta(seconds=CELL0_CLAIM_RECENT))


def reap_cell0_claims(context, placement, since):
    """Delete the claims of the cell0 instances created or changed since
    ``since`` (buried, or deleted); how many there were.

    The scheduler claims before it answers: when the conductor's call
    timed out, the conductor drops the claims and buries the instances,
    but a scheduler still working on the request (or whose request waited
    in its queue through an outage) may claim after that.
    """
    cell0 = objects.CellMapping.get_by_uuid(context,
                                            cell_mapping_obj.CELL0_UUID)
    count = 0
    with cells.target_cell(context, cell0) as cctxt:
        cctxt.read_deleted = 'yes'
        buried = objects.InstanceList.get_by_filters(
            cctxt, {'touched-since': since})
    for instance in buried:
        if common.delete_allocations(placement, instance.uuid):
            count += 1
    if count:
        LOG.warning('%d claims of instances in cell0 deleted', count)
    return count
