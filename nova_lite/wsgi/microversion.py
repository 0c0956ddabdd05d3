"""Microversion negotiation shared by the REST services.

Clients ask with ``OpenStack-API-Version: <service type> X.Y`` (the
compute API also reads a legacy header); ``latest`` means the maximum and
no header the minimum. A malformed version is a 400, one out of range a
406. Every response, errors included, echoes the version served and
``Vary`` on the header(s). Each service describes itself with a
:class:`VersionTable`; what a version changes stays in the service.
"""

import collections

import microversion_parse
import webob.exc

from nova_lite.wsgi import layer

HEADER = 'OpenStack-API-Version'

# Set in the WSGI environ by a service's error renderer for a response that
# must not carry ``Vary`` (Placement: errors raised outside its handlers).
NO_VARY_ENVIRON = 'nova_lite.microversion.no_vary'

Version = collections.namedtuple('Version', 'major minor')

# The services word their 400/406 differently. ``{text}`` is what the
# client sent (or microversion-parse's complaint), ``{error}`` (400 for a
# malformed version) microversion-parse's reason, ``{min}``/``{max}`` the
# supported range.
Messages = collections.namedtuple('Messages',
                                  'bad_header bad_format unsupported')


def parse(text):
    """A :class:`Version` from ``'2.53'``; ValueError when malformed."""
    major, _, minor = str(text).strip().partition('.')
    if not (major.isdigit() and minor.isdigit()):
        raise ValueError(text)
    return Version(int(major), int(minor))


def _parse_error(text):
    """microversion-parse's complaint about a malformed version (what
    Placement quotes), or None when it would take ``text``."""
    try:
        microversion_parse.parse_version_string(text)
    except TypeError as exc:
        return str(exc)
    return None


def format_version(version):
    return '%d.%d' % tuple(version)


class VersionTable:
    """One service's supported range, header names and messages.

    :param environ_key: where the middleware puts the version served.
    :param legacy_header: a second request/response header, or None.
    :param vary: the ``Vary`` value every response carries.
    :param headers_on_bad_version: whether the 400/406 for a version that
        cannot be served carries the minimum's headers (Placement's has
        none).
    """

    def __init__(self, service_type, min_version, max_version, environ_key,
                 messages, legacy_header=None, vary=HEADER,
                 headers_on_bad_version=True):
        self.service_type = service_type
        self.min_version = min_version
        self.max_version = max_version
        self.environ_key = environ_key
        self.messages = messages
        self.legacy_header = legacy_header
        self.vary = vary
        self.headers_on_bad_version = headers_on_bad_version

    def _requested_text(self, environ):
        headers = microversion_parse.headers_from_wsgi_environ(environ)
        legacy = [self.legacy_header] if self.legacy_header else None
        return microversion_parse.get_version(
            headers, service_type=self.service_type, legacy_headers=legacy)

    def _message(self, template, text, error=None):
        return template.format(text=text, error=error or text,
                               min=format_version(self.min_version),
                               max=format_version(self.max_version))

    def extract(self, environ):
        """The version a request asks for; HTTP 400/406 when unusable."""
        try:
            text = self._requested_text(environ)
        except ValueError as exc:
            raise webob.exc.HTTPBadRequest(
                self._message(self.messages.bad_header, exc))
        if text is None:
            return self.min_version
        text = text.strip()
        if text == 'latest':
            return self.max_version
        try:
            version = parse(text)
        except ValueError:
            raise webob.exc.HTTPBadRequest(self._message(
                self.messages.bad_format, text, _parse_error(text)))
        if not self.min_version <= version <= self.max_version:
            raise webob.exc.HTTPNotAcceptable(
                self._message(self.messages.unsupported, text))
        return version

    def response_headers(self, version):
        """The headers every response carries for ``version``."""
        text = format_version(version)
        headers = {HEADER: '%s %s' % (self.service_type, text)}
        if self.legacy_header:
            headers[self.legacy_header] = text
        headers['Vary'] = self.vary
        return headers

    def of(self, req):
        """The microversion served for ``req`` (set by the middleware)."""
        return req.environ.get(self.environ_key, self.min_version)


class MicroversionMiddleware(layer.Layer):
    """Parse the requested microversion and echo it on the response.

    It sits before auth, so even a 401 says which version it speaks; a
    bad version is answered with the minimum's headers.
    """

    def __init__(self, app, versions, errors):
        self.app = app
        self.versions = versions
        self.errors = errors

    def handle(self, req):
        try:
            version = self.versions.extract(req.environ)
        except webob.exc.HTTPException as exc:
            response = self.errors.render(req, exc)
            if self.versions.headers_on_bad_version:
                self._decorate(req, response, self.versions.min_version)
            return response
        req.environ[self.versions.environ_key] = version
        response = self.call_app(req)
        self._decorate(req, response, version)
        return response

    def _decorate(self, req, response, version):
        for key, value in self.versions.response_headers(version).items():
            if key == 'Vary' and req.environ.get(NO_VARY_ENVIRON):
                continue
            response.headers[key] = value
