"""Migration: one move of an instance, and a placement consumer.

A migration record says where an instance is moving from and to, as what
(``migration_type``: ``migration`` (cold, same flavor), ``resize``,
``live-migration``, ``evacuation``) and how far it got (``status``). Its
``uuid`` is the placement consumer that holds the source allocation while
a cold migrate, resize or live migration is in flight
(:mod:`nova_lite.clients.allocation_moves`).

Statuses, as Nova's users see them in os-migrations:

* resize/migrate: ``pre-migrating`` -> ``migrating`` -> ``post-migrating``
  -> ``finished`` (VERIFY_RESIZE) -> ``confirming`` -> ``confirmed``, or
  ``reverting`` -> ``reverted``; ``error`` when it failed;
* live migration: ``accepted`` -> ``queued`` -> ``preparing`` ->
  ``running`` -> ``completed``, or ``failed`` / ``error``;
* evacuation: ``accepted`` -> ``pre-migrating`` -> ``done`` (the
  destination runs it) -> ``completed`` (the source compute came back and
  cleaned up), or ``failed``.

Computes read and write migrations through their cell conductor.
"""

from oslo_versionedobjects import fields

from nova_lite.objects import base

TYPES = ('migration', 'resize', 'live-migration', 'evacuation')

# Statuses after which a migration holds nothing on its hosts.
DONE_STATUSES = ('confirmed', 'reverted', 'error', 'failed', 'completed',
                 'cancelled', 'done')

_STRINGS = ('source_compute', 'dest_compute', 'source_node', 'dest_node',
            'dest_host', 'instance_uuid', 'status', 'user_id', 'project_id')
_INTS = ('dest_compute_id', 'old_instance_type_id', 'new_instance_type_id',
         'memory_total', 'memory_processed', 'memory_remaining',
         'disk_total', 'disk_processed', 'disk_remaining')


def _db():
    from nova_lite.db.cell import migration_api
    return migration_api


def _fields():
    result = dict(base.NovaLiteTimestampObject.fields)
    result['id'] = fields.IntegerField(read_only=True)
    result['uuid'] = fields.UUIDField()
    result.update({n: fields.StringField(nullable=True) for n in _STRINGS})
    result.update({n: fields.IntegerField(nullable=True) for n in _INTS})
    result['migration_type'] = fields.StringField(default='migration')
    result['hidden'] = fields.BooleanField(default=False)
    result['cross_cell_move'] = fields.BooleanField(default=False)
    return result


@base.NovaLiteObjectRegistry.register
class Migration(base.NovaLiteTimestampObject, base.NovaLiteObject):
    """A move of an instance (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = _fields()

    @classmethod
    def _from_db(cls, context, db_row):
        return base.obj_from_db(cls(context), db_row)

    @classmethod
    def get_by_uuid(cls, context, migration_uuid):
        """The migration (MigrationNotFound)."""
        return cls._from_db(context, _db().migration_get_by_uuid(
            context, migration_uuid))

    @classmethod
    def get_by_id(cls, context, migration_id):
        return cls._from_db(context, _db().migration_get(context,
                                                         migration_id))

    @classmethod
    def get_by_instance_and_status(cls, context, instance_uuid, status):
        """The newest migration of the instance in ``status``."""
        row = _db().migration_get_by_instance_and_status(
            context, instance_uuid, status)
        return cls._from_db(context, row)

    def create(self):
        values = self.obj_get_changes()
        values.pop('id', None)
        base.obj_from_db(self, _db().migration_create(self._context,
                                                      values))

    def save(self, expected_status=None):
        """Write the changed fields; with ``expected_status`` (a value or
        a list) only from that status, else Conflict."""
        values = self.obj_get_changes()
        values.pop('id', None)
        if values:
            base.obj_from_db(self, _db().migration_update(
                self._context, self.id, values,
                expected_status=expected_status))

    @property
    def is_resize(self):
        return self.migration_type == 'resize'

    @property
    def is_done(self):
        return self.status in DONE_STATUSES


@base.NovaLiteObjectRegistry.register
class MigrationList(base.NovaLiteObjectListBase, base.NovaLiteObject):
    """Migrations (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('Migration'),
    }

    @classmethod
    def get_by_filters(cls, context, filters=None):
        """Newest first; ``filters`` are exact columns (a list is IN)."""
        rows = _db().migration_get_all_by_filters(context, filters)
        return cls(context, objects=[Migration._from_db(context, row)
                                     for row in rows])

    @classmethod
    def get_in_progress_by_host_and_node(cls, context, host, node):
        rows = _db().migration_get_in_progress_by_host_and_node(
            context, host, node)
        return cls(context, objects=[Migration._from_db(context, row)
                                     for row in rows])
