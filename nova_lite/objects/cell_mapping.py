"""CellMapping: where a cell's database and message bus are.

API-level code (the API, the super conductor, the scheduler) reads cell
mappings from the API database and *targets* a request context at one
(:func:`nova_lite.cells.target_cell`) to reach that cell. cell0 is the
mapping with the all-zero uuid: a database and no bus.
"""

from oslo_versionedobjects import fields

from nova_lite.objects import base

CELL0_UUID = '00000000-0000-0000-0000-000000000000'


def _db():
    # NOTE(nova_lite): imported late: computes import objects, never SQL.
    from nova_lite.db.api import api as api_db
    return api_db


@base.NovaLiteObjectRegistry.register
class CellMapping(base.NovaLiteTimestampObject, base.NovaLiteObject):
    """A cell mapping (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {
        **base.NovaLiteTimestampObject.fields,
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'transport_url': fields.StringField(),
        'database_connection': fields.StringField(),
        'disabled': fields.BooleanField(default=False),
    }

    @classmethod
    def _from_db(cls, context, db_row):
        return base.obj_from_db(cls(context), db_row)

    @classmethod
    def get_by_uuid(cls, context, cell_uuid):
        """The mapping of ``cell_uuid`` (CellMappingNotFound)."""
        return cls._from_db(context,
                            _db().cell_mapping_get_by_uuid(context, cell_uuid))

    @classmethod
    def get_by_name(cls, context, name):
        return cls._from_db(context,
                            _db().cell_mapping_get_by_name(context, name))

    @property
    def is_cell0(self):
        return self.uuid == CELL0_UUID

    @property
    def identity(self):
        """Name and uuid, for log lines."""
        return '%s(%s)' % (self.name, self.uuid)


@base.NovaLiteObjectRegistry.register
class CellMappingList(base.NovaLiteObjectListBase, base.NovaLiteObject):
    """Every cell mapping (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('CellMapping')}

    @classmethod
    def get_all(cls, context):
        """Every cell, cell0 first, then in creation order."""
        cells = [CellMapping._from_db(context, row)
                 for row in _db().cell_mapping_get_all(context)]
        return cls(context, objects=cells)
