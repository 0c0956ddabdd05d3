"""The instance usage audit of a compute (``[DEFAULT] instance_usage_audit``).

Once per audit period (the last completed calendar month, Nova's
default ``instance_usage_audit_period``) a compute goes over the
instances of its host that ran during that period and records the run
as a task log in its cell, through its conductor: RUNNING with the
number of instances, then DONE with the errors and how long it took.
os-instance_usage_audit_log reports these runs. Each instance audited
sends ``instance.exists`` over the period, as Nova's audit does.
"""

import datetime
import time

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite import notifications

LOG = logging.getLogger(__name__)

TASK_NAME = 'instance_usage_audit'
# Seconds between two checks whether the period's audit has run.
CHECK_INTERVAL = 60


def last_completed_month(before=None):
    """(begin, end) of the last calendar month that ended at or before
    ``before`` (default now), naive UTC."""
    now = before or timeutils.utcnow()
    end = datetime.datetime(now.year, now.month, 1)
    if end >= now:
        end = _month_before(end)
    return _month_before(end), end


def _month_before(moment):
    if moment.month == 1:
        return moment.replace(year=moment.year - 1, month=12)
    return moment.replace(month=moment.month - 1)


def audit(context, conductor_api, host):
    """Audit the last completed period on ``host`` unless done; True
    when it ran now."""
    begin, end = last_completed_month()
    if conductor_api.task_log_get(context, TASK_NAME, begin, end, host):
        return False
    instances = conductor_api.instance_get_active_by_window(
        context, begin, end, host)
    LOG.info('Running instance usage audit for host %s from %s to %s. '
             '%d instances.', host, begin, end, len(instances))
    started = time.time()
    conductor_api.task_log_begin_task(
        context, TASK_NAME, begin, end, host, task_items=len(instances),
        message='Instance usage audit started...')
    for instance in instances:
        notifications.instance_exists(context, instance, host,
                                      period=(begin, end))
    conductor_api.task_log_end_task(
        context, TASK_NAME, begin, end, host, errors=0,
        message='Instance usage audit ran for host %s, %s instances in %s '
                'seconds.' % (host, len(instances), time.time() - started))
    return True
