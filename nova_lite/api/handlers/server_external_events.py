"""POST /os-server-external-events: other services tell Nova about its
servers (Neutron's ``network-vif-plugged``, Ironic's ``power-update``).

Admins (and services) only. Each event gets its own ``code``: 200 when
it was handed to the server's compute, 404 for an unknown server, 400
for an event that needs a ``tag`` and has none, 422 for a server with no
host; the answer is 200 when every event was accepted, 207 otherwise.
A ``power-update`` (``POWER_ON`` / ``POWER_OFF``) starts a ``start`` /
``stop`` instance action here; its compute records the event and
changes the power and vm states (see :mod:`nova_lite.compute.
guest_info`). Events are cast to each host once, grouped.
"""

from oslo_log import log as logging

from nova_lite.api import microversion
from nova_lite.api import policy
from nova_lite.api.schemas import server_external_events as schema
from nova_lite.api import util
from nova_lite.api import validation
from nova_lite import cells
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite import exception
from nova_lite import objects

LOG = logging.getLogger(__name__)

_POWER_ACTIONS = {'POWER_ON': 'start', 'POWER_OFF': 'stop'}


def _find(context, uuid):
    """(cell mapping, instance) of ``uuid``, or (None, None)."""
    try:
        mapping = objects.InstanceMapping.get_by_instance_uuid(context,
                                                               uuid)
    except exception.InstanceMappingNotFound:
        return None, None
    if mapping.cell_mapping is None:
        return None, None
    with cells.target_cell(context, mapping.cell_mapping) as cctxt:
        try:
            return mapping.cell_mapping, objects.Instance.get_by_uuid(
                cctxt, uuid)
        except exception.InstanceNotFound:
            return None, None


def _accept(event, found):
    """The event's code (and status), as Nova decides it."""
    cell, instance = found
    if instance is None:
        return 404
    if event['name'] in schema.TAG_REQUIRED and event.get('tag') is None:
        return 400
    if not instance.host:
        return 422
    return 200


def _record_power_action(context, cell, instance, event):
    """True when the event goes to the compute (a power-update with an
    unknown tag is dropped, as in Nova)."""
    if event['name'] != 'power-update':
        return True
    action = _POWER_ACTIONS.get(event['tag'])
    if action is None:
        LOG.warning('Invalid power state %s: power-update for %s skipped',
                    event['tag'], instance.uuid)
        return False
    with cells.target_cell(context, cell) as cctxt:
        objects.InstanceAction.action_start(cctxt, instance.uuid, action)
    return True


def create_schema(req):
    """The body schema of POST at ``req``'s version."""
    return schema.create(lambda version: microversion.at_least(req, version))


def create_events(req):
    """POST: 200, or 207 when some event was not accepted."""
    context = util.context(req)
    policy.authorize(context, 'os-server-external-events:create')
    body = validation.body(req, create_schema(req))
    found = {}
    by_host = {}
    result = 200
    for event in body['events']:
        uuid = event['server_uuid']
        if uuid not in found:
            found[uuid] = _find(context, uuid)
        code = _accept(event, found[uuid])
        event['code'] = code
        event['status'] = 'completed' if code == 200 else 'failed'
        if code != 200:
            result = 207
            continue
        cell, instance = found[uuid]
        if _record_power_action(context, cell, instance, event):
            key = (cell.uuid, instance.host)
            by_host.setdefault(key, (cell, []))[1].append(
                {'name': event['name'], 'server_uuid': uuid,
                 'tag': event.get('tag'), 'status': event['status']})
    rpcapi = compute_rpcapi.ComputeAPI()
    for (_cell_uuid, host), (cell, events) in by_host.items():
        with cells.target_cell(context, cell) as cctxt:
            rpcapi.external_instance_event(cctxt, host, events)
    return util.json_response({'events': body['events']}, status=result)
