"""Who a placement request is, per ``[placement_api] auth_strategy``.

The strategies themselves are shared with the compute API
(:mod:`nova_lite.wsgi.auth`); what is placement's own:

* ``noauth2`` (labs only), as Placement's own noauth2: the token is
  ``user[:project]``; the roles are those of an ``X-Roles`` header, else
  ``admin`` for the user ``admin`` and none for anyone else; an
  ``X-Project-Id`` header names the project, and ``OpenStack-System-Scope``
  makes the token system scoped (no project). Placement's RBAC tests
  build their personas (project reader, service, system admin...) this way.
* ``http_basic`` and ``keystone``: the context carries the identity's own
  roles (``[placement_api] http_basic_admin_users`` are admins).
* The version document at ``/`` needs no authentication, as in Placement.
"""

from nova_lite import context as nl_context
from nova_lite.placement import faults
from nova_lite.wsgi import auth as wsgi_auth

CONTEXT_KEY = 'placement.context'
ADMIN_TOKEN = 'admin'


def noauth_context(token, request_id=None, roles=None, project_id=None,
                   system_scope=None):
    """The context noauth2 gives ``token``; ``roles``, ``project_id`` and
    ``system_scope`` are what the request's headers say, if anything."""
    user, _, token_project = token.partition(':')
    if roles is None:
        roles = [ADMIN_TOKEN] if user == ADMIN_TOKEN else []
    if project_id is None and not system_scope:
        project_id = token_project or user
    return nl_context.RequestContext(
        user_id=user, project_id=project_id, is_admin='admin' in roles,
        roles=roles, system_scope=system_scope, request_id=request_id)


def _noauth_request_context(token, req):
    roles = req.headers.get('X-Roles')
    return noauth_context(
        token, req.environ.get('openstack.request_id'),
        roles=[r.strip() for r in roles.split(',')] if roles is not None
        else None,
        project_id=req.headers.get('X-Project-Id'),
        system_scope=req.headers.get('OpenStack-System-Scope') or None)


def _is_public(environ):
    return environ.get('PATH_INFO', '') in ('', '/', '/openapi.json')


SETTINGS = wsgi_auth.AuthSettings(
    conf_group='placement_api', context_key=CONTEXT_KEY, realm='placement',
    missing_token='Missing X-Auth-Token header.',
    noauth_context=_noauth_request_context, is_public=_is_public,
    errors=faults.ERRORS)
