"""Check every response an in-process service gives against its OpenAPI
document.

:class:`ResponseChecker` wraps a WSGI app; each response it sees is
matched to its operation (path template, method), then to the response
the document gives for its status (the status itself, ``2XX``, or
``default`` for errors), and its JSON body validated against that
response's schema at the microversion the response names (a schema per
version range is an ``anyOf`` marked ``x-openstack: {discriminator:
microversion}``). A response the document does not allow raises
:class:`Violation`, which fails the test that made the request.
"""

import re

import jsonschema
from oslo_serialization import jsonutils

from nova_lite.wsgi import microversion as wsgi_microversion
from nova_lite.wsgi import openapi


JSON = 'application/json'


class Violation(AssertionError):
    """A response the service's OpenAPI document does not allow."""


def _template_regex(path):
    return re.compile('^%s$' % re.sub(r'\\{[^}]+\\}', '[^/]+',
                                      re.escape(path)))


def for_version(schema, version):
    """``schema`` resolved to ``version`` (a :class:`Violation` where no
    variant of a microversion ``anyOf`` holds)."""
    try:
        return openapi.for_version(schema, version)
    except LookupError as exc:
        raise Violation(str(exc))


class ResponseChecker:
    """WSGI middleware: ``app``'s responses checked against ``document``.

    :param document: a document, or {path prefix: document} for a process
        serving several services (nova-lite-api: ``/image``, ``/network``
        and the compute API at ``''``); a path no document describes is
        held to the error format of the document of its longest prefix.
    :param service_type: the microversion header's service name
        (``placement``), or None for a service without microversions.
    """

    def __init__(self, app, document, service_type=None):
        self.app = app
        self.documents = document if 'openapi' not in document else {
            '': document}
        self.service_type = service_type
        # Literal paths first: /servers/detail before /servers/{id}.
        self.templates = sorted(
            ((_template_regex(p), p, doc)
             for doc in self.documents.values() for p in doc['paths']),
            key=lambda item: (item[1].count('{'), item[1]))
        self.checked = 0

    def __call__(self, environ, start_response):
        captured = {}

        def capture(status, headers, exc_info=None):
            captured['status'] = int(status.split()[0])
            captured['headers'] = dict((k.lower(), v) for k, v in headers)
            return start_response(status, headers, exc_info)

        body = b''.join(self.app(environ, capture))
        self.check(environ['REQUEST_METHOD'], environ.get('PATH_INFO', ''),
                   captured['status'], captured['headers'], body)
        return [body]

    def _operation(self, method, path):
        """(the operation or None, the document answering ``path``)."""
        # The dispatchers ignore a trailing slash where they answer at all
        # (nova_lite.wsgi.router: lenient).
        if len(path) > 1:
            path = path.rstrip('/') or '/'
        for regex, template, doc in self.templates:
            if regex.match(path):
                return doc['paths'][template].get(method.lower()), doc
        prefix = max((p for p in self.documents
                      if path == p or path.startswith(p + '/') or not p),
                     key=len)
        return None, self.documents[prefix]

    def _version(self, headers):
        text = headers.get(wsgi_microversion.HEADER.lower(), '')
        parts = text.split()
        if self.service_type is None or len(parts) != 2:
            return None
        return wsgi_microversion.parse(parts[1])

    def _response(self, op, status):
        responses = op['responses'] if op else {}
        for key in (str(status), '%dXX' % (status // 100)):
            if key in responses:
                return responses[key]
        if status >= 400:
            return {'content': {'application/json': {'schema': {
                '$ref': '#/components/schemas/Error'}}}}
        raise Violation('status %d is not among %s' % (
            status, sorted(responses)))

    @staticmethod
    def _resolve(document, schema):
        ref = schema.get('$ref', '')
        if ref.startswith('#/components/schemas/'):
            return document['components']['schemas'][ref.rsplit('/', 1)[1]]
        return schema

    def check(self, method, path, status, headers, body):
        if method == 'HEAD' or method == 'OPTIONS':
            return
        op, document = self._operation(method, path)
        where = '%s %s -> %d' % (method, path, status)
        try:
            response = self._response(op, status)
        except Violation as exc:
            raise Violation('%s: %s' % (where, exc))
        contents = response.get('content', {})
        if not contents:
            if body and status < 400:
                raise Violation('%s: a body where the document gives none: '
                                '%r' % (where, body[:200]))
            return
        content = contents.get('application/json')
        if content is None:
            return
        if not headers.get('content-type', '').startswith(JSON):
            # An error may be negotiated to HTML or text (placement's
            # are, for a client that asks so); a success may not.
            if status < 400 and body:
                raise Violation('%s: content type %r, not JSON' % (
                    where, headers.get('content-type')))
            return
        try:
            data = jsonutils.loads(body)
        except ValueError:
            raise Violation('%s: not JSON: %r' % (where, body[:200]))
        schema = self._resolve(document, content['schema'])
        version = self._version(headers)
        if version is not None:
            schema = for_version(schema, version)
        errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(
            data), key=lambda e: list(e.absolute_path))
        self.checked += 1
        if errors:
            raise Violation('%s (version %s): %s at %s' % (
                where, version and wsgi_microversion.format_version(version),
                errors[0].message,
                '/'.join(map(str, errors[0].absolute_path)) or 'top'))
