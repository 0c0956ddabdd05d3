"""The scheduling request as filters, weighers and the query builder see it.

These are plain classes on purpose: the scheduler's pieces only read them,
and the lead turns :class:`RequestSpec` into a versioned object when it
starts crossing RPC. Every field has a safe empty default, so a test or a
caller sets only what matters to it::

    spec = RequestSpec(
        flavor=Flavor(vcpus=2, memory_mb=2048, root_gb=20,
                      extra_specs={'trait:CUSTOM_SSD': 'required'}),
        image=ImageMeta(disk_format='qcow2',
                        properties={'hw_architecture': 'x86_64'}),
        project_id='p1', availability_zone='az1',
        scheduler_hints={'group': 'g1', 'different_host': ['uuid-1']},
        instance_group=InstanceGroup(policy='anti-affinity',
                                     members=['uuid-2'], hosts=['host3']),
        num_instances=1)

Shape (what each field means):

- ``flavor``: :class:`Flavor` (vcpus, memory_mb, root_gb, ephemeral_gb,
  swap in MB, extra_specs dict of strings).
- ``image``: :class:`ImageMeta` (id, disk_format, properties dict; e.g.
  ``hw_architecture``, ``img_hv_type``, ``hw_vm_mode``,
  ``img_hv_requested_version``, ``traits_required``).
- ``project_id``, ``user_id``: owner of the instances.
- ``availability_zone``: requested AZ name or None.
- ``scheduler_hints``: dict; values may be a string or a list of strings
  (``group``, ``same_host``, ``different_host``, ``build_near_host_ip``,
  ``cidr``, ``query``), read through :meth:`RequestSpec.get_hint`.
- ``instance_group``: :class:`InstanceGroup` or None. ``members`` holds the
  uuids of the group's instances, including those being scheduled now;
  ``hosts`` holds one host name per member already placed (a host appears
  once per member on it).
- ``num_instances``: how many instances this request places.
- ``instance_uuid``: the instance being placed now (set per instance by the
  manager in a multi-instance request).
- ``force_hosts`` / ``force_nodes``: lists; a forced host skips filters.
- ``ignore_hosts``: hosts never to pick (e.g. the source of a migration).
- ``requested_destination``: :class:`Destination` or None (host, node,
  cell_uuid, aggregates as a list of comma-joined OR-lists,
  forbidden_aggregates, allow_cross_cell_move).
- ``source_cell_uuid``: the cell of the instance being moved (CrossCell
  weigher); None for a build.
- ``is_bfv``: boots from a volume (no root disk asked from placement).
"""

from nova_lite import exception


class InvalidSchedulerRequest(exception.Invalid):
    """A request the scheduler cannot turn into a query or evaluate.

    ``key`` names the offending flavor extra spec, image property or hint,
    so the NoValidHost explanation can tell the user what to fix.
    """

    msg_fmt = 'Invalid scheduling request: %(key)s: %(reason)s'

    def __init__(self, key, reason):
        self.key = key
        self.reason = reason
        super().__init__(key=key, reason=reason)


class Flavor:
    """The sizes and extra specs of the requested flavor."""

    def __init__(self, vcpus=1, memory_mb=512, root_gb=0, ephemeral_gb=0,
                 swap=0, extra_specs=None, name=None, flavorid=None):
        self.vcpus = vcpus
        self.memory_mb = memory_mb
        self.root_gb = root_gb
        self.ephemeral_gb = ephemeral_gb
        self.swap = swap
        self.extra_specs = dict(extra_specs or {})
        self.name = name
        self.flavorid = flavorid


class ImageMeta:
    """The image the instance boots from (only what scheduling reads)."""

    def __init__(self, id=None, disk_format=None, properties=None):
        self.id = id
        self.disk_format = disk_format
        self.properties = dict(properties or {})


class InstanceGroup:
    """A server group: policy, rules and where its members already are."""

    POLICIES = ('affinity', 'anti-affinity', 'soft-affinity',
                'soft-anti-affinity')

    def __init__(self, uuid=None, policy=None, rules=None, members=None,
                 hosts=None):
        self.uuid = uuid
        self.policy = policy
        self.rules = dict(rules or {})
        self.members = list(members or [])
        self.hosts = list(hosts or [])

    def count_on(self, host):
        """How many placed members run on ``host`` (a host name)."""
        return self.hosts.count(host)


class Destination:
    """Where a caller (a move, an admin) asks the instance to go."""

    def __init__(self, host=None, node=None, cell_uuid=None,
                 aggregates=None, forbidden_aggregates=None,
                 allow_cross_cell_move=False):
        self.host = host
        self.node = node
        self.cell_uuid = cell_uuid
        self.aggregates = list(aggregates or [])
        self.forbidden_aggregates = set(forbidden_aggregates or [])
        self.allow_cross_cell_move = allow_cross_cell_move


class RequestSpec:
    """One scheduling request (see the module docstring for the fields)."""

    def __init__(self, flavor=None, image=None, project_id=None,
                 user_id=None, availability_zone=None, scheduler_hints=None,
                 instance_group=None, num_instances=1, instance_uuid=None,
                 force_hosts=None, force_nodes=None, ignore_hosts=None,
                 requested_destination=None, source_cell_uuid=None,
                 is_bfv=False):
        self.flavor = flavor or Flavor()
        self.image = image or ImageMeta()
        self.project_id = project_id
        self.user_id = user_id
        self.availability_zone = availability_zone
        self.scheduler_hints = dict(scheduler_hints or {})
        self.instance_group = instance_group
        self.num_instances = num_instances
        self.instance_uuid = instance_uuid
        self.force_hosts = list(force_hosts or [])
        self.force_nodes = list(force_nodes or [])
        self.ignore_hosts = list(ignore_hosts or [])
        self.requested_destination = requested_destination
        self.source_cell_uuid = source_cell_uuid
        self.is_bfv = is_bfv

    def get_hint(self, name, default=None):
        """A scheduler hint as a single value (the first of a list)."""
        value = self.scheduler_hints.get(name)
        if isinstance(value, (list, tuple)):
            value = value[0] if value else None
        return default if value is None else value

    def get_hint_list(self, name):
        """A scheduler hint as a list (empty when absent)."""
        value = self.scheduler_hints.get(name)
        if value is None:
            return []
        if isinstance(value, (list, tuple)):
            return [v for v in value if v is not None]
        return [value]

    @property
    def group_policy(self):
        """The server group policy, or None without a group."""
        return self.instance_group.policy if self.instance_group else None
