"""Selection: one host the scheduler picked for an instance.

``select_destinations`` returns, per instance, a list of Selections: the
chosen host first, then alternates of the same cell. Each carries its own
placement allocation request, so a compute's cell conductor can claim an
alternate without asking the scheduler again.
"""

from oslo_serialization import jsonutils
from oslo_versionedobjects import fields

from nova_lite.objects import base


@base.NovaLiteObjectRegistry.register
class Selection(base.NovaLiteObject):
    """A scheduling choice.

    Versions: 1.0 initial.
    """

    VERSION = '1.0'

    fields = {
        'compute_node_uuid': fields.UUIDField(),
        'service_host': fields.StringField(),
        'nodename': fields.StringField(),
        'cell_uuid': fields.UUIDField(),
        # JSON text of placement's allocation request for this host.
        'allocation_request': fields.StringField(nullable=True),
        'allocation_request_version': fields.StringField(nullable=True),
        'availability_zone': fields.StringField(nullable=True),
        # JSON text of the scheduler's decision record for the instance
        # (on the chosen Selection only; see nova_lite.scheduler.decision).
        'decision': fields.StringField(nullable=True),
    }

    def decision_dict(self):
        """The decision record as a dict (None when there is none)."""
        if not self.obj_attr_is_set('decision') or not self.decision:
            return None
        return jsonutils.loads(self.decision)

    @classmethod
    def from_allocation_request(cls, host, nodename, compute_node_uuid,
                                cell_uuid, allocation_request,
                                allocation_request_version,
                                availability_zone=None):
        """Build a Selection from placement's candidate (a dict)."""
        return cls(compute_node_uuid=compute_node_uuid, service_host=host,
                   nodename=nodename, cell_uuid=cell_uuid,
                   allocation_request=jsonutils.dumps(allocation_request),
                   allocation_request_version=allocation_request_version,
                   availability_zone=availability_zone)

    def allocation_request_dict(self):
        """The allocation request as a dict (None when there is none)."""
        if self.allocation_request is None:
            return None
        return jsonutils.loads(self.allocation_request)
