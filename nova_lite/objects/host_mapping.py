"""HostMapping: which cell a compute host is in (API database)."""

from nova_lite.db.api import api as api_db
from nova_lite.objects import record


class HostMapping(record.Record):
    """A host and the primary key of its cell mapping."""

    FIELDS = ('id', 'host', 'cell_id', 'created_at', 'updated_at')

    @classmethod
    def get_by_host(cls, context, host):
        """The mapping of ``host`` (HostMappingNotFound when unmapped)."""
        return cls._from_row(context, api_db.host_mapping_get_by_host(
            context, host))

    @classmethod
    def get_all(cls, context, cell_id=None):
        """Every mapping, or those of the cell with primary key cell_id."""
        return cls._from_rows(context, api_db.host_mapping_get_all(
            context, cell_id=cell_id))

    @classmethod
    def destroy_by_host(cls, context, host):
        """Unmap ``host`` (HostMappingNotFound when it is not mapped)."""
        api_db.host_mapping_delete(context, host)
