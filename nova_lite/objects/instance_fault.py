"""InstanceFault: why an instance went wrong (the server's ``fault``).

Faults are recorded by whoever saw the failure (a compute through its cell
conductor, a conductor directly) with :meth:`InstanceFault.from_exception`
values: the exception's ``code`` (500 when it has none), its message, and
the traceback as details for 500s only, as Nova shows them to admins.
"""

import traceback as tb_lib

from oslo_versionedobjects import fields

from nova_lite.objects import base

MESSAGE_MAX = 255


def _db():
    from nova_lite.db.cell import instance_api
    return instance_api


def fault_values(instance_uuid, error, host=None, with_traceback=True):
    """The ``instance_faults`` values describing ``error`` (an exception
    or a message)."""
    if isinstance(error, BaseException):
        code = getattr(error, 'code', 500)
        code = code if isinstance(code, int) else 500
        message = str(error) or error.__class__.__name__
        details = None
        if with_traceback and code >= 500:
            details = ''.join(tb_lib.format_exception(
                type(error), error, error.__traceback__))
        # NOTE(nova_lite): what only admins may read (the details of a 500
        # fault), e.g. the placement query of a NoValidHost.
        query = (getattr(error, 'kwargs', None) or {}).get('placement_query')
        if query:
            details = 'Placement query: %s\n%s' % (query, details or '')
    else:
        code, message, details = 500, str(error), None
    return {'instance_uuid': instance_uuid, 'code': code,
            'message': message[:MESSAGE_MAX], 'details': details,
            'host': host}


@base.NovaLiteObjectRegistry.register
class InstanceFault(base.NovaLiteTimestampObject, base.NovaLiteObject):
    """A fault of an instance (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {
        **base.NovaLiteTimestampObject.fields,
        'id': fields.IntegerField(read_only=True),
        'instance_uuid': fields.UUIDField(),
        'code': fields.IntegerField(),
        'message': fields.StringField(nullable=True),
        'details': fields.StringField(nullable=True),
        'host': fields.StringField(nullable=True),
    }

    @classmethod
    def _from_db(cls, context, db_row):
        return base.obj_from_db(cls(context), db_row)

    def create(self):
        db_row = _db().instance_fault_create(self._context,
                                             self.obj_get_changes())
        base.obj_from_db(self, db_row)

    @classmethod
    def get_latest_for_instance(cls, context, instance_uuid):
        """The newest fault of the instance, or None."""
        faults = _db().instance_fault_get_by_instance_uuids(
            context, [instance_uuid], latest=True)[instance_uuid]
        return cls._from_db(context, faults[0]) if faults else None


@base.NovaLiteObjectRegistry.register
class InstanceFaultList(base.NovaLiteObjectListBase, base.NovaLiteObject):
    """Faults (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('InstanceFault'),
    }

    @classmethod
    def get_by_instance_uuids(cls, context, instance_uuids, latest=False):
        found = _db().instance_fault_get_by_instance_uuids(
            context, instance_uuids, latest=latest)
        return cls(context, objects=[
            InstanceFault._from_db(context, row)
            for rows in found.values() for row in rows])
