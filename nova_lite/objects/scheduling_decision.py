"""SchedulingDecision: why an instance landed where it did, as stored.

The scheduler hands its decision back with its Selections; the conductor
stores it in the instance's cell (:mod:`nova_lite.conductor.decisions`).
This is the read side, for the API's dashboard and ``nova-lite-manage
scheduler explain``: one object per scheduled action of the instance,
with ``attempts`` (the scheduler's, then each reschedule's; see
:mod:`nova_lite.scheduler.decision` for their keys).
"""

from oslo_serialization import jsonutils
from oslo_versionedobjects import fields

from nova_lite.objects import base


def _db():
    # NOTE(nova_lite): imported late (objects never load the SQL layer
    # at import).
    from nova_lite.db.cell import decision_api
    return decision_api


@base.NovaLiteObjectRegistry.register
class SchedulingDecision(base.NovaLiteObject):
    """A stored decision (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'instance_uuid': fields.UUIDField(),
        'action_id': fields.IntegerField(nullable=True),
        'request_id': fields.StringField(nullable=True),
        'kind': fields.StringField(nullable=True),
        'summary': fields.StringField(nullable=True),
        'record': fields.StringField(nullable=True),
        'created_at': fields.DateTimeField(nullable=True),
    }

    @classmethod
    def _from_db(cls, context, row):
        return base.obj_from_db(cls(context), row)

    @property
    def attempts(self):
        """The attempts, oldest first (dicts)."""
        try:
            record = jsonutils.loads(self.record or '{}')
        except ValueError:
            return []
        return record.get('attempts') or []

    @property
    def dropped_attempts(self):
        try:
            return jsonutils.loads(self.record or '{}').get(
                'dropped_attempts', 0)
        except ValueError:
            return 0


@base.NovaLiteObjectRegistry.register
class SchedulingDecisionList(base.NovaLiteObjectListBase,
                             base.NovaLiteObject):
    """Decisions of an instance, oldest first (versions: 1.0 initial)."""

    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('SchedulingDecision'),
    }

    @classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        rows = _db().decisions_get(context, instance_uuid)
        return cls(context, objects=[SchedulingDecision._from_db(context, r)
                                     for r in rows])

    @classmethod
    def summaries(cls, context, instance_uuids):
        """``{instance uuid: summary of its latest decision}``."""
        return _db().decisions_summaries(context, instance_uuids)
