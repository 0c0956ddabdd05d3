"""InstanceGroup: a server group, its policy, rules and members.

Groups live in the API database; the conductors read them again when they
schedule, so what the API holds here never travels.
"""

from nova_lite.db.api import group_api
from nova_lite.objects import record


class InstanceGroup(record.Record):
    """A server group; ``policy`` is None and ``rules`` {} without one."""

    FIELDS = ('id', 'uuid', 'name', 'project_id', 'user_id', 'members',
              'policy', 'rules', 'created_at', 'updated_at')

    @classmethod
    def _from_row(cls, context, row):
        policy, rules = group_api.instance_group_policy(row)
        return cls(context, id=row.id, uuid=row.uuid, name=row.name,
                   project_id=row.project_id, user_id=row.user_id,
                   members=row.members, policy=policy, rules=rules,
                   created_at=row.created_at, updated_at=row.updated_at)

    @classmethod
    def get_by_uuid(cls, context, group_uuid):
        """The group (InstanceGroupNotFound)."""
        return cls._from_row(context, group_api.instance_group_get(
            context, group_uuid))

    @classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        """The group ``instance_uuid`` is in (InstanceGroupNotFound)."""
        return cls._from_row(context, group_api.instance_group_get_by_instance(
            context, instance_uuid))

    @classmethod
    def get_all(cls, context, project_id=None):
        """Every group, or the project's."""
        return cls._from_rows(context, group_api.instance_group_get_all(
            context, project_id=project_id))

    @classmethod
    def create(cls, context, values, policy=None, rules=None):
        """A new group (``values``: name, project_id, user_id)."""
        row = group_api.instance_group_create(context, values,
                                              policy=policy, rules=rules)
        return cls.get_by_uuid(context, row.uuid)

    @classmethod
    def add_members(cls, context, group_uuid, instance_uuids):
        """Add instances to the group (those already in it stay once)."""
        group_api.instance_group_members_add(context, group_uuid,
                                             instance_uuids)

    @classmethod
    def delete_member(cls, context, instance_uuid):
        """Drop ``instance_uuid`` from whatever group holds it (a deleted
        server leaves its group; none is fine)."""
        group_api.instance_group_member_delete(context, instance_uuid)

    def destroy(self):
        group_api.instance_group_delete(self._context, self.uuid)
