"""ComputeNode: one hypervisor node's row in its cell's ``compute_nodes``.

The row's ``uuid`` is also the uuid of the node's root resource provider in
placement. Rows are unique per live (host, hypervisor_hostname) and
soft-deleted, so a node that disappears and comes back gets its row (and
its provider uuid) back through :meth:`ComputeNode.restore`.

Computes never call the database methods here: their resource tracker asks
the cell conductor (``nova_lite.conductor.rpcapi``), which does.
"""

from oslo_versionedobjects import fields

from nova_lite import exception
from nova_lite.objects import base

# Columns a resource tracker refreshes at every periodic update.
RESOURCE_FIELDS = ('vcpus', 'memory_mb', 'local_gb', 'vcpus_used',
                   'memory_mb_used', 'local_gb_used', 'running_vms',
                   'free_ram_mb', 'free_disk_gb', 'disk_available_least',
                   'hypervisor_type', 'hypervisor_version', 'cpu_info',
                   'cpu_allocation_ratio', 'ram_allocation_ratio',
                   'disk_allocation_ratio')


def _db():
    from nova_lite.db.cell import api as cell_db_api
    return cell_db_api


@base.NovaLiteObjectRegistry.register
class ComputeNode(base.NovaLiteTimestampObject, base.NovaLiteObject):
    """A hypervisor node (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {
        **base.NovaLiteTimestampObject.fields,
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'service_id': fields.IntegerField(nullable=True),
        'host': fields.StringField(),
        'hypervisor_hostname': fields.StringField(),
        'vcpus': fields.IntegerField(default=0),
        'memory_mb': fields.IntegerField(default=0),
        'local_gb': fields.IntegerField(default=0),
        'vcpus_used': fields.IntegerField(default=0),
        'memory_mb_used': fields.IntegerField(default=0),
        'local_gb_used': fields.IntegerField(default=0),
        'running_vms': fields.IntegerField(default=0),
        'free_ram_mb': fields.IntegerField(nullable=True),
        'free_disk_gb': fields.IntegerField(nullable=True),
        'disk_available_least': fields.IntegerField(nullable=True),
        'hypervisor_type': fields.StringField(nullable=True),
        'hypervisor_version': fields.IntegerField(nullable=True),
        'cpu_info': fields.StringField(nullable=True),
        'cpu_allocation_ratio': fields.FloatField(nullable=True),
        'ram_allocation_ratio': fields.FloatField(nullable=True),
        'disk_allocation_ratio': fields.FloatField(nullable=True),
        'mapped': fields.IntegerField(default=0),
        'failed_builds': fields.IntegerField(default=0),
        'stats': fields.DictOfNullableStringsField(nullable=True),
        'deleted': fields.BooleanField(default=False),
    }

    @classmethod
    def _from_db(cls, context, db_row):
        obj = cls(context)
        names = [n for n in cls.fields if n != 'deleted']
        base.obj_from_db(obj, db_row, names)
        obj.deleted = bool(db_row.deleted)
        if obj.stats is not None:
            obj.stats = {k: None if v is None else str(v)
                         for k, v in obj.stats.items()}
        obj.obj_reset_changes()
        return obj

    @classmethod
    def get_by_id(cls, context, compute_id):
        return cls._from_db(context, _db().compute_node_get(context,
                                                            compute_id))

    @classmethod
    def get_by_uuid(cls, context, node_uuid):
        """The node (live, or any with ``read_deleted='yes'``)."""
        return cls._from_db(context, _db().compute_node_get_by_uuid(
            context, node_uuid))

    @classmethod
    def get_by_host_and_nodename(cls, context, host, nodename):
        row = _db().compute_node_get_by_host_and_nodename(context, host,
                                                          nodename)
        return cls._from_db(context, row)

    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.Conflict(reason='compute node already created')
        values = self.obj_get_changes()
        values.pop('deleted', None)
        db_row = _db().compute_node_create(self._context, values)
        self._refresh(db_row)

    def save(self):
        values = self.obj_get_changes()
        values.pop('deleted', None)
        if not values:
            return
        self._refresh(_db().compute_node_update(self._context, self.id,
                                                values))

    def destroy(self):
        """Soft-delete the row (the node left this host)."""
        _db().compute_node_delete(self._context, self.id)
        self.deleted = True
        self.obj_reset_changes(['deleted'])

    def restore(self):
        """Bring a soft-deleted row back (the node reappeared)."""
        self._refresh(_db().compute_node_restore(self._context, self.id))

    def _refresh(self, db_row):
        fresh = self._from_db(self._context, db_row)
        for name in self.fields:
            if fresh.obj_attr_is_set(name):
                setattr(self, name, getattr(fresh, name))
        self.obj_reset_changes()


@base.NovaLiteObjectRegistry.register
class ComputeNodeList(base.NovaLiteObjectListBase, base.NovaLiteObject):
    """Compute nodes (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('ComputeNode'),
    }

    @classmethod
    def get_all_by_host(cls, context, host):
        """The host's nodes (soft-deleted too when the context reads them);
        an empty list when it has none."""
        try:
            rows = _db().compute_node_get_all_by_host(context, host)
        except exception.ComputeHostNotFound:
            rows = []
        return cls(context, objects=[ComputeNode._from_db(context, r)
                                     for r in rows])

    @classmethod
    def get_all(cls, context):
        rows = _db().compute_node_get_all(context)
        return cls(context, objects=[ComputeNode._from_db(context, r)
                                     for r in rows])

    @classmethod
    def save_for_host(cls, context, host, nodes):
        """Create, restore or update many nodes of ``host`` at once.

        :param nodes: ``{nodename: values}`` (ComputeNode fields; ``uuid``
            used on create and to find a soft-deleted row to restore).
        :returns: the list of the nodes, in the order of ``nodes``.
        """
        checked = {}
        for name, values in nodes.items():
            # NOTE(nova_lite): the object's fields coerce and check the
            # values, as ComputeNode.create and save do.
            probe = ComputeNode(context, **values)
            clean = probe.obj_get_changes()
            clean.pop('deleted', None)
            checked[name] = clean
        written = _db().compute_nodes_save(context, host, checked)
        return cls(context, objects=[
            ComputeNode._from_db(context, written[name]) for name in nodes])
