"""InstanceAction and InstanceActionEvent: os-instance-actions records.

An action (``create``, ``stop``, ``reboot`` ...) is started by whoever
accepts the user's request, under its request id; each service that works
on it records an event (``compute_build_and_run_instance`` ...) with a
start, a finish and a result. An event finished with result ``Error``
marks its action failed (message ``Error``), as in Nova.

These are the stored records only: a step records its event (and the fault
and state of a failure) through the one bracket of
:mod:`nova_lite.instance_events`, computes over the conductor's RPC API,
conductors directly on these objects.
"""

from oslo_versionedobjects import fields

from nova_lite.objects import base


def _db():
    from nova_lite.db.cell import instance_api
    return instance_api


@base.NovaLiteObjectRegistry.register
class InstanceAction(base.NovaLiteTimestampObject, base.NovaLiteObject):
    """An action on an instance (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {
        **base.NovaLiteTimestampObject.fields,
        'id': fields.IntegerField(read_only=True),
        'action': fields.StringField(nullable=True),
        'instance_uuid': fields.UUIDField(),
        'request_id': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'start_time': fields.DateTimeField(nullable=True),
        'finish_time': fields.DateTimeField(nullable=True),
        'message': fields.StringField(nullable=True),
    }

    @classmethod
    def _from_db(cls, context, db_row):
        return base.obj_from_db(cls(context), db_row)

    @classmethod
    def action_start(cls, context, instance_uuid, action, request_id=None):
        """Record that ``action`` started (under the context's request)."""
        values = {'instance_uuid': instance_uuid, 'action': action}
        if request_id:
            values['request_id'] = request_id
        return cls._from_db(context, _db().action_start(context, values))

    @classmethod
    def action_finish(cls, context, instance_uuid, request_id=None,
                      message=None):
        return cls._from_db(context, _db().action_finish(
            context, instance_uuid, request_id=request_id, message=message))

    @classmethod
    def get_by_request_id(cls, context, instance_uuid, request_id):
        return cls._from_db(context, _db().action_get_by_request_id(
            context, instance_uuid, request_id))


@base.NovaLiteObjectRegistry.register
class InstanceActionList(base.NovaLiteObjectListBase, base.NovaLiteObject):
    """Actions of an instance, newest first (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('InstanceAction'),
    }

    @classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        rows = _db().actions_get(context, instance_uuid)
        return cls(context, objects=[InstanceAction._from_db(context, r)
                                     for r in rows])


@base.NovaLiteObjectRegistry.register
class InstanceActionEvent(base.NovaLiteTimestampObject, base.NovaLiteObject):
    """One step of an action (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {
        **base.NovaLiteTimestampObject.fields,
        'id': fields.IntegerField(read_only=True),
        'event': fields.StringField(nullable=True),
        'action_id': fields.IntegerField(),
        'start_time': fields.DateTimeField(nullable=True),
        'finish_time': fields.DateTimeField(nullable=True),
        'result': fields.StringField(nullable=True),
        'traceback': fields.StringField(nullable=True),
        'host': fields.StringField(nullable=True),
        'details': fields.StringField(nullable=True),
    }

    @classmethod
    def _from_db(cls, context, db_row):
        return base.obj_from_db(cls(context), db_row)

    @classmethod
    def event_start(cls, context, instance_uuid, event, host=None,
                    request_id=None, read_back=True):
        """The started event, or None (``read_back`` False: only
        written)."""
        row = _db().action_event_start(
            context, instance_uuid, event, host=host, request_id=request_id,
            read_back=read_back)
        return cls._from_db(context, row) if row is not None else None

    @classmethod
    def event_finish(cls, context, instance_uuid, event, result='Success',
                     traceback=None, details=None, request_id=None,
                     read_back=True):
        """The finished event, or None (``read_back`` False: its row is
        not read, only written)."""
        row = _db().action_event_finish(
            context, instance_uuid, event, result=result,
            traceback=traceback, details=details, request_id=request_id,
            read_back=read_back)
        return cls._from_db(context, row) if row is not None else None

    @classmethod
    def event_record(cls, context, instance_uuid, event, host=None,
                     result='Success', details=None, request_id=None,
                     action_id=None):
        """A step done already: started and finished in one write
        (``action_id``: the action's, when the caller has it)."""
        return cls._from_db(context, _db().action_event_record(
            context, instance_uuid, event, host=host, result=result,
            details=details, request_id=request_id, action_id=action_id))


@base.NovaLiteObjectRegistry.register
class InstanceActionEventList(base.NovaLiteObjectListBase,
                              base.NovaLiteObject):
    """Events of an action (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('InstanceActionEvent'),
    }

    @classmethod
    def get_by_action(cls, context, action_id):
        rows = _db().action_events_get(context, action_id)
        return cls(context, objects=[InstanceActionEvent._from_db(context, r)
                                     for r in rows])
