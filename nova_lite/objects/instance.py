"""Instance: a server as its cell database holds it.

The row carries the flavor as a dict (``vcpus``, ``memory_mb``,
``root_gb``, ``ephemeral_gb``, ...). :meth:`Instance.save` takes
``expected_task_state`` / ``expected_vm_state``: the update only happens
when the row is still in one of those states (UnexpectedTaskStateError
otherwise), which is how two actions racing on one instance are told
apart, as in Nova.

A compute never calls the database methods: it asks its cell conductor
(``ConductorAPI.instance_update`` ...), which uses these.
"""

from oslo_versionedobjects import fields

from nova_lite import exception
from nova_lite.objects import base

_STRING_FIELDS = ('user_id', 'project_id', 'image_ref', 'hostname',
                  'display_name', 'display_description', 'vm_state',
                  'task_state', 'host', 'node', 'reservation_id',
                  'availability_zone', 'launched_on', 'locked_by',
                  'key_name', 'key_data', 'user_data', 'config_drive')
_INT_FIELDS = ('power_state', 'memory_mb', 'vcpus', 'root_gb',
               'ephemeral_gb', 'compute_id', 'instance_type_id',
               'launch_index', 'progress')
_DICT_FIELDS = ('flavor', 'metadata', 'system_metadata', 'extra')
_DATETIME_FIELDS = ('launched_at', 'terminated_at', 'deleted_at')


def _db():
    from nova_lite.db.cell import instance_api
    return instance_api


class JSONDictField(fields.AutoTypedField):
    """A dict of JSON values (flavor, metadata) that crosses RPC as is."""

    AUTO_TYPE = fields.Dict(fields.FieldType())


def _instance_fields():
    result = dict(base.NovaLiteTimestampObject.fields)
    result['id'] = fields.IntegerField(read_only=True)
    result['uuid'] = fields.UUIDField()
    result.update({n: fields.StringField(nullable=True)
                   for n in _STRING_FIELDS})
    result.update({n: fields.IntegerField(nullable=True)
                   for n in _INT_FIELDS})
    result.update({n: JSONDictField(nullable=True)
                   for n in _DICT_FIELDS})
    result.update({n: fields.DateTimeField(nullable=True)
                   for n in _DATETIME_FIELDS})
    result.update({n: fields.BooleanField(default=False)
                   for n in ('locked', 'cleaned', 'hidden', 'deleted',
                             'auto_disk_config')})
    return result


@base.NovaLiteObjectRegistry.register
class Instance(base.NovaLiteTimestampObject, base.NovaLiteObject):
    """A server of a cell (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = _instance_fields()

    @classmethod
    def _from_db(cls, context, db_row):
        obj = cls(context)
        obj._load(db_row)
        return obj

    def _load(self, db_row):
        """Every field from ``db_row`` (an id already set is kept), no
        change left to save."""
        keep_id = self.obj_attr_is_set('id')
        for name in self.fields:
            if name == 'metadata':
                value = db_row.metadata_
            elif name == 'deleted':
                value = bool(db_row.deleted)
            elif name == 'id' and keep_id:
                continue
            else:
                value = getattr(db_row, name)
            setattr(self, name, value)
        self.obj_reset_changes()

    @classmethod
    def get_by_uuid(cls, context, instance_uuid):
        """The instance (InstanceNotFound)."""
        return cls._from_db(context, _db().instance_get_by_uuid(
            context, instance_uuid))

    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.Conflict(reason='instance already created')
        values = self._db_values()
        self._refresh(_db().instance_create(self._context, values))

    def _db_values(self):
        values = self.obj_get_changes()
        # NOTE(nova_lite): deleted_at may be written: a soft delete
        # stamps it (the reclaim counts from it) and a restore clears it.
        for name in ('deleted', 'id', 'created_at', 'updated_at'):
            values.pop(name, None)
        return values

    def save(self, expected_task_state=None, expected_vm_state=None):
        """Write the changed fields, only from the expected states.

        ``expected_*``: a value or a list of values (None among them
        allowed); omitted means any state.
        """
        values = self._db_values()
        if not values:
            return
        self._refresh(_db().instance_update(
            self._context, self.uuid, values,
            expected_task_state=expected_task_state,
            expected_vm_state=expected_vm_state))

    def set_task_state(self, task_state):
        """Write ``task_state`` alone, from any state, in one UPDATE that
        reads nothing back (InstanceNotFound when the row is gone): the
        other fields stay as they were read."""
        _db().instance_task_state_set(self._context, self.uuid, task_state)
        self.task_state = task_state
        self.obj_reset_changes(['task_state'])

    def destroy(self, values=None, read_back=True):
        """Soft-delete the instance; ``values`` (a terminate's last
        state, as fields take them) written with it, in one statement.
        Other changes not saved are dropped, as before. ``read_back``
        False: the row is not read (nor reloaded here), the UPDATE is the
        only statement."""
        if values:
            self.obj_reset_changes()
            for name, value in values.items():
                setattr(self, name, value)
            values = self._db_values()
        row = _db().instance_destroy(self._context, self.uuid,
                                     values=values, read_back=read_back)
        if row is not None:
            self._refresh(row)

    def _refresh(self, db_row):
        # NOTE(nova_lite): straight from the row: through a fresh object
        # every field was coerced twice (each write of an instance).
        self._load(db_row)

    def flavor_value(self, key, default=0):
        """One flavor attribute (``vcpus``...), ``default`` when unknown."""
        flavor = self.flavor or {}
        value = flavor.get(key)
        if value is None:
            value = getattr(self, key, None) if key in self.fields else None
        return default if value is None else value


@base.NovaLiteObjectRegistry.register
class InstanceList(base.NovaLiteObjectListBase, base.NovaLiteObject):
    """Instances (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('Instance'),
    }

    @classmethod
    def get_by_filters(cls, context, filters=None, sort_keys=None,
                       limit=None, marker=None, after=None):
        rows = _db().instance_get_all_by_filters(
            context, filters, sort_keys=sort_keys, limit=limit,
            marker=marker, after=after)
        return cls(context, objects=[Instance._from_db(context, r)
                                     for r in rows])

    @classmethod
    def get_active_by_window(cls, context, begin, end=None,
                             project_id=None, limit=None, marker=None,
                             host=None):
        """Instances, deleted or not, that ran some time between
        ``begin`` and ``end`` (launched before ``end``, not terminated
        before ``begin``), by project then uuid; ``marker``: the uuid
        after which to start (MarkerNotFound)."""
        rows = _db().instance_get_active_by_window(
            context, begin, end=end, project_id=project_id, limit=limit,
            marker=marker, host=host)
        return cls(context, objects=[Instance._from_db(context, r)
                                     for r in rows])

    @classmethod
    def get_by_host(cls, context, host, node=None):
        rows = _db().instance_get_all_by_host(context, host, node=node)
        return cls(context, objects=[Instance._from_db(context, r)
                                     for r in rows])

    @classmethod
    def get_count_by_host(cls, context, host):
        """How many live instances ``host`` has."""
        return _db().instance_count_by_host(context, host)

    @classmethod
    def get_counts(cls, context, project_id, user_id=None):
        """{'instances', 'cores', 'ram'} the project's (user's) instances
        of this cell use."""
        return _db().instance_counts(context, project_id, user_id)
