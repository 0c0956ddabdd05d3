"""Authentication middlewares of placement, one per ``auth_strategy``.

Each one ends by putting a :class:`nova_lite.context.RequestContext` in
``environ['placement.context']``:

* ``noauth2``: no check; the token ``admin`` is an admin, any other token
  (``user`` or ``user:project``) a plain member. For labs only.
* ``http_basic``: oslo.middleware's BasicAuthMiddleware against a bcrypt
  htpasswd file; the users named in ``http_basic_admin_users`` are admins.
* ``keystone``: keystonemiddleware's auth_token, then the identity headers
  it sets.

The version document at ``/`` needs no authentication, as in Placement.
"""

import json

from keystonemiddleware import auth_token
from oslo_middleware import base as mw_base
from oslo_middleware import basic_auth
import webob
import webob.dec

from nova_lite import context as nl_context
from nova_lite.placement import util

CONTEXT_KEY = 'placement.context'
ADMIN_TOKEN = 'admin'


def _unauthorized(req, detail):
    exc = webob.exc.HTTPUnauthorized(detail)
    return util.json_error_response(req, exc)


def noauth_context(token, request_id=None):
    """The context noauth2 gives ``token``."""
    if token == ADMIN_TOKEN:
        return nl_context.RequestContext(
            user_id='admin', project_id='admin', is_admin=True,
            roles=['admin', 'member', 'reader'], request_id=request_id)
    user, _, project = token.partition(':')
    return nl_context.RequestContext(
        user_id=user, project_id=project or user, is_admin=False,
        roles=['member', 'reader'], request_id=request_id)


class NoAuth:
    """noauth2: trust the X-Auth-Token header."""

    def __init__(self, app):
        self.app = app

    @webob.dec.wsgify
    def __call__(self, req):
        token = req.headers.get('X-Auth-Token')
        if not token:
            return _unauthorized(req, 'Missing X-Auth-Token header.')
        req.environ[CONTEXT_KEY] = noauth_context(
            token, req.environ.get('openstack.request_id'))
        return req.get_response(self.app)


class ContextFromHeaders:
    """Build the context from the identity headers an auth layer set."""

    def __init__(self, app, admin_users=()):
        self.app = app
        self.admin_users = set(admin_users)

    @webob.dec.wsgify
    def __call__(self, req):
        ctx = nl_context.RequestContext.from_environ(req.environ)
        if ctx.user_id is None:
            ctx.user_id = req.environ.get('HTTP_X_USER')
        if ctx.user_name in self.admin_users or (
                req.environ.get('HTTP_X_USER') in self.admin_users):
            ctx.roles = sorted(set(ctx.roles) | {'admin'})
            ctx.is_admin = True
        req.environ[CONTEXT_KEY] = ctx
        return req.get_response(self.app)


class _JsonBasicAuth(basic_auth.BasicAuthMiddleware):
    """BasicAuthMiddleware reading its own htpasswd file, answering in
    placement's JSON error shape."""

    def __init__(self, app, auth_file):
        mw_base.ConfigurableMiddleware.__init__(self, app)
        self.auth_file = auth_file
        basic_auth.validate_auth_file(auth_file)

    def format_exception(self, e):
        response = webob.Response(status=401, content_type=util.JSON,
                                  charset='utf-8')
        response.body = json.dumps(util.error_body(
            401, 'Unauthorized', str(e) or 'Authentication required',
            None, None)).encode('utf-8')
        response.headers['WWW-Authenticate'] = 'Basic realm="placement"'
        return response


def http_basic(app, conf):
    group = conf.placement_api
    return _JsonBasicAuth(
        ContextFromHeaders(app, group.http_basic_admin_users),
        group.http_basic_auth_user_file)


def keystone(app, conf):
    return auth_token.AuthProtocol(ContextFromHeaders(app),
                                   {'oslo_config_config': conf})


def noauth2(app, conf):
    return NoAuth(app)


STRATEGIES = {'noauth2': noauth2, 'http_basic': http_basic,
              'keystone': keystone}


class SkipAuthForRoot:
    """Send ``GET /`` straight to the app, everything else through auth."""

    def __init__(self, authenticated, app):
        self.authenticated = authenticated
        self.app = app

    def __call__(self, environ, start_response):
        if environ.get('PATH_INFO', '') in ('', '/'):
            environ.setdefault(CONTEXT_KEY, nl_context.RequestContext(
                request_id=environ.get('openstack.request_id')))
            return self.app(environ, start_response)
        return self.authenticated(environ, start_response)


def wrap(app, conf):
    strategy = STRATEGIES[conf.placement_api.auth_strategy]
    return SkipAuthForRoot(strategy(app, conf), app)
