"""OpenAPI 3.1 documents made from a service's route table and schemas.

Every REST service describes itself from what it serves: its route table
(path -> {method: handler}) gives the paths, methods and path parameters;
a table of :class:`Operation` (keyed by handler function) names the JSON
schemas its handlers validate requests with, and the response schemas
where the service has them. Nothing is written twice: a schema that
depends on the microversion is given as the function the handler itself
calls to pick it (``picker(req) -> schema``), and this module asks that
function at every microversion of the service to find the ranges.

Microversions follow the conventions of OpenStack's own OpenAPI
documents (the ``x-openstack`` extension of openstack/codegenerator):
one document per service covering every microversion;

* an operation that exists only for some versions carries
  ``x-openstack: {min-ver, max-ver}``;
* a body whose schema changes with the version is an ``anyOf`` of one
  schema per range, marked ``x-openstack: {discriminator: microversion}``,
  each carrying its ``min-ver``/``max-ver`` (a bound is left out where it
  is the service's own);
* an action resource (``POST .../action``, one body key naming the
  action) is an ``anyOf`` marked ``discriminator: action``, each schema
  carrying its ``action-name``.

codegenerator writes ``oneOf`` there; ``anyOf`` is used here because a
body valid under two versions' schemas (most are) must still be valid
under JSON Schema's own reading, which tools that do not know the
extension (validators, schemathesis) apply.

What a service does not describe yet is said in the document:
``x-nova-lite-missing`` on an operation lists ``request-body`` (a body the
handler checks in code, not by a schema) and ``response-body`` (no
response schema: the success response is ``2XX`` with an empty schema).
:func:`missing` lists them.
"""

import dataclasses
import re

import webob

from nova_lite.wsgi import microversion as wsgi_microversion
from nova_lite.wsgi import pipeline

OPENAPI_VERSION = '3.1.0'
JSON = 'application/json'
MISSING = 'x-nova-lite-missing'
BODY_METHODS = ('POST', 'PUT', 'PATCH')
_PARAM = re.compile(r'{([^}]+)}')

# Nova's fault body, which the compute API and the image service answer
# errors with.
FAULT = {
    'type': 'object', 'minProperties': 1, 'maxProperties': 1,
    'additionalProperties': {
        'type': 'object',
        'properties': {'code': {'type': 'integer'},
                       'message': {'type': 'string'}},
        'required': ['code', 'message']},
    'description': 'A fault: {"<name>": {"code": <status>, "message": '
                   '<text>}}, the name one of badRequest, itemNotFound, '
                   'conflict...'}


@dataclasses.dataclass(frozen=True)
class Operation:
    """What a handler validates and answers, beyond its route.

    Each schema is a dict, or a function of the request returning the
    dict the handler uses at that request's microversion.

    :param body: the JSON request body's schema.
    :param query: the query string's schema (an object whose properties
        are the parameters).
    :param actions: action name -> schema, for an action resource.
    :param no_body: a POST/PUT/PATCH that reads no body.
    :param media_type: the request body's media type, when not JSON.
    :param responses: status (text) -> schema, None for no body, or a
        :class:`Media`.
    """
    body: object = None
    query: object = None
    actions: dict = None
    no_body: bool = False
    media_type: str = JSON
    responses: dict = None


@dataclasses.dataclass(frozen=True)
class Media:
    """A response body of another media type than JSON."""
    media_type: str
    schema: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Service:
    """A service to describe.

    :param routes: its route table, path -> {method: handler}.
    :param operations: handler -> :class:`Operation`.
    :param versions: its microversions in order (text), or None.
    :param version_table: its :class:`wsgi_microversion.VersionTable`.
    :param error_schema: the schema of its error bodies.
    :param public: the paths answered without credentials (GET).
    :param tag_depth: how many path segments precede the resource name
        that tags an operation (``/v2.1/servers``: 1).
    :param healthcheck: describe the pipeline's ``/healthcheck`` too (it
        is no route of the table: :mod:`nova_lite.wsgi.pipeline`).
    :param responses: ``(METHOD, path) -> {status: schema}`` for the
        operations whose :class:`Operation` gives none: a handler serving
        several paths (the network service's collections) answers each
        in its own shape.
    :param bodies: ``(METHOD, path) -> schema`` of the request body, for
        the same reason.
    :param path_params: path parameter name, or ``(METHOD, path,
        name)`` for one operation's, -> its schema (or the function of
        the request picking it per microversion), where the service
        takes only some strings (a UUID), not any.
    """
    name: str
    title: str
    description: str
    routes: dict
    operations: dict
    error_schema: dict
    public: frozenset = frozenset()
    versions: tuple = None
    version_table: object = None
    tag_depth: int = 0
    healthcheck: bool = False
    responses: dict = None
    bodies: dict = None
    path_params: dict = None


# What the shared pipeline answers before any route table.
HEALTHCHECK = {
    'operationId': '%s:get' % pipeline.HEALTHCHECK_PATH,
    'summary': 'The health check (oslo.middleware), answered before '
               'authentication.',
    'tags': ['healthcheck'],
    'security': [],
    'responses': {'200': {'description': 'Healthy.', 'content': {
        'text/plain': {'schema': {'type': 'string'}}}}},
}


def versions_between(low, high):
    """Every ``major.minor`` text from ``low`` to ``high`` (one major)."""
    low = wsgi_microversion.parse(low)
    high = wsgi_microversion.parse(high)
    return tuple('%d.%d' % (low.major, minor)
                 for minor in range(low.minor, high.minor + 1))


def _request(service, text):
    req = webob.Request.blank('/')
    if service.version_table is not None and text is not None:
        req.environ[service.version_table.environ_key] = (
            wsgi_microversion.parse(text))
    return req


def serving_handler(make_document, respond):
    """A handler answering the document ``make_document()`` gives (made
    on first use), through ``respond(req, document)``."""
    made = []

    def openapi_document(req):
        """GET: 200 with this service's OpenAPI 3.1 document."""
        if not made:
            made.append(make_document())
        return respond(req, made[0])
    openapi_document.openapi = Operation(responses={'200': {
        'type': 'object', 'required': ['openapi', 'info', 'paths']}})
    return openapi_document


def _operation_of(service, handler, path=None, method=None):
    """The handler's :class:`Operation`, with the service's per-path
    response and body schemas where the operation gives none."""
    op = service.operations.get(handler) or getattr(
        handler, 'openapi', None)
    key = (method, path)
    responses = (service.responses or {}).get(key)
    body = (service.bodies or {}).get(key)
    if responses is None and body is None:
        return op
    op = op or Operation()
    changes = {}
    if responses is not None and not op.responses:
        changes['responses'] = responses
    if body is not None and op.body is None and not op.actions:
        changes['body'] = body
    return dataclasses.replace(op, **changes)


def _handler_range(service, handler):
    """(first, last) version text of a handler's microversion guard."""
    if not service.versions:
        return None, None
    first = getattr(handler, 'min_version', None) or service.versions[0]
    last = getattr(handler, 'max_version', None) or service.versions[-1]
    return first, last


def _in_range(service, first, last):
    versions = list(service.versions)
    return versions[versions.index(first):versions.index(last) + 1]


def probe(service, picker, first=None, last=None):
    """``[(schema, first, last)]``: the schema ``picker`` gives per range
    of consecutive versions where it gives the same one."""
    if not callable(picker):
        return [(picker, first, last)]
    if not service.versions:
        return [(picker(_request(service, None)), None, None)]
    ranges = []
    for text in _in_range(service, first or service.versions[0],
                          last or service.versions[-1]):
        schema = picker(_request(service, text))
        if ranges and ranges[-1][0] == schema:
            ranges[-1][2] = text
        else:
            ranges.append([schema, text, text])
    return [tuple(r) for r in ranges]


def _version_marks(service, first, last):
    marks = {}
    if first and first != service.versions[0]:
        marks['min-ver'] = first
    if last and last != service.versions[-1]:
        marks['max-ver'] = last
    return marks


def _versioned(service, ranges):
    """One schema, or an ``anyOf`` per microversion range."""
    if len(ranges) == 1:
        return dict(ranges[0][0] or {})
    variants = []
    for schema, first, last in ranges:
        variant = dict(schema or {})
        variant['x-openstack'] = _version_marks(service, first, last)
        variants.append(variant)
    return {'anyOf': variants,
            'x-openstack': {'discriminator': 'microversion'}}


def _actions_schema(service, actions, first, last):
    variants = []
    for name in sorted(actions):
        variant = _versioned(service, probe(service, actions[name],
                                            first, last))
        marks = dict(variant.get('x-openstack', {}))
        marks['action-name'] = name
        variant['x-openstack'] = marks
        variants.append(variant)
    # The body is the action's name and nothing else.
    return {'type': 'object', 'anyOf': variants, 'minProperties': 1,
            'maxProperties': 1, 'propertyNames': {'enum': sorted(actions)},
            'x-openstack': {'discriminator': 'action'}}


def _query_parameters(service, op, first, last):
    """One parameter per property of the query schema, across versions;
    a parameter known to some versions only carries them."""
    if op is None or op.query is None:
        return []
    ranges = probe(service, op.query, first, last)
    seen = {}
    for schema, low, high in ranges:
        for name, prop in (schema or {}).get('properties', {}).items():
            entry = seen.setdefault(name, {'schema': prop, 'low': low,
                                           'required': True})
            entry['high'] = high
            entry['required'] &= name in (schema or {}).get('required', ())
    params = []
    for name in sorted(seen):
        entry = seen[name]
        param = {'name': name, 'in': 'query',
                 'required': entry['required'], 'schema': entry['schema']}
        if service.versions:
            marks = _version_marks(service, entry['low'], entry['high'])
            if marks:
                param['x-openstack'] = marks
        params.append(param)
    return params


def _request_body(service, op, method, first, last, missing):
    if method not in BODY_METHODS or (op is not None and op.no_body):
        return None
    required = True
    if op is not None and op.actions:
        schema = _actions_schema(service, op.actions, first, last)
    elif op is not None and op.body is not None:
        ranges = probe(service, op.body, first, last)
        # A version that reads no body (its schema None) makes it optional.
        required = all(schema is not None for schema, _, _ in ranges)
        schema = _versioned(service, ranges)
    else:
        missing.append('request-body')
        schema = {}
    media_type = op.media_type if op is not None else JSON
    return {'required': required,
            'content': {media_type: {'schema': schema}}}


def _responses(service, op, first, last, missing):
    responses = {}
    for status, schema in sorted(((op and op.responses) or {}).items()):
        response = {'description': 'Success.'}
        if isinstance(schema, Media):
            response['content'] = {schema.media_type: {
                'schema': schema.schema}}
        elif schema is not None:
            response['content'] = {JSON: {'schema': _versioned(
                service, probe(service, schema, first, last))}}
        responses[status] = response
    if not responses:
        missing.append('response-body')
        responses['2XX'] = {
            'description': 'Success; the body is not described yet.',
            'content': {JSON: {'schema': {}}}}
    responses['default'] = {
        'description': 'An error, in the service\'s error format.',
        'content': {JSON: {'schema': {'$ref': '#/components/schemas/Error'}}}}
    return responses


def _summary(handler):
    """The first paragraph of the handler's docstring, on one line."""
    doc = (handler.__doc__ or '').strip()
    if not doc:
        return handler.__name__
    return ' '.join(line.strip() for line in
                    doc.split('\n\n')[0].splitlines())


def _tag(service, path):
    parts = [p for p in path.split('/') if p]
    if len(parts) <= service.tag_depth:
        return 'versions'
    return parts[service.tag_depth]


def operation(service, path, method, handler):
    """The OpenAPI operation object of ``method`` on ``path``."""
    op = _operation_of(service, handler, path, method)
    first, last = _handler_range(service, handler)
    missing = []
    result = {
        'operationId': '%s:%s' % (path, method.lower()),
        'summary': _summary(handler),
        'tags': [_tag(service, path)],
    }
    if service.versions:
        marks = _version_marks(service, first, last)
        if marks:
            result['x-openstack'] = marks
    given = service.path_params or {}
    params = [{'name': name, 'in': 'path', 'required': True,
               'schema': _versioned(service, probe(
                   service, given.get((method, path, name)) or
                   given.get(name) or {'type': 'string'}, first, last))}
              for name in _PARAM.findall(path)]
    params += _query_parameters(service, op, first, last)
    if service.versions:
        params.append({'$ref': '#/components/parameters/microversion'})
    if params:
        result['parameters'] = params
    body = _request_body(service, op, method, first, last, missing)
    if body is not None:
        result['requestBody'] = body
    result['responses'] = _responses(service, op, first, last, missing)
    if path in service.public and method == 'GET':
        result['security'] = []
    if missing:
        result[MISSING] = missing
    return result


def _components(service):
    components = {
        'schemas': {'Error': service.error_schema},
        'securitySchemes': {
            'token': {'type': 'apiKey', 'in': 'header',
                      'name': 'X-Auth-Token',
                      'description': 'A Keystone token, or with '
                                     'auth_strategy noauth2 the caller '
                                     '(admin, or user:project).'},
            'basic': {'type': 'http', 'scheme': 'basic',
                      'description': 'auth_strategy http_basic.'}},
    }
    if service.versions:
        table = service.version_table
        components['parameters'] = {'microversion': {
            'name': wsgi_microversion.HEADER, 'in': 'header',
            'required': False,
            'description': '"%s X.Y" or "%s latest", %s to %s; without '
                           'it, %s.' % (
                               table.service_type, table.service_type,
                               service.versions[0], service.versions[-1],
                               service.versions[0]),
            'schema': {'type': 'string', 'enum': [
                '%s %s' % (table.service_type, v)
                for v in service.versions + ('latest',)]}}}
    return components


def document(service):
    """The OpenAPI 3.1 document of ``service``, as a dict."""
    paths = {}
    for path in sorted(service.routes):
        methods = service.routes[path]
        paths[path] = {
            method.lower(): operation(service, path, method, handler)
            for method, handler in sorted(methods.items())}
    if service.healthcheck:
        paths[pipeline.HEALTHCHECK_PATH] = {'get': HEALTHCHECK}
    info = {'title': service.title, 'version': (
        service.versions[-1] if service.versions else '1.0'),
        'description': service.description}
    return {
        'openapi': OPENAPI_VERSION,
        'info': info,
        'servers': [{'url': '/', 'description': (
            'The root of the process serving it; the paths are the ones '
            'it serves.')}],
        'security': [{'token': []}, {'basic': []}],
        'paths': paths,
        'components': _components(service),
    }


def missing(doc):
    """``[(path, method, what)]``: what ``doc`` does not describe yet."""
    return [(path, method.upper(), what)
            for path, methods in sorted(doc['paths'].items())
            for method, op in sorted(methods.items())
            for what in op.get(MISSING, ())]


def served(routes, healthcheck=False):
    """``{(path, METHOD)}`` of a route table (and the pipeline's health
    check)."""
    result = {(path, method) for path, methods in routes.items()
              for method in methods}
    if healthcheck:
        result.add((pipeline.HEALTHCHECK_PATH, 'GET'))
    return result


def described(doc):
    """``{(path, METHOD)}`` a document describes."""
    return {(path, method.upper()) for path, methods in doc['paths'].items()
            for method in methods}


def one(key, item=None):
    """A body ``{key: item}`` (item an object unless given)."""
    return {'type': 'object', 'required': [key],
            'properties': {key: item or {'type': 'object'}}}


def many(key, item=None, extra=None):
    """A body ``{key: [item, ...]}`` (and ``extra`` properties, such as a
    collection's ``<key>_links``)."""
    schema = one(key, {'type': 'array',
                       'items': item or {'type': 'object'}})
    schema['properties'].update(extra or {})
    return schema


def fields(required=(), **types):
    """An object with these properties (``name=schema``; a text is a
    JSON type, ``'string?'`` one that may be null) and these required."""
    props = {}
    for name, kind in types.items():
        if isinstance(kind, str):
            nullable = kind.endswith('?')
            kind = kind.rstrip('?')
            kind = {'type': [kind, 'null'] if nullable else kind}
        props[name.replace('__', ':')] = kind
    schema = {'type': 'object', 'properties': props}
    if required:
        schema['required'] = list(required)
    return schema


UUID = {'type': 'string', 'format': 'uuid'}


def _version_in(marks, version):
    low, high = marks.get('min-ver'), marks.get('max-ver')
    return ((low is None or version >= wsgi_microversion.parse(low)) and
            (high is None or version <= wsgi_microversion.parse(high)))


def for_version(schema, version):
    """``schema`` with each microversion ``anyOf`` resolved to the
    variant of ``version`` (a parsed microversion); LookupError where no
    variant holds at that version."""
    if isinstance(schema, dict):
        marks = schema.get('x-openstack', {})
        if marks.get('discriminator') == 'microversion':
            for variant in schema['anyOf']:
                if _version_in(variant.get('x-openstack', {}), version):
                    variant = {k: v for k, v in variant.items()
                               if k != 'x-openstack'}
                    return for_version(variant, version)
            raise LookupError('no schema for version %s' % (version,))
        return {k: for_version(v, version) for k, v in schema.items()}
    if isinstance(schema, list):
        return [for_version(item, version) for item in schema]
    return schema


def _operation_at(op, version):
    """``op`` at ``version``; None where it does not exist then."""
    if not _version_in(op.get('x-openstack', {}), version):
        return None
    header = '#/components/parameters/microversion'
    op = dict(op)
    params = [p for p in op.get('parameters', ())
              if p.get('$ref') != header and
              _version_in(p.get('x-openstack', {}), version)]
    if params:
        op['parameters'] = params
    else:
        op.pop('parameters', None)
    try:
        return for_version(op, version)
    except LookupError:
        # A body no version's schema describes there (the operation's
        # own guard is narrower than its schema picker's).
        return None


def at_version(doc, text):
    """``doc`` as a client of microversion ``text`` sees it: only the
    operations and query parameters that exist at that version, each
    schema the one of that version, and no microversion header parameter
    (the client sends ``text``). Tools that know nothing of
    ``x-openstack`` (schemathesis) read it as plain OpenAPI."""
    version = wsgi_microversion.parse(text)
    paths = {}
    for path, methods in doc['paths'].items():
        ops = {method: _operation_at(op, version)
               for method, op in methods.items()}
        ops = {method: op for method, op in ops.items() if op is not None}
        if ops:
            paths[path] = ops
    components = dict(doc['components'])
    components.pop('parameters', None)
    return dict(doc, paths=paths, components=components,
                info=dict(doc['info'], version=text))
