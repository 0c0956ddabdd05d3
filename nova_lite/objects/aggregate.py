"""Aggregate: a named set of hosts with metadata, in the API database.

An ``availability_zone`` metadata key (:data:`AZ_KEY`) makes an
aggregate a zone, as in Nova. Every write returns nothing: callers read
the aggregate again (:meth:`Aggregate.get`) to answer with what is
stored.
"""

from oslo_utils import uuidutils

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
        new = cls(context, id=None, uuid=uuidutils.generate_uuid(),
                  name=name, hosts=None, metadata=dict(metadata or {}))
        new._notify('create', 'start')
        row = aggregate_api.aggregate_create(context, name, metadata,
                                             uuid=new.uuid)
        created = cls.get(context, row.id)
        created._notify('create', 'end')
        return created

    def update_name(self, name):
        self._notify('update_prop', 'start')
        aggregate_api.aggregate_update(self._context, self.id, name)
        self.name = name
        self._notify('update_prop', 'end')

    def update_metadata(self, metadata, action='update_metadata'):
        """Set the keys of ``metadata``; a None value deletes the key.
        ``action``: what the notifications say (``update_prop`` for a
        zone set by an update of the aggregate, as in Nova)."""
        self._notify(action, 'start')
        aggregate_api.aggregate_metadata_update(self._context, self.id,
                                                metadata)
        current = dict(self.metadata or {})
        for key, value in metadata.items():
            if value is None:
                current.pop(key, None)
            else:
                current[key] = value
        self.metadata = current
        self._notify(action, 'end')

    def add_host(self, host):
        """Add ``host`` (AggregateHostExists when it is there already)."""
        self._notify('add_host', 'start')
        aggregate_api.aggregate_host_add(self._context, self.id, host)
        self.hosts = list(self.hosts or []) + [host]
        self._notify('add_host', 'end')

    def delete_host(self, host):
        """Remove ``host`` (AggregateHostNotFound when it is not there)."""
        self._notify('remove_host', 'start')
        aggregate_api.aggregate_host_delete(self._context, self.id, host)
        self.hosts = [h for h in self.hosts or [] if h != host]
        self._notify('remove_host', 'end')

    def destroy(self):
        self._notify('delete', 'start')
        aggregate_api.aggregate_delete(self._context, self.id)
        self._notify('delete', 'end')

    def _notify(self, action, phase):
        """``aggregate.<action>.<phase>``, from the API as in Nova."""
        from nova_lite import conf as nl_conf
        from nova_lite import notifications
        notifications.aggregate(self._context, action, phase, self,
                                nl_conf.CONF.host)


def availability_zones_by_host(context):
    """{host: availability zone} of the hosts in a zone."""
    return aggregate_api.availability_zones_by_host(context)
