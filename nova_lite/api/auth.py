"""Authentication of compute API requests, one middleware per strategy.

Each strategy ends by putting a :class:`nova_lite.context.RequestContext`
in ``environ['nova.context']`` (``[api] auth_strategy``):

* ``noauth2`` (lab default): no check. The token ``admin`` is an admin;
  ``user:project`` (or a plain ``user``, which is also its project) is a
  member of that project; the ``notused`` token the OpenStack clients send
  with ``auth_type: none`` is the member ``notused``. An ``X-Roles`` header
  replaces the member's roles (``X-Roles: reader`` makes a read-only user),
  as ``user:project:reader`` does.
* ``http_basic``: a bcrypt htpasswd file (``[api]
  http_basic_auth_user_file``); the user is also its project, the users in
  ``[api] http_basic_admin_users`` are admins.
* ``keystone``: keystonemiddleware's auth_token, then the identity headers
  it sets.

The version documents (``/``, ``/v2.1``, ``/image/``) need no credentials;
:func:`wrap` routes them around the strategy.
"""

from keystonemiddleware import auth_token
from oslo_middleware import basic_auth
import webob
import webob.dec

from nova_lite.api import faults
from nova_lite import context as nl_context

CONTEXT_KEY = 'nova.context'
ADMIN_TOKEN = 'admin'
MEMBER_ROLES = ('member', 'reader')


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


class NoAuth:
    """noauth2: trust the X-Auth-Token header."""

    def __init__(self, app):
        self.app = app

    @webob.dec.wsgify
    def __call__(self, req):
        token = req.headers.get('X-Auth-Token', '').strip()
        if not token:
            return faults.fault_response(
                401, 'Authentication required: send X-Auth-Token.')
        req.environ[CONTEXT_KEY] = noauth_context(
            token, req.environ.get('openstack.request_id'),
            _roles_header(req))
        return req.get_response(self.app)


class ContextFromHeaders:
    """Build the context from the identity headers an auth layer set."""

    def __init__(self, app, admin_users=()):
        self.app = app
        self.admin_users = set(admin_users)

    @webob.dec.wsgify
    def __call__(self, req):
        ctx = nl_context.RequestContext.from_environ(req.environ)
        user = req.environ.get('HTTP_X_USER')
        ctx.user_id = ctx.user_id or user
        ctx.project_id = ctx.project_id or ctx.user_id
        ctx.roles = list(ctx.roles or MEMBER_ROLES)
        if user in self.admin_users or ctx.user_name in self.admin_users:
            ctx.roles = sorted(set(ctx.roles) | {'admin'})
        ctx.is_admin = 'admin' in ctx.roles
        req.environ[CONTEXT_KEY] = ctx
        return req.get_response(self.app)


class HttpBasic:
    """HTTP basic authentication against a bcrypt htpasswd file.

    oslo.middleware's own BasicAuthMiddleware also turns errors of the
    application behind it into 401s, so only its parsing and checking
    functions are used here.
    """

    def __init__(self, app, auth_file):
        self.app = app
        self.auth_file = auth_file
        basic_auth.validate_auth_file(auth_file)

    @webob.dec.wsgify
    def __call__(self, req):
        try:
            token = basic_auth.parse_header(req.environ)
            username, password = basic_auth.parse_token(token)
            identity = basic_auth.authenticate(self.auth_file, username,
                                               password)
        except Exception as exc:  # noqa: BLE001 - any failure is a 401
            return faults.fault_response(
                401, str(exc) or 'Authentication required.',
                {'WWW-Authenticate': 'Basic realm="nova-lite"'})
        req.environ.update(identity)
        return req.get_response(self.app)


def noauth2(app, conf):
    return NoAuth(app)


def http_basic(app, conf):
    return HttpBasic(ContextFromHeaders(app, conf.api.http_basic_admin_users),
                     conf.api.http_basic_auth_user_file)


def keystone(app, conf):
    return auth_token.AuthProtocol(ContextFromHeaders(app),
                                   {'oslo_config_config': conf})


STRATEGIES = {'noauth2': noauth2, 'http_basic': http_basic,
              'keystone': keystone}

# Paths answered without credentials (after stripping a trailing slash).
PUBLIC_PATHS = frozenset(['', '/v2.1', '/v2', '/image', '/image/versions'])


class SkipAuthForVersions:
    """Version documents go straight to the app; the rest through auth."""

    def __init__(self, authenticated, app):
        self.authenticated = authenticated
        self.app = app

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '').rstrip('/')
        if path in PUBLIC_PATHS and environ.get('REQUEST_METHOD') in (
                'GET', 'HEAD'):
            environ.setdefault(CONTEXT_KEY, nl_context.RequestContext(
                request_id=environ.get('openstack.request_id')))
            return self.app(environ, start_response)
        return self.authenticated(environ, start_response)


def wrap(app, conf):
    """``app`` behind the configured auth strategy."""
    strategy = STRATEGIES[conf.api.auth_strategy]
    return SkipAuthForVersions(strategy(app, conf), app)
