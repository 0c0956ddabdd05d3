"""Service: one nova_lite process's record in its cell's ``services`` table.

A record is unique per (host, binary). It is created when the service first
starts and updated by every heartbeat (``report_count`` + 1; the DB layer
stamps ``last_seen_up`` in the same UPDATE). Liveness is judged by
:func:`nova_lite.servicegroup.is_up`.
"""

from oslo_utils import uuidutils
from oslo_versionedobjects import fields

from nova_lite import exception
from nova_lite.objects import base

# NOTE(nova_lite): bumped when a service starts to understand something its
# peers must wait for during a rolling upgrade (Nova's SERVICE_VERSION).
SERVICE_VERSION = 1


def _db():
    # NOTE(nova_lite): imported late so that importing objects (clients,
    # computes) never loads the SQL layer.
    from nova_lite.db.cell import api as cell_db_api
    return cell_db_api


@base.NovaLiteObjectRegistry.register
class Service(base.NovaLiteTimestampObject, base.NovaLiteObject):
    """A service record of a cell (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {
        **base.NovaLiteTimestampObject.fields,
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'host': fields.StringField(),
        'binary': fields.StringField(),
        'topic': fields.StringField(nullable=True),
        'report_count': fields.IntegerField(default=0),
        'disabled': fields.BooleanField(default=False),
        'disabled_reason': fields.StringField(nullable=True),
        'last_seen_up': fields.DateTimeField(nullable=True),
        'forced_down': fields.BooleanField(default=False),
        'version': fields.IntegerField(default=SERVICE_VERSION),
    }

    @classmethod
    def _from_db(cls, context, db_row):
        obj = cls(context)
        return base.obj_from_db(obj, db_row)

    @classmethod
    def get_by_id(cls, context, service_id):
        return cls._from_db(context, _db().service_get(context, service_id))

    @classmethod
    def get_by_uuid(cls, context, service_uuid):
        """The record with this uuid (ServiceNotFound)."""
        return cls._from_db(context, _db().service_get_by_uuid(
            context, service_uuid))

    @classmethod
    def get_by_host_and_binary(cls, context, host, binary):
        """The record of (host, binary); raises HostBinaryNotFound."""
        return cls._from_db(context, _db().service_get_by_host_and_binary(
            context, host, binary))

    @staticmethod
    def heartbeat_of(context, host, binary):
        """The liveness columns of (host, binary) as a dict, for
        :func:`nova_lite.servicegroup.is_up` (HostBinaryNotFound): asked
        before every cast to a compute, without the whole record."""
        return _db().service_heartbeat(context, host, binary)

    @classmethod
    def get_or_create(cls, context, host, binary, topic):
        """The record of (host, binary), created if missing.

        Two processes racing to create it both end up with the same row.
        The stored topic and version are brought up to date.
        """
        try:
            service = cls.get_by_host_and_binary(context, host, binary)
        except exception.HostBinaryNotFound:
            service = cls(context, host=host, binary=binary, topic=topic)
            try:
                service.create()
                return service
            except exception.ServiceExists:
                service = cls.get_by_host_and_binary(context, host, binary)
        if service.topic != topic:
            service.topic = topic
        if service.version != SERVICE_VERSION:
            service.version = SERVICE_VERSION
        service.save()
        return service

    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.Conflict(reason='service already created')
        values = self.obj_get_changes()
        values.setdefault('uuid', uuidutils.generate_uuid())
        values.setdefault('version', SERVICE_VERSION)
        db_row = _db().service_create(self._context, values)
        base.obj_from_db(self, db_row)
        _notify(self._context, 'create', self)

    def save(self):
        values = self.obj_get_changes()
        if not values:
            return
        db_row = _db().service_update(self._context, self.id, values)
        base.obj_from_db(self, db_row)
        if _STATUS_FIELDS.intersection(values):
            _notify(self._context, 'update', self)

    def destroy(self):
        _db().service_destroy(self._context, self.id)
        _notify(self._context, 'delete', self)


# The changes that send ``service.update``, as in Nova (a heartbeat's
# report_count does not).
_STATUS_FIELDS = frozenset(['disabled', 'disabled_reason', 'forced_down'])


def _notify(context, action, service):
    """``service.<action>``, published as the service (Nova's object
    sends it the same way, from whichever process writes the record)."""
    from nova_lite import notifications
    notifications.service(context, action, service)


@base.NovaLiteObjectRegistry.register
class ServiceList(base.NovaLiteObjectListBase, base.NovaLiteObject):
    """Services of one cell (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('Service'),
    }

    @classmethod
    def get_all(cls, context, binary=None, include_disabled=True,
                host=None):
        rows = _db().service_get_all(context, binary=binary,
                                     include_disabled=include_disabled,
                                     host=host)
        services = [Service._from_db(context, row) for row in rows]
        return cls(context, objects=services)
