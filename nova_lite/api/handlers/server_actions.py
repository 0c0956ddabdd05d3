"""``POST /servers/{id}/action``: power and state actions on a server.

One action per body (``{"os-stop": null}``, ``{"reboot": {"type":
"SOFT"}}``...). Each is authorized against the server's owner, then the
compute API facade writes the task state in the server's cell and casts
to its compute; the answer is 202 with no body. A server in a state the
action does not apply to, or locked (for non-admins), is a 409.
"""

from oslo_utils import strutils
import webob.exc

from nova_lite.api import admin_password
from nova_lite.api.compute import shelve as compute_shelve
from nova_lite.api import microversion
from nova_lite.api.handlers import server_admin_actions
from nova_lite.api.handlers import floating_ips
from nova_lite.api.handlers import security_groups
from nova_lite.api.handlers import servers
from nova_lite.api import legacy_v2
from nova_lite.api import policy
from nova_lite.api import quota
from nova_lite.api.schemas import server_admin_actions as admin_schema
from nova_lite.api.schemas import server_live
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


def _rescue(req, api, context, server, body):
    """200 (not 202, as Nova keeps for compatibility) with the rescue
    guest's ``adminPass`` (the caller's or a generated one) when the
    deployment returns passwords."""
    args = body['rescue'] or {}
    password = admin_password.of_request(args)
    api.rescue(context, server, password,
               rescue_image_ref=args.get('rescue_image_ref'))
    return util.json_response(admin_password.add_to({}, password))


def _unrescue(req, api, context, server, body):
    api.unrescue(context, server)


def _lock(req, api, context, server, body):
    reason = (body.get('lock') or {}).get('locked_reason')
    api.lock(context, server, reason=reason)


def _unlock(req, api, context, server, body):
    api.unlock(context, server)


# ---- resize / cold migrate (api.compute.resize) ----

def _resize(req, api, context, server, body):
    flavor = servers._flavor(context, body['resize']['flavorRef'],
                             allow_disabled=True)
    api.resize(context, server, flavor,
               auto_disk_config=servers.disk_config(body['resize']))


def _migrate(req, api, context, server, body):
    """Before 2.56 the body is not looked at (Nova has no schema there:
    ``null`` and ``{}`` both do); from 2.56 an admin may name the
    destination host (os-migrate-server:migrate:host)."""
    host = None
    if microversion.at_least(req, '2.56'):
        host = (body.get('migrate') or {}).get('host')
    if host:
        policy.authorize(context, 'os-migrate-server:migrate:host',
                         servers._owner_target(server))
    api.migrate(context, server, host=host)


def _confirm_resize(req, api, context, server, body):
    api.confirm_resize(context, server)
    return util.no_content(204)


def _revert_resize(req, api, context, server, body):
    api.revert_resize(context, server)


# ---- live migration, evacuate, rebuild (api.compute.live) ----

def _migrate_live(req, api, context, server, body):
    """Admins; 202. ``block_migration`` may be ``"auto"`` (2.25); a host
    is checked by the scheduler unless ``force`` (2.30-2.67)."""
    args = body['os-migrateLive']
    block = args.get('block_migration')
    if block != 'auto':
        block = strutils.bool_from_string(block, strict=True)
    force = strutils.bool_from_string(args.get('force', False), strict=True)
    api.live_migrate(context, server, args.get('host'),
                     block_migration=block, force=force)


def _evacuate(req, api, context, server, body):
    """Admins; 200, with ``adminPass`` before 2.14 only (when the
    deployment returns passwords)."""
    args = body['evacuate']
    host = args.get('host')
    force = strutils.bool_from_string(args.get('force', False), strict=True)
    if force and not host:
        raise webob.exc.HTTPBadRequest(
            'Forced evacuation needs a target host.')
    password = admin_password.of_request(args)
    api.evacuate(context, server, host, admin_password=password,
                 force=force)
    body = {}
    if not microversion.at_least(req, '2.14'):
        body = admin_password.add_to({}, password)
    if not body:
        return util.no_content(200)
    return util.json_response(body)


def _rebuild(req, api, context, server, body):
    """The owner; 202 with the rebuilt server's view (Nova's reduced one
    below 2.75), ``adminPass`` and, from 2.57, ``user_data``."""
    args = body['rebuild']
    if args.get('trusted_image_certificates'):
        policy.authorize(context, 'servers:rebuild:trusted_certs')
    password = admin_password.of_request(args)
    values = {column: args[key] for key, column in (
        ('name', 'display_name'), ('description', 'display_description'),
        ('metadata', 'metadata'), ('hostname', 'hostname'),
        ('user_data', 'user_data'), ('key_name', 'key_name'))
        if key in args}
    servers.with_access_ips(server.instance, args, values)
    quota.check_metadata_items(context, args.get('metadata'))
    rebuilt = api.rebuild(
        context, server, args['imageRef'], admin_password=password,
        values=values,
        preserve_ephemeral=strutils.bool_from_string(
            args.get('preserve_ephemeral', False), strict=True),
        auto_disk_config=servers.disk_config(args))
    view = servers._detail_with_extras(req, rebuilt, mutation='rebuild')
    admin_password.add_to(view, password)
    if microversion.at_least(req, '2.57'):
        view['user_data'] = rebuilt.instance.user_data
    return util.json_response({'server': view}, status=202)


# ---- shelve / unshelve (api.compute.shelve) ----

def _shelve(req, api, context, server, body):
    api.shelve(context, server)


def _shelve_offload(req, api, context, server, body):
    api.shelve_offload(context, server)


def _unshelve_schema(req):
    if microversion.at_least(req, '2.91'):
        return schema.UNSHELVE_V2_91
    if microversion.at_least(req, '2.77'):
        return schema.UNSHELVE_V2_77
    return schema.UNSHELVE_V2_1


def _unshelve(req, api, context, server, body):
    """2.77: an availability zone; 2.91: a host (admins), or the zone
    None to unpin the server (the body checked by :func:`schema_for`)."""
    wanted = body['unshelve'] if microversion.at_least(req, '2.77') \
        else None
    wanted = wanted or {}
    host = wanted.get('host')
    if host:
        policy.authorize(context, 'os-shelve:unshelve_to_host',
                         servers._owner_target(server))
    api.unshelve(context, server,
                 availability_zone=wanted.get('availability_zone',
                                              compute_shelve.NOT_GIVEN),
                 host=host)


# ---- createImage (api.compute.snapshot) ----

def _create_image(req, api, context, server, body):
    """202; from 2.45 the body is ``{"image_id": ...}``, before it the
    ``Location`` header is ``<image endpoint>/images/<id>``, the
    unversioned form Nova's ``generate_image_url`` gives."""
    wanted = body['createImage']
    image = api.snapshot(context, server, wanted['name'],
                         wanted.get('metadata') or {})
    if microversion.at_least(req, '2.45'):
        return util.json_response({'image_id': image.uuid}, status=202)
    response = util.no_content(202)
    response.headers['Location'] = '%s/image/images/%s' % (
        req.application_url, image.uuid)
    return response


def _create_backup(req, api, context, server, body):
    """202; from 2.45 the body is ``{"image_id": ...}``; before it a
    ``Location`` of ``<compute endpoint>/images/<id>`` when the rotation
    keeps the backup (rotation > 0), as Nova answers. From 2.39 the
    metadata is not checked against the metadata_items quota."""
    wanted = body['createBackup']
    rotation = int(wanted['rotation'])
    image = api.backup(context, server, wanted['name'],
                       wanted['backup_type'], rotation,
                       wanted.get('metadata') or {},
                       check_quota=not microversion.at_least(req, '2.39'))
    if microversion.at_least(req, '2.45'):
        return util.json_response({'image_id': image.uuid}, status=202)
    response = util.no_content(202)
    if rotation > 0:
        response.headers['Location'] = '%s%s/images/%s' % (
            req.application_url, _version_prefix(req), image.uuid)
    return response


def _version_prefix(req):
    """``/v2.1`` or ``/v2``: the compute endpoint the request came to."""
    return legacy_v2.PREFIX if req.environ.get(legacy_v2.ENVIRON_KEY) \
        else '/v2.1'


def _console_output(req, api, context, server, body):
    """os-getConsoleOutput: the fake driver keeps no console log, so the
    answer is Nova's for a driver without one (501), once the server is
    known (an unknown one is a 404, as in Nova)."""
    raise webob.exc.HTTPNotImplemented(
        'Unable to get console log, functionality not implemented')


_CONSOLE_OUTPUT = {
    'type': 'object', 'properties': {'os-getConsoleOutput': {
        'type': 'object', 'properties': {'length': {
            'type': ['integer', 'string', 'null'],
            'pattern': '^-?[0-9]+$'}},
        'additionalProperties': False}},
    'required': ['os-getConsoleOutput'], 'additionalProperties': False}


# action -> (policy rule, function)
ACTIONS = {
    'os-getConsoleOutput': ('os-console-output', _console_output),
    'createImage': ('servers:create_image', _create_image),
    'createBackup': ('os-create-backup', _create_backup),
    'os-start': ('servers:start', _start),
    'os-stop': ('servers:stop', _stop),
    'reboot': ('servers:reboot', _reboot),
    'pause': ('os-pause-server:pause', _pause),
    'unpause': ('os-pause-server:unpause', _unpause),
    'suspend': ('os-suspend-server:suspend', _suspend),
    'resume': ('os-suspend-server:resume', _resume),
    'rescue': ('os-rescue', _rescue),
    'unrescue': ('os-unrescue', _unrescue),
    'lock': ('os-lock-server:lock', _lock),
    'unlock': ('os-lock-server:unlock', _unlock),
    # ---- resize / cold migrate ----
    'resize': ('servers:resize', _resize),
    'migrate': ('os-migrate-server:migrate', _migrate),
    'confirmResize': ('servers:confirm_resize', _confirm_resize),
    'revertResize': ('servers:revert_resize', _revert_resize),
    # ---- live migration, evacuate, rebuild ----
    'os-migrateLive': ('os-migrate-server:migrate_live', _migrate_live),
    'evacuate': ('os-evacuate', _evacuate),
    'rebuild': ('servers:rebuild', _rebuild),
    # ---- shelve / unshelve ----
    'shelve': ('os-shelve:shelve', _shelve),
    'shelveOffload': ('os-shelve:shelve_offload', _shelve_offload),
    'unshelve': ('os-shelve:unshelve', _unshelve),
    # ---- reset state, deferred delete (handlers/server_admin_actions) ----
    **server_admin_actions.ACTIONS,
    # ---- security groups (handlers/security_groups.py) ----
    **security_groups.ACTIONS,
    # ---- floating IPs, up to 2.43 (handlers/floating_ips.py) ----
    **floating_ips.ACTIONS,
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


def schema_for(req, name):
    if name in server_live.NAMES:
        return server_live.schema_for(req, name)
    if name == 'unshelve':
        return _unshelve_schema(req)
    if name == 'lock' and microversion.at_least(req, '2.73'):
        return schema.LOCK_V2_73
    if name == 'migrate' and not microversion.at_least(req, '2.56'):
        return {}
    if name in security_groups.ACTION_SCHEMAS:
        return security_groups.ACTION_SCHEMAS[name]
    if name == 'os-getConsoleOutput':
        return _CONSOLE_OUTPUT
    if name in floating_ips.ACTION_SCHEMAS:
        return floating_ips.ACTION_SCHEMAS[name]
    if name in server_admin_actions.ACTIONS:
        return {'os-resetState': admin_schema.RESET_STATE,
                'injectNetworkInfo': admin_schema.INJECT_NETWORK_INFO,
                'resetNetwork': admin_schema.RESET_NETWORK,
                'restore': admin_schema.RESTORE,
                'forceDelete': admin_schema.FORCE_DELETE}[name]
    return schema.ACTIONS[name]


def server_action(req):
    body = validation.parse_json(req)
    name = _action_name(body)
    rule, function = ACTIONS[name]
    server = servers.get_server(req, req.urlvars['server_id'], rule)
    validation.validate(body, schema_for(req, name))
    if server.down:
        raise webob.exc.HTTPServiceUnavailable(
            'The cell of server %s does not answer.' % server.uuid)
    # NOTE(nova_lite): an action answering other than 202 with no body
    # (confirmResize: 204) returns its response.
    response = function(req, servers.compute(req), util.context(req),
                        server, body)
    return response if response is not None else util.no_content(202)
