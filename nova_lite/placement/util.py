"""Request and response helpers shared by the placement handlers.

Only HTTP concerns live here: JSON bodies checked against schemas, query
strings checked against schemas, the JSON error shape, cache headers. No SQL.
"""

import datetime
import json

import jsonschema
from oslo_utils import uuidutils
import webob
import webob.acceptparse
import webob.exc

from nova_lite.placement import errors
from nova_lite.placement import microversion
from nova_lite.placement import schema_check
from nova_lite.wsgi import microversion as wsgi_microversion

JSON = 'application/json'


def error_body(status_int, title, detail, code, request_id, version=None):
    """The placement/API-SIG error document, as Placement words it:
    ``code`` only from 1.23, and a 406 for a version it could not serve
    names the versions it can."""
    error = {
        'status': status_int,
        'title': title,
        'detail': detail,
        'request_id': request_id,
    }
    if version is not None and version >= (1, 23):
        error['code'] = code or errors.DEFAULT
    if status_int == 406 and version is None:
        error['max_version'] = wsgi_microversion.format_version(
            microversion.MAX_VERSION)
        error['min_version'] = wsgi_microversion.format_version(
            microversion.MIN_VERSION)
    return {'errors': [error]}


def webob_detail(req, exc):
    """The ``detail`` Placement sends: webob's plain rendering of the
    error, its explanation of the status, a blank line, then the message
    and trailing blanks ("...incorrect.\\n\\n <message>  "). Placement's
    JSON errors are webob's body run through its formatter, and clients and
    tests match it, so it is copied even though it reads badly (see
    doc/placement-compat.md)."""
    def as_detail(body, status, title, environ):
        return webob.exc.strip_tags(body)
    # NOTE(nova_lite): json_body renders the exception's template the way
    # webob's own formatters see it; the formatter keeps only the text.
    exc.json_formatter = as_detail
    return json.loads(exc.json_body(req.environ))


def _error_media_type(req):
    """JSON unless the client asks otherwise, as in Placement: no Accept
    (or ``*/*``) means JSON; else the better of HTML and JSON for its
    Accept, and plain text when it takes neither."""
    accept = req.environ.get('HTTP_ACCEPT')
    if not accept or accept == '*/*':
        return JSON
    offers = webob.acceptparse.create_accept_header(accept).acceptable_offers(
        ['text/html', JSON])
    return offers[0][0] if offers else 'text/plain'


def json_error_response(req, exc):
    """Turn a webob HTTP error into a response in placement's shape: the
    JSON ``errors`` document, or webob's HTML or text page for a client
    that accepts HTML or neither (as Placement, whose errors are webob's)."""
    # NOTE(nova_lite): the error code rides in webob's ``comment``; as in
    # Placement it is taken out before rendering, or the page shows it.
    code = getattr(exc, 'comment', None) or errors.DEFAULT
    exc.comment = None
    if _error_media_type(req) != JSON:
        return req.get_response(exc)
    request_id = req.environ.get('openstack.request_id')
    body = error_body(exc.code, exc.title, webob_detail(req, exc), code,
                      request_id,
                      req.environ.get(microversion.ENVIRON_KEY))
    response = webob.Response(status=exc.status, content_type=JSON,
                              charset='utf-8')
    response.body = json.dumps(body).encode('utf-8')
    for name, value in exc.headers.items():
        if name.lower() in ('allow', 'location', 'www-authenticate'):
            response.headers[name] = value
    return response


def json_response(data, status=200, last_modified=None, req=None,
                  modified_now=True):
    """A JSON response; GETs at 1.15+ also get cache headers
    (``modified_now=False``: no last-modified when there is no stamp)."""
    response = webob.Response(status=status, content_type=JSON,
                              charset='utf-8')
    response.body = json.dumps(data).encode('utf-8')
    if req is not None:
        add_cache_headers(req, response, last_modified, modified_now)
    return response


def no_content(status=204):
    response = webob.Response(status=status)
    response.content_type = None
    return response


def add_cache_headers(req, response, last_modified=None, modified_now=True):
    """From 1.15, no-cache and last-modified on what a GET, PUT or POST
    answers with a body (Placement sets them on writes too)."""
    if req.method not in ('GET', 'PUT', 'POST') or (
            microversion.of(req) < (1, 15)):
        return
    response.cache_control = 'no-cache'
    if last_modified is None and not modified_now:
        return
    # NOTE(nova_lite): naive datetimes from the DB are UTC; webob formats
    # them as an HTTP date.
    response.last_modified = last_modified or _now()


def _now():
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def latest(*stamps):
    """The newest of several timestamps (None ignored)."""
    present = [s for s in stamps if s is not None]
    return max(present) if present else None


def generation_conflict():
    """409 for a provider generation the client had wrong (traits and
    aggregates), in Placement's words."""
    return webob.exc.HTTPConflict(
        "Resource provider's generation already changed. Please update the "
        "generation and try again.", comment=errors.CONCURRENT_UPDATE)


def bad_request(message, code=errors.DEFAULT):
    return webob.exc.HTTPBadRequest(message, comment=code)


def _schema_error_message(exc):
    """Placement's text: jsonschema's whole report (the message, then
    "Failed validating 'maximum' in schema..." and the instance), which
    clients and upstream's tests match."""
    return 'JSON does not validate: %s' % exc


_FORMAT_CHECKER = jsonschema.FormatChecker()


@_FORMAT_CHECKER.checks('uuid')
def _uuid_like(instance):
    """Placement's 'uuid' format: with or without dashes (jsonschema's own
    checker insists on them)."""
    return not isinstance(instance, str) or uuidutils.is_uuid_like(instance)
_VALIDATORS = {}
_VALIDATOR_CACHE_SIZE = 256


def _validator_for(schema, format_checker=None):
    """(quick check or None, validator) for ``schema``, its meta-schema
    checked once.

    ``jsonschema.validate`` re-checks the schema itself on every call
    (more than the rest of a small request costs); schemas are module
    constants, so one validator each is kept, with
    :mod:`schema_check`'s function that says yes to a valid document
    without jsonschema. The cache holds the schema object, so its id
    cannot be reused by another dict while the entry lives.
    """
    key = (id(schema), format_checker is not None)
    entry = _VALIDATORS.get(key)
    if entry is None or entry[0] is not schema:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        if len(_VALIDATORS) >= _VALIDATOR_CACHE_SIZE:
            _VALIDATORS.clear()
        entry = (schema, schema_check.compile_check(
            schema, uuid_format=format_checker is not None),
            cls(schema, format_checker=format_checker))
        _VALIDATORS[key] = entry
    return entry[1:]


def _check(data, schema, format_checker=None):
    quick, validator = _validator_for(schema, format_checker)
    if quick is not None and quick(data):
        return
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        raise error


def validate(data, schema):
    """400 naming the offending field when ``data`` breaks ``schema``."""
    try:
        _check(data, schema, _FORMAT_CHECKER)
    except jsonschema.ValidationError as exc:
        raise bad_request(_schema_error_message(exc))


def extract_json(req, schema):
    """The request body parsed as JSON and validated against ``schema``."""
    content_type = (req.content_type or '').lower()
    if content_type != JSON:
        raise webob.exc.HTTPUnsupportedMediaType(
            'The media type %s is not supported, use application/json'
            % (content_type or 'None'), comment=errors.DEFAULT)
    try:
        data = json.loads(req.body.decode('utf-8'))
    except (ValueError, UnicodeDecodeError) as exc:
        raise bad_request('Malformed JSON: %s' % exc)
    validate(data, schema)
    return data


def query_params(req, schema):
    """The query string as a dict of strings, validated against ``schema``.

    A parameter the schema declares an array keeps every value; any other
    keeps its last one, as in Placement (which validates ``dict(req.GET)``).
    """
    params = {}
    props = schema.get('properties', {})
    for key in set(req.GET.keys()):
        values = req.GET.getall(key)
        if props.get(key, {}).get('type') == 'array':
            params[key] = values
        else:
            params[key] = values[-1]
    try:
        _check(params, schema)
    except jsonschema.ValidationError as exc:
        raise bad_request('Invalid query string parameters: %s' % exc)
    return params


def require_uuid(value, what='uuid'):
    if not uuidutils.is_uuid_like(value):
        raise bad_request('Malformed %s: %r is not a valid UUID.'
                          % (what, value))
    return value


def wsgi_path_item(environ, name):
    """A path parameter captured by the router."""
    return environ['wsgiorg.routing_args'][1].get(name)


def location(req, path):
    return req.application_url + path


def provider_link(req, uuid, suffix=''):
    return '%s/resource_providers/%s%s' % (req.script_name, uuid, suffix)


def validate_query_dict(params, schema):
    """400 with Placement's text when the query dict ``params`` breaks
    ``schema``: 'Invalid query string parameters: ' and jsonschema's whole
    report. For handlers that, like Placement, validate each key's last
    value and then read repeated keys themselves."""
    try:
        _check(params, schema)
    except jsonschema.ValidationError as exc:
        raise bad_request('Invalid query string parameters: %s' % exc)
