"""Authentication of REST requests, one middleware per ``auth_strategy``.

Both services offer the same three strategies under the same option names
(in their own group, ``[api]`` or ``[placement_api]``); each ends by
putting a :class:`nova_lite.context.RequestContext` at the service's
environ key:

* ``noauth2`` (labs): no check, the ``X-Auth-Token`` header names the
  caller; the service says who a token is.
* ``http_basic``: a bcrypt htpasswd file; the users in
  ``http_basic_admin_users`` are admins.
* ``keystone``: keystonemiddleware's auth_token, then the identity headers
  it sets.

A 401 of ours is in the service's error format; the version documents
(the service says which paths) need no credentials.
"""

import dataclasses
import typing
import urllib.parse

from keystonemiddleware import auth_token
from oslo_middleware import basic_auth
import webob.exc

from nova_lite import context as nl_context
from nova_lite.wsgi import faults
from nova_lite.wsgi import layer


@dataclasses.dataclass(frozen=True)
class AuthSettings:
    """What differs between the services' authentication.

    :param conf_group: the option group holding ``auth_strategy``,
        ``http_basic_auth_user_file`` and ``http_basic_admin_users``.
    :param context_key: the environ key the request context goes in.
    :param realm: the realm a ``http_basic`` 401 names.
    :param missing_token: the message of noauth2's 401.
    :param noauth_context: ``(token, req) -> RequestContext`` for noauth2.
    :param is_public: ``(environ) -> bool``: answered without credentials.
    :param errors: the service's :class:`faults.ErrorFormat`.
    :param member_roles: the roles of an identity that names none; when
        given, such an identity is also its own project and is an admin
        exactly when it has the admin role.
    """

    conf_group: str
    context_key: str
    realm: str
    missing_token: str
    noauth_context: typing.Callable
    is_public: typing.Callable
    errors: faults.ErrorFormat
    member_roles: tuple = ()


def _unauthorized(settings, req, detail, headers=None):
    exc = webob.exc.HTTPUnauthorized(detail)
    for key, value in (headers or {}).items():
        exc.headers[key] = value
    return settings.errors.render(req, exc)


class NoAuth(layer.Layer):
    """noauth2: trust the X-Auth-Token header."""

    def __init__(self, app, settings):
        self.app = app
        self.settings = settings

    def handle(self, req):
        # python-glanceclient percent-encodes the token it sends
        # ("alice%3Aproj-a"): a noauth2 token names, never escapes.
        token = urllib.parse.unquote(
            req.headers.get('X-Auth-Token', '').strip())
        if not token:
            return _unauthorized(self.settings, req,
                                 self.settings.missing_token)
        req.environ[self.settings.context_key] = (
            self.settings.noauth_context(token, req))
        return self.call_app(req)


class ContextFromHeaders(layer.Layer):
    """Build the context from the identity headers an auth layer set."""

    def __init__(self, app, settings, admin_users=()):
        self.app = app
        self.settings = settings
        self.admin_users = set(admin_users)

    def handle(self, req):
        req.environ[self.settings.context_key] = self.context(req.environ)
        return self.call_app(req)

    def context(self, environ):
        ctx = nl_context.RequestContext.from_environ(environ)
        user = environ.get('HTTP_X_USER')
        ctx.user_id = ctx.user_id or user
        if self.settings.member_roles:
            ctx.project_id = ctx.project_id or ctx.user_id
            ctx.roles = list(ctx.roles or self.settings.member_roles)
            ctx.is_admin = 'admin' in ctx.roles
        if user in self.admin_users or ctx.user_name in self.admin_users:
            ctx.roles = sorted(set(ctx.roles) | {'admin'})
            ctx.is_admin = True
        return ctx


class HttpBasic(layer.Layer):
    """HTTP basic authentication against a bcrypt htpasswd file.

    oslo.middleware's own BasicAuthMiddleware also turns errors of the
    application behind it into 401s, so only its parsing and checking
    functions are used here.
    """

    def __init__(self, app, settings, auth_file):
        self.app = app
        self.settings = settings
        self.auth_file = auth_file
        basic_auth.validate_auth_file(auth_file)

    def handle(self, req):
        try:
            token = basic_auth.parse_header(req.environ)
            username, password = basic_auth.parse_token(token)
            identity = basic_auth.authenticate(self.auth_file, username,
                                               password)
        except Exception as exc:  # noqa: BLE001 - any failure is a 401
            return _unauthorized(
                self.settings, req, str(exc) or 'Authentication required.',
                {'WWW-Authenticate': 'Basic realm="%s"'
                 % self.settings.realm})
        req.environ.update(identity)
        return self.call_app(req)


def noauth2(app, conf, settings):
    return NoAuth(app, settings)


def http_basic(app, conf, settings):
    group = getattr(conf, settings.conf_group)
    return HttpBasic(
        ContextFromHeaders(app, settings, group.http_basic_admin_users),
        settings, group.http_basic_auth_user_file)


def keystone(app, conf, settings):
    return auth_token.AuthProtocol(ContextFromHeaders(app, settings),
                                   {'oslo_config_config': conf})


STRATEGIES = {'noauth2': noauth2, 'http_basic': http_basic,
              'keystone': keystone}


class SkipAuthForPublic(layer.Layer):
    """Public paths go straight to the app; the rest through auth."""

    def __init__(self, authenticated, app, settings):
        self.authenticated = authenticated
        self.app = app
        self.settings = settings

    def handle(self, req):
        environ = req.environ
        if self.settings.is_public(environ):
            environ.setdefault(self.settings.context_key,
                               nl_context.RequestContext(
                                   request_id=environ.get(
                                       'openstack.request_id')))
            return self.call_app(req)
        return self.call_app(req, self.authenticated)


def wrap(app, conf, settings):
    """``app`` behind the strategy the service's group configures."""
    strategy = STRATEGIES[getattr(conf, settings.conf_group).auth_strategy]
    return SkipAuthForPublic(strategy(app, conf, settings), app, settings)
