"""Task logs of a cell: one row per run of a periodic audit task on a
host for a period (``instance_usage_audit``), as Nova keeps them."""

from oslo_db import exception as db_exc
import sqlalchemy as sa

from nova_lite.db.cell import api as cell_api
from nova_lite.db.cell import models
from nova_lite.db import session
from nova_lite import exception

_reader = cell_api._reader
_writer = cell_api._writer


@session.retry_on_transient
def task_log_begin_task(context, task_name, begin, end, host,
                        task_items=None, message=None):
    """Record the task RUNNING (TaskAlreadyRunning if recorded)."""
    row = models.TaskLog(task_name=task_name, period_beginning=begin,
                         period_ending=end, host=host, state='RUNNING',
                         task_items=task_items or 0, errors=0,
                         message=message or '')
    try:
        with _writer(context) as s:
            s.add(row)
            s.flush()
    except db_exc.DBDuplicateEntry:
        raise exception.TaskAlreadyRunning(task_name=task_name, host=host)
    return row


@session.retry_on_transient
def task_log_end_task(context, task_name, begin, end, host, errors,
                      message=None):
    """Record the task DONE (TaskNotRunning if never begun)."""
    with _writer(context) as s:
        row = s.scalars(sa.select(models.TaskLog).where(
            models.TaskLog.task_name == task_name,
            models.TaskLog.host == host,
            models.TaskLog.period_beginning == begin,
            models.TaskLog.period_ending == end)).first()
        if row is None:
            raise exception.TaskNotRunning(task_name=task_name, host=host)
        row.state = 'DONE'
        row.errors = errors
        if message is not None:
            row.message = message
        s.flush()
    return row


def task_log_get_all(context, task_name, begin, end, host=None,
                     state=None):
    """The task's runs for exactly the period ``begin``-``end``."""
    query = sa.select(models.TaskLog).where(
        models.TaskLog.task_name == task_name,
        models.TaskLog.period_beginning == begin,
        models.TaskLog.period_ending == end)
    if host is not None:
        query = query.where(models.TaskLog.host == host)
    if state is not None:
        query = query.where(models.TaskLog.state == state)
    with _reader(context) as s:
        return list(s.scalars(query))
