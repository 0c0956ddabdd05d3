"""InstanceMapping: which cell an instance lives in.

The API writes the mapping with no cell when it accepts a server (the
server then exists only as a build request); the super conductor points it
at the chosen cell (or cell0) *before* deleting the build request, so a
reader always finds the server in one of the two places.
"""

from oslo_versionedobjects import fields

from nova_lite.objects import base
from nova_lite.objects import cell_mapping as cell_mapping_obj


def _db():
    # NOTE(nova_lite): imported late: computes import objects, never SQL.
    from nova_lite.db.api import api as api_db
    return api_db


@base.NovaLiteObjectRegistry.register
class InstanceMapping(base.NovaLiteTimestampObject, base.NovaLiteObject):
    """An instance mapping (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {
        **base.NovaLiteTimestampObject.fields,
        'id': fields.IntegerField(read_only=True),
        'instance_uuid': fields.UUIDField(),
        'cell_mapping': fields.ObjectField('CellMapping', nullable=True),
        'project_id': fields.StringField(),
        'user_id': fields.StringField(nullable=True),
        'queued_for_delete': fields.BooleanField(default=False),
    }

    _COLUMNS = ('id', 'instance_uuid', 'project_id', 'user_id',
                'queued_for_delete', 'created_at', 'updated_at')

    @classmethod
    def _from_db(cls, context, db_row):
        obj = cls(context)
        base.obj_from_db(obj, db_row, cls._COLUMNS)
        cell = db_row.cell_mapping
        obj.cell_mapping = (None if cell is None else
                            cell_mapping_obj.CellMapping._from_db(context,
                                                                  cell))
        obj.obj_reset_changes()
        return obj

    @classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        """The mapping of ``instance_uuid`` (InstanceMappingNotFound)."""
        row = _db().instance_mapping_get_by_instance_uuid(context,
                                                          instance_uuid)
        return cls._from_db(context, row)

    def _values(self):
        values = {k: getattr(self, k) for k in self.obj_what_changed()
                  if k in self._COLUMNS and k != 'id'}
        if 'cell_mapping' in self.obj_what_changed():
            values['cell_id'] = (self.cell_mapping.id if self.cell_mapping
                                 else None)
        return values

    def create(self):
        """Insert the mapping (InstanceMappingExists)."""
        row = _db().instance_mapping_create(self._context, self._values())
        self._refresh(row)

    @staticmethod
    def create_all(context, mappings):
        """Insert ``mappings`` (InstanceMappings not created) with one
        statement (InstanceMappingExists); they are not read back."""
        _db().instance_mappings_create(context,
                                       [m._values() for m in mappings])

    def save(self):
        """Write the changed fields (the cell, ``queued_for_delete``)."""
        values = self._values()
        if values:
            row = _db().instance_mapping_update(
                self._context, self.instance_uuid, values)
            self._refresh(row)

    @classmethod
    def queue_for_delete(cls, context, instance_uuid):
        """Mark the server's mapping queued for delete (one UPDATE; the
        delete has read the mapping already)."""
        _db().instance_mapping_queue_for_delete(context, instance_uuid)

    def _refresh(self, row):
        fresh = self._from_db(self._context, row)
        for name in self.fields:
            if fresh.obj_attr_is_set(name):
                setattr(self, name, getattr(fresh, name))
        self.obj_reset_changes()

    def destroy(self):
        _db().instance_mapping_delete(self._context, self.instance_uuid)


@base.NovaLiteObjectRegistry.register
class InstanceMappingList(base.NovaLiteObjectListBase, base.NovaLiteObject):
    """Instance mappings (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('InstanceMapping')}

    @classmethod
    def get_by_project(cls, context, project_id=None, cell_id=None):
        rows = _db().instance_mapping_get_by_project(
            context, project_id=project_id, cell_id=cell_id)
        return cls(context, objects=[InstanceMapping._from_db(context, r)
                                     for r in rows])
