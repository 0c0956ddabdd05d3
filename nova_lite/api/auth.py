"""Who a compute API request is, per ``[api] auth_strategy``.

The strategies themselves are shared with placement
(:mod:`nova_lite.wsgi.auth`); what is the compute API's own:

* ``noauth2`` (lab default): the token ``admin`` is an admin;
  ``user:project`` (or a plain ``user``, which is also its project) is a
  member of that project; the ``notused`` token the OpenStack clients send
  with ``auth_type: none`` is the member ``notused``. An ``X-Roles`` header
  replaces the member's roles (``X-Roles: reader`` makes a read-only user),
  as ``user:project:reader`` does.
* ``http_basic`` and ``keystone``: an identity that names no roles is a
  member and reader of a project of its own name (``[api]
  http_basic_admin_users`` are admins).
* The version documents (``/``, ``/v2.1``, ``/image/``) need no
  credentials.
"""

from nova_lite.api import faults
from nova_lite import context as nl_context
from nova_lite.wsgi import auth as wsgi_auth

CONTEXT_KEY = 'nova.context'
ADMIN_TOKEN = 'admin'
MEMBER_ROLES = ('member', 'reader')

# Paths answered without credentials (after stripping a trailing slash).
PUBLIC_PATHS = frozenset(['', '/v2.1', '/v2', '/image', '/image/versions'])
# The dashboard's login form (GET and POST; nova_lite.api.dashboard).
DASHBOARD_LOGIN = '/dashboard/login'


def _roles_header(req):
    value = req.headers.get('X-Roles')
    if not value:
        return None
    return [r.strip() for r in value.split(',') if r.strip()]


def noauth_context(token, request_id=None, roles=None):
    """The context noauth2 gives ``token`` (and optional ``X-Roles``)."""
    if token == ADMIN_TOKEN:
        return nl_context.RequestContext(
            user_id='admin', project_id='admin', is_admin=True,
            roles=['admin', 'member', 'reader'], request_id=request_id)
    parts = token.split(':')
    user = parts[0]
    project = parts[1] if len(parts) > 1 and parts[1] else user
    if roles is None and len(parts) > 2 and parts[2]:
        roles = parts[2].split(',')
    roles = list(roles or MEMBER_ROLES)
    return nl_context.RequestContext(
        user_id=user, project_id=project, is_admin='admin' in roles,
        roles=roles, request_id=request_id)


def _noauth_request_context(token, req):
    return noauth_context(token, req.environ.get('openstack.request_id'),
                          _roles_header(req))


def _is_public(environ):
    path = environ.get('PATH_INFO', '').rstrip('/')
    if path == DASHBOARD_LOGIN:
        return True
    return path in PUBLIC_PATHS and environ.get('REQUEST_METHOD') in (
        'GET', 'HEAD')


SETTINGS = wsgi_auth.AuthSettings(
    conf_group='api', context_key=CONTEXT_KEY, realm='nova-lite',
    missing_token='Authentication required: send X-Auth-Token.',
    noauth_context=_noauth_request_context, is_public=_is_public,
    errors=faults.ERRORS, member_roles=MEMBER_ROLES)
