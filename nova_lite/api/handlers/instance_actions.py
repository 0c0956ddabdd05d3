"""os-instance-actions: what was done to a server, and by whom.

Actions are read from the server's cell DB; a server still being built
(no cell yet) has none. Events (and their tracebacks) are for admins by
default; 2.58 adds ``updated_at``, 2.62 the event ``host``/``hostId``,
2.84 the event ``details``.
"""

import hashlib

import webob.exc

from nova_lite.api import microversion
from nova_lite.api import policy
from nova_lite.api import util
from nova_lite import cells
from nova_lite import exception
from nova_lite.objects import instance_action as action_obj
from nova_lite.objects import instance_mapping as mapping_obj


def _mapping(req):
    context = util.context(req)
    server_id = req.urlvars['server_id']
    try:
        mapping = mapping_obj.InstanceMapping.get_by_instance_uuid(context,
                                                                   server_id)
    except exception.InstanceMappingNotFound:
        raise webob.exc.HTTPNotFound(
            'Instance %s could not be found.' % server_id)
    return mapping


def _action_view(req, action):
    item = {'action': action.action, 'instance_uuid': action.instance_uuid,
            'request_id': action.request_id, 'user_id': action.user_id,
            'project_id': action.project_id,
            'start_time': util.isotime_micro(action.start_time),
            'message': action.message}
    if microversion.at_least(req, '2.58'):
        item['updated_at'] = util.isotime_micro(action.updated_at or
                                                action.created_at)
    return item


def _host_id(project_id, host):
    if not host:
        return ''
    return hashlib.sha224(
        ('%s%s' % (project_id, host)).encode()).hexdigest()


def _event_view(req, context, action, event):
    item = {'event': event.event,
            'start_time': util.isotime_micro(event.start_time),
            'finish_time': util.isotime_micro(event.finish_time),
            'result': event.result}
    if context.is_admin:
        item['traceback'] = event.traceback
    if microversion.at_least(req, '2.62'):
        item['hostId'] = _host_id(action.project_id, event.host)
        if context.is_admin:
            item['host'] = event.host
    if microversion.at_least(req, '2.84') and policy.check(
            context, 'os-instance-actions:events:details',
            {'project_id': action.project_id}):
        item['details'] = event.details
    return item


def _in_cell(context, mapping, fn, *args):
    with cells.target_cell(context, mapping.cell_mapping) as cctxt:
        return fn(cctxt, *args)


def list_actions(req):
    """GET /servers/{server_id}/os-instance-actions."""
    context = util.context(req)
    mapping = _mapping(req)
    policy.authorize(context, 'os-instance-actions:list',
                     {'project_id': mapping.project_id,
                      'user_id': mapping.user_id})
    actions = []
    if mapping.cell_mapping is not None:
        actions = _in_cell(context, mapping,
                           action_obj.InstanceActionList.get_by_instance_uuid,
                           mapping.instance_uuid)
    return util.json_response({'instanceActions': [
        _action_view(req, a) for a in actions]})


def show_action(req):
    """GET /servers/{server_id}/os-instance-actions/{request_id}."""
    context = util.context(req)
    mapping = _mapping(req)
    policy.authorize(context, 'os-instance-actions:show',
                     {'project_id': mapping.project_id,
                      'user_id': mapping.user_id})
    request_id = req.urlvars['request_id']
    if mapping.cell_mapping is None:
        raise exception.InstanceActionNotFound(
            request_id=request_id, instance_uuid=mapping.instance_uuid)
    action = _in_cell(context, mapping,
                      action_obj.InstanceAction.get_by_request_id,
                      mapping.instance_uuid, request_id)
    item = _action_view(req, action)
    if policy.check(context, 'os-instance-actions:events',
                    {'project_id': action.project_id}):
        events = _in_cell(context, mapping,
                          action_obj.InstanceActionEventList.get_by_action,
                          action.id)
        item['events'] = [_event_view(req, context, action, e)
                          for e in events]
    return util.json_response({'instanceAction': item})


