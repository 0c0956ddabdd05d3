"""os-instance_usage_audit_log (admins): how the computes' instance usage
audits of the last completed period went.

The period is the last completed month before now (or before the
``YYYY-MM-DD HH:MM:SS[.ffffff]`` of show), as Nova's default
``instance_usage_audit_period``. Each compute host's audit run of that
period is a task log in its cell (:mod:`nova_lite.compute.usage_audit`);
a compute that recorded none is listed in ``hosts_not_run``, so with
audits off (the default) every compute is, as in Nova.
"""

import datetime

import webob.exc

from nova_lite.api import policy
from nova_lite.api import util
from nova_lite import cells
from nova_lite.compute import usage_audit
from nova_lite import objects
from nova_lite.objects import task_log as task_log_obj


def _in_every_cell(context, fn, *args):
    results = cells.scatter_gather_all(context, fn, *args)
    found = []
    for result in results.values():
        if not cells.is_failure(result):
            found.extend(result)
    return found


def _compute_hosts(cctxt):
    return [s.host for s in objects.ServiceList.get_all(cctxt)
            if s.topic == 'compute']


def _task_logs(cctxt, begin, end):
    return task_log_obj.TaskLogList.get_all(cctxt, usage_audit.TASK_NAME,
                                            begin, end)


def _audit_log(context, before=None):
    begin, end = usage_audit.last_completed_month(before)
    logs = _in_every_cell(context, _task_logs, begin, end)
    hosts = set(_in_every_cell(context, _compute_hosts))
    done = {t.host for t in logs if t.state == 'DONE'}
    running = {t.host for t in logs if t.state == 'RUNNING'}
    not_run = hosts - {t.host for t in logs}
    errors = sum(t.errors for t in logs)
    status = '%s hosts done. %s errors.' % (
        'ALL' if len(done) == len(hosts)
        else '%s of %s' % (len(done), len(hosts)), errors)
    return {'period_beginning': str(begin), 'period_ending': str(end),
            'num_hosts': len(hosts), 'num_hosts_done': len(done),
            'num_hosts_running': len(running),
            'num_hosts_not_run': len(not_run),
            'hosts_not_run': sorted(not_run),
            'total_instances': sum(t.task_items for t in logs),
            'total_errors': errors, 'overall_status': status,
            'log': {t.host: {'state': t.state, 'instances': t.task_items,
                             'errors': t.errors, 'message': t.message}
                    for t in logs}}


def list_audit_logs(req):
    """GET: the audit of the last completed period."""
    context = util.context(req)
    policy.authorize(context, 'os-instance-usage-audit-log:list')
    return util.json_response({'instance_usage_audit_logs':
                               _audit_log(context)})


def show_audit_log(req):
    """GET /{before_timestamp}: the last period completed before it."""
    context = util.context(req)
    policy.authorize(context, 'os-instance-usage-audit-log:show')
    text = req.urlvars['before_timestamp']
    fmt = '%Y-%m-%d %H:%M:%S.%f' if '.' in text else '%Y-%m-%d %H:%M:%S'
    try:
        before = datetime.datetime.strptime(text, fmt)
    except ValueError:
        raise webob.exc.HTTPBadRequest('Invalid timestamp for date %s'
                                       % text)
    return util.json_response({'instance_usage_audit_log':
                               _audit_log(context, before)})
