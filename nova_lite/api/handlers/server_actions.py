"""``POST /servers/{id}/action``: power and state actions on a server.

One action per body (``{"os-stop": null}``, ``{"reboot": {"type":
"SOFT"}}``...). Each is authorized against the server's owner, then the
compute API facade writes the task state in the server's cell and casts
to its compute; the answer is 202 with no body. A server in a state the
action does not apply to, or locked (for non-admins), is a 409.
"""

import webob.exc

from nova_lite.api import microversion
from nova_lite.api.handlers import servers
from nova_lite.api.schemas import servers as schema
from nova_lite.api import util
from nova_lite.api import validation


def _start(req, api, context, server, body):
    api.start(context, server)


def _stop(req, api, context, server, body):
    api.stop(context, server)


def _reboot(req, api, context, server, body):
    api.reboot(context, server, body['reboot']['type'].upper())


def _pause(req, api, context, server, body):
    api.pause(context, server)


def _unpause(req, api, context, server, body):
    api.unpause(context, server)


def _suspend(req, api, context, server, body):
    api.suspend(context, server)


def _resume(req, api, context, server, body):
    api.resume(context, server)


def _lock(req, api, context, server, body):
    reason = (body.get('lock') or {}).get('locked_reason')
    api.lock(context, server, reason=reason)


def _unlock(req, api, context, server, body):
    api.unlock(context, server)


# ---- resize / cold migrate (compute.api_resize) ----

# ---- live migration, evacuate, rebuild (compute.api_live) ----

# ---- shelve / unshelve (compute.api_shelve) ----


# action -> (policy rule, function)
ACTIONS = {
    'os-start': ('servers:start', _start),
    'os-stop': ('servers:stop', _stop),
    'reboot': ('servers:reboot', _reboot),
    'pause': ('os-pause-server:pause', _pause),
    'unpause': ('os-pause-server:unpause', _unpause),
    'suspend': ('os-suspend-server:suspend', _suspend),
    'resume': ('os-suspend-server:resume', _resume),
    'lock': ('os-lock-server:lock', _lock),
    'unlock': ('os-lock-server:unlock', _unlock),
    # ---- resize / cold migrate ----
    # ---- live migration, evacuate, rebuild ----
    # ---- shelve / unshelve ----
}


def _action_name(body):
    if not isinstance(body, dict) or len(body) != 1:
        raise webob.exc.HTTPBadRequest(
            'Invalid input for field/attribute body: an action body has '
            'exactly one key, the action name.')
    name = next(iter(body))
    if name not in ACTIONS:
        raise webob.exc.HTTPBadRequest(
            'There is no such action: %s' % name)
    return name


def _schema_for(req, name):
    if name == 'lock' and microversion.at_least(req, '2.73'):
        return schema.LOCK_V2_73
    return schema.ACTIONS[name]


def server_action(req):
    body = validation.parse_json(req)
    name = _action_name(body)
    rule, function = ACTIONS[name]
    server = servers.get_server(req, req.urlvars['server_id'], rule)
    validation.validate(body, _schema_for(req, name))
    if server.down:
        raise webob.exc.HTTPServiceUnavailable(
            'The cell of server %s does not answer.' % server.uuid)
    function(req, servers.compute(req), util.context(req), server, body)
    return util.no_content(202)
