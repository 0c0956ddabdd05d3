"""Builds that will never finish: left by a dead compute, or hung.

At start a compute owns no build thread yet, so every instance of its host
still ``building`` was left by the previous process and goes to ERROR with
a fault. With ``[compute] instance_build_timeout`` set, the periodic check
does the same for builds running longer than that. The ERROR save expects
the vm state ``building``, so a build that completes at the same moment
wins or loses cleanly. A build put in ERROR here holds nothing afterwards:
its guest (if the driver kept one) is destroyed, its allocation deleted
and its host and node cleared, through the ``release`` callable the
compute passes (:meth:`nova_lite.compute.build.Builds.release`).
"""

import datetime

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.compute import vm_states
from nova_lite import exception

LOG = logging.getLogger(__name__)


class StaleBuild(exception.NovaLiteException):
    msg_fmt = '%(reason)s'
    code = 500


def building_instances(conductor, context, host):
    """Instances of ``host`` in vm state ``building``."""
    return conductor.instance_get_all_by_filters(
        context, {'host': host, 'vm_state': vm_states.BUILDING})


def _fail(records, context, instance, error, release):
    # NOTE(nova_lite): released, the instance is on no host any more (as
    # after any failed build): a host and node in ERROR would claim
    # usage that placement no longer has.
    if not records.set_error(context, instance.uuid, error,
                             clear_host=release is not None,
                             expected_vm_state=vm_states.BUILDING):
        return False
    if release is not None:
        release(context, instance)
    return True


def fail_left_over_builds(records, conductor, context, host, release=None):
    """ERROR every instance a previous process left building here."""
    count = 0
    for instance in building_instances(conductor, context, host):
        error = StaleBuild(reason='The compute service on %s restarted while '
                           'the instance was building' % host)
        if _fail(records, context, instance, error, release):
            count += 1
    if count:
        LOG.warning('%d instances left building on %s put in ERROR', count,
                    host)
    return count


def fail_timed_out_builds(records, conductor, context, host, timeout,
                          now=None, release=None):
    """ERROR the builds of ``host`` older than ``timeout`` seconds."""
    now = now or timeutils.utcnow()
    limit = datetime.timedelta(seconds=timeout)
    count = 0
    for instance in building_instances(conductor, context, host):
        started = instance.created_at
        if started is None:
            continue
        if started.tzinfo is not None:
            started = started.replace(tzinfo=None)
        if now.replace(tzinfo=None) - started <= limit:
            continue
        error = StaleBuild(reason='Build of the instance timed out after '
                           '%d seconds' % timeout)
        if _fail(records, context, instance, error, release):
            count += 1
    return count
