"""BuildRequest: a server the API accepted and no cell holds yet.

Until the super conductor creates the instance in a cell, the build
request *is* the server: the API lists and shows it from here. ``instance``
holds the instance's column values as a JSON dict (what the conductor
writes into the chosen cell's ``instances`` table); ``created_at`` is the
moment the user asked, which listings sort by.
"""

from oslo_versionedobjects import fields

from nova_lite.objects import base


def _db():
    # NOTE(nova_lite): imported late: computes import objects, never SQL.
    from nova_lite.db.api import build_api
    return build_api


class JSONDictField(fields.AutoTypedField):
    """A dict of JSON values that crosses RPC as it is."""

    AUTO_TYPE = fields.Dict(fields.FieldType(), nullable=True)


@base.NovaLiteObjectRegistry.register
class BuildRequest(base.NovaLiteTimestampObject, base.NovaLiteObject):
    """A build request (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {
        **base.NovaLiteTimestampObject.fields,
        'id': fields.IntegerField(read_only=True),
        'instance_uuid': fields.UUIDField(),
        'project_id': fields.StringField(),
        'instance': JSONDictField(),
        'block_device_mappings': fields.ListOfDictOfNullableStringsField(
            default=[]),
        'tags': fields.ListOfStringsField(default=[]),
    }

    _COLUMNS = ('id', 'instance_uuid', 'project_id', 'instance',
                'created_at', 'updated_at')

    @classmethod
    def _from_db(cls, context, db_row):
        obj = cls(context)
        base.obj_from_db(obj, db_row, cls._COLUMNS)
        obj.block_device_mappings = db_row.block_device_mappings or []
        obj.tags = db_row.tags or []
        obj.obj_reset_changes()
        return obj

    @classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        """The build request of ``instance_uuid`` (BuildRequestNotFound)."""
        return cls._from_db(context, _db().build_request_get_by_instance_uuid(
            context, instance_uuid))

    def create(self):
        """Insert the build request (BuildRequestExists)."""
        values = {'instance_uuid': self.instance_uuid,
                  'project_id': self.project_id,
                  'instance': self.instance,
                  'block_device_mappings': (
                      self.block_device_mappings
                      if self.obj_attr_is_set('block_device_mappings')
                      else []),
                  'tags': self.tags if self.obj_attr_is_set('tags') else []}
        row = _db().build_request_create(self._context, values)
        self.id = row.id
        self.created_at = row.created_at
        self.updated_at = row.updated_at
        self.obj_reset_changes()

    def save(self):
        """Write the changed ``instance`` values (a rename before the
        server is in a cell); BuildRequestNotFound once it is gone."""
        values = {name: getattr(self, name)
                  for name in self.obj_what_changed() & {'instance'}}
        if values:
            _db().build_request_update(self._context, self.instance_uuid,
                                       values)
        self.obj_reset_changes()

    def destroy(self):
        """Delete it (BuildRequestNotFound when someone did already)."""
        _db().build_request_destroy(self._context, self.instance_uuid)


@base.NovaLiteObjectRegistry.register
class BuildRequestList(base.NovaLiteObjectListBase, base.NovaLiteObject):
    """Pending build requests (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('BuildRequest')}

    @classmethod
    def get_all(cls, context, project_id=None):
        """Newest first; those of ``project_id`` when given."""
        rows = _db().build_request_get_all(context, project_id=project_id)
        return cls(context, objects=[BuildRequest._from_db(context, r)
                                     for r in rows])
