"""Aggregate: a named set of hosts with metadata, in the API database.

An ``availability_zone`` metadata key (:data:`AZ_KEY`) makes an
aggregate a zone, as in Nova. Every write returns nothing: callers read
the aggregate again (:meth:`Aggregate.get`) to answer with what is
stored.
"""

from nova_lite.db.api import aggregate_api
from nova_lite.objects import record

AZ_KEY = aggregate_api.AZ_KEY


class Aggregate(record.Record):
    """An aggregate with its ``hosts`` and ``metadata`` (a dict)."""

    FIELDS = ('id', 'uuid', 'name', 'hosts', 'metadata', 'created_at',
              'updated_at')

    @classmethod
    def _from_row(cls, context, row):
        return cls(context, id=row.id, uuid=row.uuid, name=row.name,
                   hosts=row.hosts, metadata=row.metadetails,
                   created_at=row.created_at, updated_at=row.updated_at)

    @classmethod
    def get(cls, context, aggregate_id):
        """The aggregate with this id or uuid (AggregateNotFound)."""
        return cls._from_row(context, aggregate_api.aggregate_get(
            context, aggregate_id))

    @classmethod
    def get_all(cls, context):
        return cls._from_rows(context,
                              aggregate_api.aggregate_get_all(context))

    @classmethod
    def get_by_host(cls, context, host, key=None):
        """Aggregates ``host`` is in (only those with metadata ``key``)."""
        return cls._from_rows(context, aggregate_api.aggregate_get_by_host(
            context, host, key=key))

    @classmethod
    def create(cls, context, name, metadata=None):
        """A new aggregate (AggregateNameExists on a taken name)."""
        row = aggregate_api.aggregate_create(context, name, metadata)
        return cls.get(context, row.id)

    def update_name(self, name):
        aggregate_api.aggregate_update(self._context, self.id, name)

    def update_metadata(self, metadata):
        """Set the keys of ``metadata``; a None value deletes the key."""
        aggregate_api.aggregate_metadata_update(self._context, self.id,
                                                metadata)

    def add_host(self, host):
        """Add ``host`` (AggregateHostExists when it is there already)."""
        aggregate_api.aggregate_host_add(self._context, self.id, host)

    def delete_host(self, host):
        """Remove ``host`` (AggregateHostNotFound when it is not there)."""
        aggregate_api.aggregate_host_delete(self._context, self.id, host)

    def destroy(self):
        aggregate_api.aggregate_delete(self._context, self.id)


def availability_zones_by_host(context):
    """{host: availability zone} of the hosts in a zone."""
    return aggregate_api.availability_zones_by_host(context)
