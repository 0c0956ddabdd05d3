"""The dashboard's login: a credential kept in a cookie, handed to the
API's own authentication as the header it reads.

What the cookie holds, per ``[api] auth_strategy``: noauth2, the token
(the username: ``admin``); http_basic, the user and password the form
checked against the htpasswd file (sent back as ``Authorization:
Basic``); keystone, the token Keystone issued for the form's user,
password and project (``X-Auth-Token``; it expires with the token). The
cookie is HttpOnly, SameSite=Strict, limited to ``/dashboard`` (and
Secure over https).
"""

import base64
import http.cookies
import urllib.parse

from oslo_log import log as logging
from oslo_middleware import basic_auth
import requests
import webob
import webob.exc

LOG = logging.getLogger(__name__)

PREFIX = '/dashboard'
COOKIE = 'nl_dashboard'
LOGIN_PATH = PREFIX + '/login'
DATA_PREFIX = PREFIX + '/api/'


def is_dashboard(path):
    return path == PREFIX or path.startswith(PREFIX + '/')


class LoginFailed(Exception):
    """The form's credentials were refused (the message says why)."""


def _cookie_value(environ):
    raw = environ.get('HTTP_COOKIE')
    if not raw:
        return None
    jar = http.cookies.SimpleCookie()
    try:
        jar.load(raw)
    except http.cookies.CookieError:
        return None
    morsel = jar.get(COOKIE)
    return urllib.parse.unquote(morsel.value) if morsel else None


class CookieAuth:
    """For ``/dashboard`` requests: the cookie's credential as the
    request header; a page (not the data API) that needs a login is
    redirected to the form."""

    def __init__(self, app, conf):
        self.app = app
        self.conf = conf

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '')
        if not self.conf.dashboard.enabled or not is_dashboard(path):
            return self.app(environ, start_response)
        value = _cookie_value(environ)
        if value and not environ.get('HTTP_X_AUTH_TOKEN') and \
                not environ.get('HTTP_AUTHORIZATION'):
            if self.conf.api.auth_strategy == 'http_basic':
                environ['HTTP_AUTHORIZATION'] = 'Basic ' + value
            else:
                environ['HTTP_X_AUTH_TOKEN'] = value
        req = webob.Request(environ)
        resp = req.get_response(self.app)
        if resp.status_int == 401 and not path.startswith(DATA_PREFIX) \
                and path != LOGIN_PATH:
            resp = webob.exc.HTTPSeeOther(location=LOGIN_PATH)
            if value:
                forget(resp)
        return resp(environ, start_response)


def remember(req, resp, value):
    resp.set_cookie(COOKIE, urllib.parse.quote(value, safe=''),
                    path=PREFIX, httponly=True, samesite='strict',
                    secure=req.scheme == 'https')


def forget(resp):
    resp.delete_cookie(COOKIE, path=PREFIX)


def credential(conf, username, password, project=None):
    """What the cookie keeps for this login (LoginFailed if refused)."""
    strategy = conf.api.auth_strategy
    if not username:
        raise LoginFailed('A username is required.')
    if strategy == 'noauth2':
        return username
    if strategy == 'http_basic':
        try:
            basic_auth.authenticate(conf.api.http_basic_auth_user_file,
                                    username, password)
        except Exception as err:  # noqa: BLE001 - any refusal is a failure
            raise LoginFailed('The username or password is wrong.') from err
        return base64.b64encode(('%s:%s' % (username, password)).encode(
            'utf-8')).decode('ascii')
    return _keystone_token(conf, username, password,
                           project or conf.dashboard.login_project)


def _identity_url(conf):
    url = conf.dashboard.identity_url
    if not url:
        try:
            url = conf.keystone_authtoken.www_authenticate_uri
        except Exception:  # noqa: BLE001 - group not registered
            url = None
    if not url:
        raise LoginFailed('No identity service is configured '
                          '([dashboard] identity_url).')
    return url.rstrip('/')


def _keystone_token(conf, username, password, project):
    url = _identity_url(conf)
    if not url.endswith('/v3'):
        url += '/v3'
    domain = {'id': 'default'}
    body = {'auth': {
        'identity': {'methods': ['password'], 'password': {'user': {
            'name': username, 'domain': domain, 'password': password}}},
        'scope': {'project': {'name': project, 'domain': domain}}}}
    try:
        resp = requests.post(url + '/auth/tokens', json=body, timeout=10)
    except requests.RequestException as err:
        LOG.warning('Dashboard login: Keystone unreachable: %s', err)
        raise LoginFailed('The identity service cannot be reached.')
    if resp.status_code != 201 or not resp.headers.get('X-Subject-Token'):
        LOG.info('Dashboard login of %s refused by Keystone (%d)',
                 username, resp.status_code)
        raise LoginFailed('The username, password or project is wrong.')
    return resp.headers['X-Subject-Token']
