"""RequestSpec: what the scheduler is asked to place.

The one model of a scheduling request. The API writes one per build (in
the API database's ``request_specs``, as JSON), the conductors make one per
move (:meth:`RequestSpec.for_move`), ``select_destinations`` carries it over
RPC as a versioned object, and the scheduler's filters, weighers and query
builder read the same object (on a copy the scheduler owns). Build one from
parts with :meth:`RequestSpec.from_components`::

    spec = objects.RequestSpec.from_components(
        ctxt, flavor=flavor, image={'id': image_id, 'disk_format': 'qcow2',
                                    'properties': {...}},
        num_instances=2, project_id=p, user_id=u, availability_zone='az1',
        scheduler_hints={'group': [group_uuid]},
        instance_group={'uuid': group_uuid, 'policy': 'anti-affinity',
                        'rules': {}, 'members': [uuid1, uuid2]})

Shape (what each field means):

- ``flavor``: an :class:`~nova_lite.objects.flavor.Flavor` (vcpus,
  memory_mb, root_gb, ephemeral_gb, swap in MB, extra_specs dict of
  strings).
- ``image_id``, ``image_disk_format``, ``image_properties`` (strings; a
  list such as ``traits_required`` as a comma list), read as
  ``spec.image.id`` / ``.disk_format`` / ``.properties``.
- ``project_id``, ``user_id``: owner of the instances.
- ``availability_zone``: requested AZ name or None.
- ``scheduler_hints``: dict of lists of strings (``group``, ``same_host``,
  ``different_host``, ``build_near_host_ip``, ``cidr``, ``query``), read
  through :meth:`RequestSpec.get_hint` and :meth:`RequestSpec.get_hint_list`.
- ``instance_group``: :class:`RequestSpecGroup` or None. ``members`` holds
  the uuids of the group's instances, including those being scheduled now;
  ``hosts`` holds one host name per member already placed (a host appears
  once per member on it). Left empty, the scheduler reads them from the
  cell databases.
- ``num_instances``: how many instances this request places.
- ``instance_uuid``: the instance being placed now (set per instance by the
  scheduler in a multi-instance request).
- ``force_hosts`` / ``force_nodes``: lists; a forced host skips filters.
- ``ignore_hosts``: hosts never to pick (e.g. the source of a migration).
- ``requested_destination``: :class:`RequestSpecDestination` or None.
- ``source_cell_uuid``: the cell of the instance being moved (CrossCell
  weigher); None for a build.
- ``is_bfv``: boots from a volume (no root disk asked from placement).
"""

import collections

from oslo_serialization import jsonutils
from oslo_versionedobjects import fields

from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import flavor as flavor_obj


def _db():
    from nova_lite.db.api import build_api
    return build_api


def _field(record, name, default=None):
    if record is None:
        return default
    if isinstance(record, dict):
        return record.get(name, default)
    if hasattr(record, 'obj_attr_is_set') and name in getattr(
            record, 'fields', {}):
        return getattr(record, name) if record.obj_attr_is_set(name) \
            else default
    return getattr(record, name, default)


@base.NovaLiteObjectRegistry.register
class RequestSpecGroup(base.NovaLiteObject):
    """The server group of a request (versions: 1.0 initial).

    ``members``: uuids of the group's instances (those being built now
    included); ``hosts``: one host name per member already placed, filled
    by the scheduler from the cell databases when left empty.
    """

    VERSION = '1.0'

    fields = {
        'uuid': fields.StringField(nullable=True),
        'policy': fields.StringField(nullable=True),
        'rules': fields.DictOfStringsField(default={}),
        'members': fields.ListOfStringsField(default=[]),
        'hosts': fields.ListOfStringsField(default=[]),
    }

    @classmethod
    def from_any(cls, group):
        """From a dict or a DB row (``policy`` or ``policies``); None
        stays."""
        if group is None or isinstance(group, cls):
            return group
        rules = _field(group, 'rules') or {}
        policy = _field(group, 'policy')
        if policy is None and _field(group, 'policies'):
            policy = _field(group, 'policies')[0]
        return cls(uuid=_field(group, 'uuid'), policy=policy,
                   rules={k: str(v) for k, v in dict(rules).items()},
                   members=list(_field(group, 'members') or []),
                   hosts=list(_field(group, 'hosts') or []))

    def count_on(self, host):
        """How many placed members run on ``host`` (a host name)."""
        return self.hosts.count(host)


@base.NovaLiteObjectRegistry.register
class RequestSpecDestination(base.NovaLiteObject):
    """Where a caller asks the instance to go (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {
        'host': fields.StringField(nullable=True),
        'node': fields.StringField(nullable=True),
        'cell_uuid': fields.StringField(nullable=True),
        # Each item a comma-joined OR-list of aggregate uuids.
        'aggregates': fields.ListOfStringsField(default=[]),
        'forbidden_aggregates': fields.ListOfStringsField(default=[]),
        'allow_cross_cell_move': fields.BooleanField(default=False),
    }

    @classmethod
    def from_any(cls, dest):
        if dest is None or isinstance(dest, cls):
            return dest
        return cls(host=_field(dest, 'host'), node=_field(dest, 'node'),
                   cell_uuid=_field(dest, 'cell_uuid'),
                   aggregates=list(_field(dest, 'aggregates') or []),
                   forbidden_aggregates=sorted(
                       _field(dest, 'forbidden_aggregates') or []),
                   allow_cross_cell_move=bool(
                       _field(dest, 'allow_cross_cell_move', False)))


# What RequestSpec.image returns: the image_* fields under one name.
SpecImage = collections.namedtuple('SpecImage',
                                   ['id', 'disk_format', 'properties'])


@base.NovaLiteObjectRegistry.register
class RequestSpec(base.NovaLiteObject):
    """One scheduling request (versions: 1.0 initial).

    Image properties are strings (a list such as ``traits_required`` as a
    comma list).
    """

    VERSION = '1.0'

    fields = {
        'instance_uuid': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'flavor': fields.ObjectField('Flavor'),
        'image_id': fields.StringField(nullable=True),
        'image_disk_format': fields.StringField(nullable=True),
        'image_properties': fields.DictOfNullableStringsField(default={}),
        'num_instances': fields.IntegerField(default=1),
        'availability_zone': fields.StringField(nullable=True),
        'scheduler_hints': fields.DictOfListOfStringsField(default={}),
        'instance_group': fields.ObjectField('RequestSpecGroup',
                                             nullable=True),
        'requested_destination': fields.ObjectField(
            'RequestSpecDestination', nullable=True),
        'force_hosts': fields.ListOfStringsField(default=[]),
        'force_nodes': fields.ListOfStringsField(default=[]),
        'ignore_hosts': fields.ListOfStringsField(default=[]),
        # How many hosts were tried already (reschedules, moves).
        'num_attempts': fields.IntegerField(default=1),
        'is_bfv': fields.BooleanField(default=False),
        # The cell of an instance being moved (CrossCellWeigher).
        'source_cell_uuid': fields.StringField(nullable=True),
    }

    @classmethod
    def from_components(cls, context, flavor, image=None, num_instances=1,
                        project_id=None, user_id=None, instance_uuid=None,
                        availability_zone=None, scheduler_hints=None,
                        instance_group=None, requested_destination=None,
                        force_hosts=None, force_nodes=None,
                        ignore_hosts=None, is_bfv=False,
                        source_cell_uuid=None):
        """Build a spec from a flavor (object or dict), an image (dict with
        ``id``, ``disk_format``, ``properties``), a group (object, dict or
        row), a destination (object or dict) and the rest as plain values.
        Hint values become lists of strings."""
        spec = cls(context)
        spec.flavor = _flavor(context, flavor)
        spec.image_id = _field(image, 'id')
        spec.image_disk_format = _field(image, 'disk_format')
        spec.image_properties = _string_dict(_field(image, 'properties')
                                             or {})
        spec.num_instances = num_instances
        spec.project_id = project_id
        spec.user_id = user_id
        spec.instance_uuid = instance_uuid
        spec.availability_zone = availability_zone
        spec.scheduler_hints = _hints(scheduler_hints or {})
        spec.instance_group = RequestSpecGroup.from_any(instance_group)
        spec.requested_destination = RequestSpecDestination.from_any(
            requested_destination)
        spec.force_hosts = list(force_hosts or [])
        spec.force_nodes = list(force_nodes or [])
        spec.ignore_hosts = list(ignore_hosts or [])
        spec.num_attempts = 1
        spec.is_bfv = bool(is_bfv)
        spec.source_cell_uuid = source_cell_uuid
        return spec

    @classmethod
    def for_move(cls, context, instance, cell_uuid, flavor=None, host=None,
                 node=None, ignore_hosts=(), hints=None, base=None):
        """The spec to schedule one move of ``instance`` with; not saved.

        Starts from ``base`` (a spec the API prepared) or the stored spec
        (one rebuilt from the instance when none is stored), so the
        server's group, zone, hints and image still count; then asks for
        one instance of ``flavor`` (default: its current flavor), nothing
        forced from the build, ``ignore_hosts`` left out, ``host``/
        ``node`` if asked, within cell ``cell_uuid``, with ``hints``
        added. Reads the API database: API and super conductor only.
        """
        if base is not None:
            spec = base.obj_clone()
        else:
            try:
                spec = cls.get_by_instance_uuid(context, instance.uuid)
            except exception.RequestSpecNotFound:
                spec = cls.from_components(
                    context, instance.flavor or {},
                    project_id=instance.project_id,
                    user_id=instance.user_id, instance_uuid=instance.uuid,
                    availability_zone=instance.availability_zone)
        spec.flavor = _flavor(context, flavor if flavor is not None
                              else instance.flavor or {})
        spec.instance_uuid = instance.uuid
        spec.num_instances = 1
        spec.num_attempts = 1
        spec.force_hosts = []
        spec.force_nodes = []
        spec.ignore_hosts = sorted(set(ignore_hosts))
        if hints:
            merged = dict(spec.get('scheduler_hints', {}))
            merged.update(_hints(hints))
            spec.scheduler_hints = merged
        spec.requested_destination = RequestSpecDestination(
            host=host, node=node, cell_uuid=cell_uuid, aggregates=[],
            forbidden_aggregates=[], allow_cross_cell_move=False)
        spec.source_cell_uuid = cell_uuid
        return spec

    def get(self, name, default=None):
        """A field, or ``default`` when unset."""
        if self.obj_attr_is_set(name):
            return getattr(self, name)
        return default

    def fill_defaults(self):
        """Set every unset field, and those of the flavor, group and
        destination, to its default; returns self. The scheduler calls it
        on its copy, so its filters read every field of a spec whichever
        fields the sender set."""
        super().fill_defaults()
        for name in ('flavor', 'instance_group', 'requested_destination'):
            child = self.get(name)
            if child is not None:
                child.fill_defaults()
        return self

    @property
    def image(self):
        """The image fields as ``image.id``, ``image.disk_format`` and
        ``image.properties`` (a read-only view, nothing stored twice)."""
        return SpecImage(self.get('image_id'), self.get('image_disk_format'),
                         self.get('image_properties', {}))

    def get_hint(self, name, default=None):
        """A scheduler hint as a single value (the first of its list)."""
        values = self.get('scheduler_hints', {}).get(name)
        return values[0] if values else default

    def get_hint_list(self, name):
        """A scheduler hint's values (empty when absent)."""
        return list(self.get('scheduler_hints', {}).get(name) or [])

    @property
    def group_policy(self):
        """The server group policy, or None without a group."""
        group = self.get('instance_group')
        return group.policy if group is not None else None

    # -- storage in the API database (JSON) --------------------------------

    def to_json_dict(self):
        """A JSON-able dict of this spec (versioned primitive)."""
        return jsonutils.loads(jsonutils.dumps(self.obj_to_primitive()))

    @classmethod
    def from_json_dict(cls, context, data):
        spec = cls.obj_from_primitive(data, context=context)
        spec._context = context
        return spec

    def create(self):
        """Store this spec for ``instance_uuid`` in the API database."""
        _db().request_spec_create(self._context, self.instance_uuid,
                                  self.to_json_dict())

    @staticmethod
    def create_all(context, specs):
        """Store ``specs`` (RequestSpecs) with one statement."""
        _db().request_specs_create(context, {
            spec.instance_uuid: spec.to_json_dict() for spec in specs})

    def save(self):
        _db().request_spec_update(self._context, self.instance_uuid,
                                  self.to_json_dict())
        self.obj_reset_changes(recursive=True)

    @staticmethod
    def destroy(context, instance_uuid):
        """Delete the stored spec of ``instance_uuid`` (RequestSpecNotFound
        when there is none), e.g. of a build request deleted before it was
        scheduled: nothing else will ever read it."""
        _db().request_spec_destroy(context, instance_uuid)

    @classmethod
    def get_by_instance_uuids(cls, context, instance_uuids):
        """{instance uuid: spec} of those of ``instance_uuids`` that have
        a stored spec, read in one query."""
        return {row.instance_uuid: cls.from_json_dict(context, row.spec)
                for row in _db().request_spec_get_by_instance_uuids(
                    context, instance_uuids)}

    @classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        """The stored spec of ``instance_uuid`` (RequestSpecNotFound)."""
        row = _db().request_spec_get_by_instance_uuid(context, instance_uuid)
        return cls.from_json_dict(context, row.spec)


def _flavor(context, flavor):
    """The Flavor object of a flavor given as one, or as a dict (an
    instance's copy, a caller's values)."""
    if isinstance(flavor, flavor_obj.Flavor):
        return flavor
    values = {name: _field(flavor, name) for name in flavor_obj.Flavor.fields}
    if values['extra_specs'] is not None:
        values['extra_specs'] = _string_dict(values['extra_specs'])
    return flavor_obj.Flavor.from_dict(context, values)


def _string_dict(values):
    result = {}
    for key, value in dict(values).items():
        if isinstance(value, (list, tuple)):
            value = ','.join(str(v) for v in value)
        result[str(key)] = None if value is None else str(value)
    return result


def _hints(hints):
    result = {}
    for key, value in dict(hints).items():
        if value is None:
            continue
        if not isinstance(value, (list, tuple)):
            value = [value]
        result[str(key)] = [str(v) for v in value if v is not None]
    return result
