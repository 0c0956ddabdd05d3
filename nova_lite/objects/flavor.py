"""Flavor: the size of a server, as it travels in a request spec.

Flavors live in the API database (``flavors`` + ``flavor_extra_specs``);
this object is the one shape of a flavor between the API and the
scheduler's filters: the API, the conductors and the scheduler pass it
around (inside :class:`~nova_lite.objects.request_spec.RequestSpec`) and
read it directly. An instance keeps a copy as a dict
(:meth:`Flavor.from_dict` turns it back). Reading goes through
:mod:`nova_lite.db.api.api`; writing flavors is the API's business and is
not offered here.
"""

from oslo_versionedobjects import fields

from nova_lite.objects import base

_COPIED = ('id', 'flavorid', 'name', 'vcpus', 'memory_mb', 'root_gb',
           'ephemeral_gb', 'swap', 'rxtx_factor', 'vcpu_weight', 'is_public',
           'disabled', 'description')


def _db():
    # NOTE(nova_lite): imported late; computes import objects, not the DB.
    from nova_lite.db.api import api as api_db
    return api_db


@base.NovaLiteObjectRegistry.register
class Flavor(base.NovaLiteObject):
    """A flavor and its extra specs (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(nullable=True),
        'flavorid': fields.StringField(nullable=True),
        'name': fields.StringField(nullable=True),
        'vcpus': fields.IntegerField(default=1),
        'memory_mb': fields.IntegerField(default=512),
        'root_gb': fields.IntegerField(default=0),
        'ephemeral_gb': fields.IntegerField(default=0),
        # MB, as in Nova.
        'swap': fields.IntegerField(default=0),
        'rxtx_factor': fields.FloatField(default=1.0),
        'vcpu_weight': fields.IntegerField(nullable=True),
        'is_public': fields.BooleanField(default=True),
        'disabled': fields.BooleanField(default=False),
        'description': fields.StringField(nullable=True),
        'extra_specs': fields.DictOfStringsField(default={}),
    }

    @classmethod
    def from_db_row(cls, context, row):
        """A Flavor from an API DB ``flavors`` row (extra specs loaded)."""
        flavor = cls(context)
        for name in _COPIED:
            setattr(flavor, name, getattr(row, name))
        flavor.root_gb = flavor.root_gb or 0
        flavor.ephemeral_gb = flavor.ephemeral_gb or 0
        flavor.rxtx_factor = (1.0 if flavor.rxtx_factor is None
                              else flavor.rxtx_factor)
        flavor.extra_specs = dict(row.extra_specs)
        flavor.obj_reset_changes()
        return flavor

    @classmethod
    def get_by_flavor_id(cls, context, flavorid):
        """The flavor whose public id is ``flavorid`` (FlavorNotFound)."""
        return cls.from_db_row(context,
                               _db().flavor_get_by_flavor_id(context,
                                                             flavorid))

    @classmethod
    def get_by_name(cls, context, name):
        return cls.from_db_row(context, _db().flavor_get_by_name(context,
                                                                 name))

    @classmethod
    def from_dict(cls, context, values):
        """A Flavor from the dict an instance keeps (``Instance.flavor``)
        or a caller passes: keys that are no field are left out, missing
        or None ones take their defaults."""
        flavor = cls(context)
        for name in cls.fields:
            value = values.get(name)
            if value is not None:
                setattr(flavor, name, value)
        return flavor.fill_defaults()

    def get(self, name, default=None):
        """A field, or ``default`` when unset."""
        if self.obj_attr_is_set(name):
            return getattr(self, name)
        return default
