"""API database API: server groups, key pairs and quota limits.

Server groups come back with ``policy``, ``rules`` and ``members`` loaded.
Conventions as in :mod:`nova_lite.db.api.api`.
"""

from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.db.api import api as api_db
from nova_lite.db.api import models
from nova_lite.db import rows
from nova_lite.db import session
from nova_lite import exception

_writer = api_db._writer
_reader = api_db._reader


# -- server groups ----------------------------------------------------------

@session.retry_on_transient
def instance_group_create(context, values, policy=None, rules=None,
                          members=None):
    """Create a server group with its policy (and initial members)."""
    values = dict(values)
    values.setdefault('uuid', uuidutils.generate_uuid())
    group = models.InstanceGroup()
    group.update(values)
    if policy is not None:
        group.policy_rows = [models.InstanceGroupPolicy(policy=policy,
                                                        rules=rules or {})]
    group.member_rows = [models.InstanceGroupMember(instance_uuid=m)
                         for m in members or ()]
    with _writer(context) as s:
        s.add(group)
        s.flush()
    return group


def _group_get(s, group_uuid):
    return rows.first_or_raise(
        s, sa.select(models.InstanceGroup).where(
            models.InstanceGroup.uuid == group_uuid),
        exception.InstanceGroupNotFound(group_uuid=group_uuid))


@session.retry_on_transient
def instance_group_get(context, group_uuid):
    with _reader(context) as s:
        return _group_get(s, group_uuid)


@session.retry_on_transient
def instance_group_get_by_instance(context, instance_uuid):
    """The group ``instance_uuid`` is a member of (InstanceGroupNotFound)."""
    query = sa.select(models.InstanceGroup).join(
        models.InstanceGroupMember).where(
        models.InstanceGroupMember.instance_uuid == instance_uuid)
    with _reader(context) as s:
        return rows.first_or_raise(
            s, query,
            exception.InstanceGroupNotFound(group_uuid=instance_uuid))


@session.retry_on_transient
def instance_group_get_all(context, project_id=None):
    query = sa.select(models.InstanceGroup).order_by(models.InstanceGroup.id)
    if project_id is not None:
        query = query.where(models.InstanceGroup.project_id == project_id)
    with _reader(context) as s:
        return list(s.scalars(query))


def instance_group_policy(group):
    """(policy, rules) of a group row, (None, {}) without one."""
    if not group.policy_rows:
        return None, {}
    row = group.policy_rows[0]
    return row.policy, row.rules or {}


@session.retry_on_transient
def instance_group_members_add(context, group_uuid, instance_uuids):
    """Add members (already present ones are skipped); returns all."""
    with _writer(context) as s:
        group = _group_get(s, group_uuid)
        present = set(group.members)
        for instance_uuid in instance_uuids:
            if instance_uuid not in present:
                group.member_rows.append(models.InstanceGroupMember(
                    instance_uuid=instance_uuid))
                present.add(instance_uuid)
        s.flush()
        return group.members


@session.retry_on_transient
def instance_group_member_delete(context, instance_uuid):
    """Drop ``instance_uuid`` from whatever group holds it."""
    with _writer(context) as s:
        s.execute(sa.delete(models.InstanceGroupMember).where(
            models.InstanceGroupMember.instance_uuid == instance_uuid))


@session.retry_on_transient
def instance_group_delete(context, group_uuid):
    with _writer(context) as s:
        s.delete(_group_get(s, group_uuid))


# -- key pairs --------------------------------------------------------------

@session.retry_on_transient
def key_pair_create(context, values):
    keypair = models.KeyPair()
    keypair.update(values)
    return rows.insert(_writer(context), keypair, exception.KeyPairExists(
        key_name=values.get('name')))


@session.retry_on_transient
def key_pair_get(context, user_id, name):
    with _reader(context) as s:
        return rows.first_or_raise(
            s, sa.select(models.KeyPair).where(
                models.KeyPair.user_id == user_id,
                models.KeyPair.name == name),
            exception.KeypairNotFound(user_id=user_id, name=name))


@session.retry_on_transient
def key_pair_get_all_by_user(context, user_id):
    with _reader(context) as s:
        return list(s.scalars(sa.select(models.KeyPair).where(
            models.KeyPair.user_id == user_id).order_by(models.KeyPair.name)))


@session.retry_on_transient
def key_pair_destroy(context, user_id, name):
    with _writer(context) as s:
        count = s.execute(sa.delete(models.KeyPair).where(
            models.KeyPair.user_id == user_id,
            models.KeyPair.name == name)).rowcount
    if not count:
        raise exception.KeypairNotFound(user_id=user_id, name=name)


# -- quota limits -----------------------------------------------------------

@session.retry_on_transient
def quota_get_all_by_project(context, project_id):
    """{resource: hard_limit} set for the project."""
    with _reader(context) as s:
        return dict(s.execute(sa.select(
            models.Quota.resource, models.Quota.hard_limit).where(
            models.Quota.project_id == project_id)).all())


@session.retry_on_transient
def quota_get_all_by_project_and_user(context, project_id, user_id):
    """{resource: hard_limit} set for the user within the project."""
    with _reader(context) as s:
        return dict(s.execute(sa.select(
            models.ProjectUserQuota.resource,
            models.ProjectUserQuota.hard_limit).where(
            models.ProjectUserQuota.project_id == project_id,
            models.ProjectUserQuota.user_id == user_id)).all())


@session.retry_on_transient
def quota_set(context, project_id, resource, hard_limit, user_id=None):
    """Create or change a project (or project user) limit."""
    model = models.ProjectUserQuota if user_id else models.Quota
    keys = {'project_id': project_id, 'resource': resource}
    if user_id:
        keys['user_id'] = user_id
    with _writer(context) as s:
        row = s.scalars(sa.select(model).filter_by(**keys)).first()
        if row is None:
            row = model(hard_limit=hard_limit, **keys)
            s.add(row)
        else:
            row.hard_limit = hard_limit
        s.flush()
    return row


@session.retry_on_transient
def quota_destroy_all_by_project(context, project_id, user_id=None):
    """Forget the project's (or only that user's) limits."""
    with _writer(context) as s:
        s.execute(sa.delete(models.ProjectUserQuota).where(
            models.ProjectUserQuota.project_id == project_id,
            *([models.ProjectUserQuota.user_id == user_id]
              if user_id else [])))
        if not user_id:
            s.execute(sa.delete(models.Quota).where(
                models.Quota.project_id == project_id))
