"""TaskLog: one run of a periodic audit task on a host for a period
(the instance usage audit of the computes), in the host's cell DB.

A compute records its runs through its cell conductor (it has no
database); the API reads them for os-instance_usage_audit_log.
"""

from oslo_versionedobjects import fields

from nova_lite.objects import base


def _db():
    # NOTE(nova_lite): imported late so that importing objects (clients,
    # computes) never loads the SQL layer.
    from nova_lite.db.cell import task_log_api
    return task_log_api


@base.NovaLiteObjectRegistry.register
class TaskLog(base.NovaLiteObject):
    """A task run (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'task_name': fields.StringField(),
        'state': fields.StringField(),
        'host': fields.StringField(),
        'period_beginning': fields.DateTimeField(),
        'period_ending': fields.DateTimeField(),
        'message': fields.StringField(),
        'task_items': fields.IntegerField(default=0),
        'errors': fields.IntegerField(default=0),
    }

    @classmethod
    def _from_db(cls, context, row):
        obj = cls(context)
        for name in obj.fields:
            value = getattr(row, name)
            if name in ('task_items', 'errors') and value is None:
                value = 0
            setattr(obj, name, value)
        obj.obj_reset_changes()
        return obj

    @classmethod
    def begin_task(cls, context, task_name, begin, end, host,
                   task_items=None, message=None):
        """Record the run RUNNING (TaskAlreadyRunning)."""
        return cls._from_db(context, _db().task_log_begin_task(
            context, task_name, begin, end, host, task_items=task_items,
            message=message))

    @classmethod
    def end_task(cls, context, task_name, begin, end, host, errors,
                 message=None):
        """Record the run DONE (TaskNotRunning)."""
        return cls._from_db(context, _db().task_log_end_task(
            context, task_name, begin, end, host, errors, message=message))


@base.NovaLiteObjectRegistry.register
class TaskLogList(base.NovaLiteObjectListBase, base.NovaLiteObject):
    """Task runs (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('TaskLog')}

    @classmethod
    def get_all(cls, context, task_name, begin, end, host=None, state=None):
        """The runs of ``task_name`` for exactly that period."""
        rows = _db().task_log_get_all(context, task_name, begin, end,
                                      host=host, state=state)
        return cls(context, objects=[TaskLog._from_db(context, r)
                                     for r in rows])
