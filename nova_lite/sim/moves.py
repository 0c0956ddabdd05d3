"""Resizes and migrations in a replay, confirmed at once.

As the cloud does it: the server's allocation passes to a migration
consumer while the scheduler picks a destination for the server's (new)
flavor, with its source host ignored (unless a resize may stay there:
``[DEFAULT] allow_resize_to_same_host``); the server then holds the
destination's allocation, and the migration's - the source's - is
dropped, as a confirm does. With no valid host the server keeps its
source allocation and host.
"""

from nova_lite import conf as nl_conf
from nova_lite import exception
from nova_lite.sim import cloud
from nova_lite.sim import runner

CONF = nl_conf.CONF


def move(replay, event):
    """Schedule ``event`` (resize or migrate) in ``replay``; its record
    (None when the server is not placed: never was, or deleted)."""
    found = replay.live.get(event['id'])
    if found is None:
        return None
    node, old_flavor = found
    uuid = cloud.server_uuid(event['id'])
    created = replay.created[event['id']]
    sized = event if event['action'] == 'resize' else created
    spec_event = {k: v for k, v in created.items()
                  if k not in ('flavor', 'resources')}
    spec_event.update({k: sized[k] for k in ('flavor', 'resources')
                       if k in sized})
    source = replay.hosts.hosts[node]
    ignore = [] if (event['action'] == 'resize' and
                    CONF.allow_resize_to_same_host) else [source]
    spec = runner.request_spec(replay.context, spec_event, replay.flavors,
                               ignore, replay.groups)
    placement = replay.placement
    held = placement.get_allocations(uuid)
    allocations = {rp: {'resources': a['resources']}
                   for rp, a in held['allocations'].items()}
    migration = cloud.server_uuid('%s@%s' % (event['id'], event['time']))
    placement.put_allocations(migration, allocations, held['project_id'],
                              held['user_id'], consumer_type='MIGRATION')
    placement.delete_allocations(uuid)
    record = {'time': event['time'], 'id': event['id'],
              'action': event['action'], 'from': source}
    try:
        selection = replay._schedule(spec, uuid)
    except exception.NoValidHost as err:
        placement.put_allocations(uuid, allocations, held['project_id'],
                                  held['user_id'])
        placement.delete_allocations(migration)
        record.update(result='NoValidHost',
                      reason=err.kwargs.get('reason') or str(err))
        replay._write(record, err.kwargs.get('decision'))
        return record
    placement.delete_allocations(migration)
    replay.hosts.removed(node, uuid, old_flavor)
    new_node = selection.compute_node_uuid
    replay.hosts.placed(new_node, uuid, spec.project_id)
    replay.live[event['id']] = (new_node, spec.flavor)
    record.update(result='placed', host=selection.service_host,
                  node=selection.nodename)
    replay._write(record, selection.decision)
    return record
