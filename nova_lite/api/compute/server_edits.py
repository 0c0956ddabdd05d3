"""Edits the API makes to a server's row in its cell, with no compute
involved (metadata, tags, password), and the states that allow them.

As in Nova, metadata and tags change only on a server that is settled
(active, paused, suspended or stopped); metadata also needs no task in
progress and, for non-admins, an unlocked server. Anything else is a
409.
"""

from nova_lite.api.compute import actions
from nova_lite import cells
from nova_lite.compute import vm_states
from nova_lite import exception

SETTLED = (vm_states.ACTIVE, vm_states.PAUSED, vm_states.SUSPENDED,
           vm_states.STOPPED)


def check_settled(context, server, action, check_lock=False,
                  no_task=False):
    """The server's instance if it may be edited; 409 otherwise."""
    if server.build_request or server.cell is None:
        raise exception.InstanceInvalidState(
            action=action, uuid=server.uuid, attr='vm_state',
            state=vm_states.BUILDING)
    instance = server.instance
    if check_lock:
        actions.check_not_locked(context, instance)
    if instance.vm_state not in SETTLED:
        raise exception.InstanceInvalidState(
            action=action, uuid=instance.uuid, attr='vm_state',
            state=instance.vm_state)
    if no_task and instance.task_state is not None:
        raise exception.InstanceInvalidState(
            action=action, uuid=instance.uuid, attr='task_state',
            state=instance.task_state)
    return instance


def save(context, server, values):
    """Write ``values`` into the server's row in its cell."""
    instance = server.instance
    with cells.target_cell(context, server.cell) as cctxt:
        instance._context = cctxt
        instance.obj_reset_changes()
        for name, value in values.items():
            setattr(instance, name, value)
        instance.save()
    return instance


# The tag filters of GET /servers (2.26), comma-separated lists.
TAG_FILTERS = ('tags', 'tags-any', 'not-tags', 'not-tags-any')


def tags_of(instance):
    """The tags of an instance (a list, maybe empty)."""
    return list((instance.extra or {}).get('tags') or [])


def add_tag_filters(query, filters):
    """The tag filters of a server list query into ``filters``."""
    for name in TAG_FILTERS:
        if query.get(name):
            filters[name] = [t for t in query[name].split(',') if t]
