"""Versioned objects: what crosses RPC between nova_lite services.

Objects are oslo.versionedobjects classes in the ``nova_lite`` namespace,
registered in :class:`NovaLiteObjectRegistry`. A field change must come with
a version bump; ``tests/unit/objects/test_objects.py`` keeps a fingerprint
of every object and fails when one changes without its version.

Objects that live in a database read and write it through the DB API of
their database (``nova_lite.db.cell.api`` for cell objects). A compute has
no database: it never calls those methods and asks its cell conductor over
RPC instead (see ``nova_lite.conductor``). That is why each object module
imports its DB API inside a ``_db()`` function rather than at the top: a
compute process, which imports every object, never loads the DB API
modules, their models and their queries.
"""

from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import fields

from nova_lite import objects

OBJ_NAMESPACE = 'nova_lite'


class NovaLiteObjectRegistry(ovo_base.VersionedObjectRegistry):
    """Registry of nova_lite's objects; also exposes them on the package."""

    def registration_hook(self, cls, index):
        # NOTE(nova_lite): keep ``nova_lite.objects.<Name>`` pointing at the
        # newest registered version, as callers use the package attribute.
        current = getattr(objects, cls.obj_name(), None)
        if current is None or _newer(cls.VERSION, current.VERSION):
            setattr(objects, cls.obj_name(), cls)


def _newer(version, other):
    return tuple(int(x) for x in version.split('.')) > tuple(
        int(x) for x in other.split('.'))


class NovaLiteObject(ovo_base.VersionedObject):
    """Base of every nova_lite versioned object."""

    OBJ_SERIAL_NAMESPACE = 'nova_lite_object'
    OBJ_PROJECT_NAMESPACE = OBJ_NAMESPACE

    def fill_defaults(self):
        """Set every unset field to its default (None when it has none
        and is nullable); returns self. A partly filled object (built by
        hand, or sent by a peer that set only some fields) then reads like
        a complete one."""
        for name, field in self.fields.items():
            if not self.obj_attr_is_set(name):
                if field.default != fields.UnspecifiedDefault:
                    setattr(self, name, field.default)
                elif field.nullable:
                    setattr(self, name, None)
        return self


class NovaLiteTimestampObject:
    """Mixin: ``created_at`` and ``updated_at`` of a database row."""

    fields = {
        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
    }


class NovaLiteObjectListBase(ovo_base.ObjectListBase):
    """Base of list objects (``objects`` holds the members)."""


class NovaLiteObjectSerializer(ovo_base.VersionedObjectSerializer):
    """Serializer that knows nova_lite's object base class."""

    OBJ_BASE_CLASS = NovaLiteObject


def obj_from_db(obj, db_row, fields_to_copy=None):
    """Fill ``obj`` from a DB model row and return it with no changes."""
    for name in fields_to_copy or obj.fields:
        if obj.fields[name].read_only and obj.obj_attr_is_set(name):
            continue
        setattr(obj, name, getattr(db_row, name))
    obj.obj_reset_changes()
    return obj
