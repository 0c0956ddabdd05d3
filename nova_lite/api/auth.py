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
* The version documents (``/``, ``/v2.1``) need no credentials; the
  deploy adds the other services' open paths (:func:`public_check`).
"""

from nova_lite.api import faults
from nova_lite import context as nl_context
from nova_lite.wsgi import auth as wsgi_auth

CONTEXT_KEY = 'nova.context'
ADMIN_TOKEN = 'admin'
MEMBER_ROLES = ('member', 'reader')

# Paths read without credentials (after stripping a trailing slash).
PUBLIC_PATHS = frozenset(['', '/v2.1', '/v2', '/v2.1/openapi.json'])


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


def public_check(read_paths, open_paths=()):
    """``is_public`` of a process: ``read_paths`` answer GET and HEAD
    without credentials, ``open_paths`` (a login form) every method."""
    read_paths = frozenset(read_paths)
    open_paths = frozenset(open_paths)

    def is_public(environ):
        path = environ.get('PATH_INFO', '').rstrip('/')
        if path in open_paths:
            return True
        return path in read_paths and environ.get('REQUEST_METHOD') in (
            'GET', 'HEAD')
    return is_public


SETTINGS = wsgi_auth.AuthSettings(
    conf_group='api', context_key=CONTEXT_KEY, realm='nova-lite',
    missing_token='Authentication required: send X-Auth-Token.',
    noauth_context=_noauth_request_context,
    is_public=public_check(PUBLIC_PATHS), errors=faults.ERRORS,
    member_roles=MEMBER_ROLES)
