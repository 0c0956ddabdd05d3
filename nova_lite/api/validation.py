"""JSON schema validation of request bodies and query strings.

Schemas are plain dicts in ``nova_lite/api/schemas/<resource>.py``, named
after the first microversion they apply to (``CREATE_V2_64``). A handler
picks the schema for its microversion and calls :func:`body` or
:func:`query`. Errors are 400s naming the field, in Nova's words:
``Invalid input for field/attribute <field>. Value: <value>. <reason>``.
"""

import jsonschema
from oslo_serialization import jsonutils
from oslo_utils import uuidutils
import webob.exc

_FORMAT_CHECKER = jsonschema.FormatChecker()


@_FORMAT_CHECKER.checks('uuid')
def _is_uuid(value):
    return not isinstance(value, str) or uuidutils.is_uuid_like(value)


def _validator(schema):
    return jsonschema.Draft202012Validator(schema,
                                           format_checker=_FORMAT_CHECKER)


def _field_of(error, top):
    """``flavor/ram``-style path of the offending value (``top`` at the
    top); for required or unexpected keys, the object that holds them."""
    return '/'.join(str(p) for p in error.absolute_path) or top


def _reason(error):
    if error.validator == 'additionalProperties':
        extra = sorted(set(error.instance) - set(
            error.schema.get('properties', {})))
        return "Additional properties are not allowed (%s %s unexpected)" % (
            ', '.join(repr(e) for e in extra),
            'was' if len(extra) == 1 else 'were')
    return error.message


def _best_error(errors):
    errors = sorted(errors, key=lambda e: (-len(e.absolute_path),
                                           e.validator == 'anyOf'))
    error = errors[0]
    if error.context:
        deeper = [e for e in error.context]
        deepest = max(deeper, key=lambda e: len(e.absolute_path))
        if len(deepest.absolute_path) > len(error.absolute_path) or (
                error.validator in ('anyOf', 'oneOf')):
            return deepest
    return error


def validate(data, schema, what='field/attribute', top='body'):
    """Raise a 400 naming the offending field unless ``data`` fits."""
    errors = list(_validator(schema).iter_errors(data))
    if not errors:
        return data
    error = _best_error(errors)
    field = _field_of(error, top)
    value = error.instance
    if error.validator in ('required', 'additionalProperties'):
        raise webob.exc.HTTPBadRequest(
            'Invalid input for %s %s. %s' % (what, field, _reason(error)))
    raise webob.exc.HTTPBadRequest(
        'Invalid input for %s %s. Value: %s. %s' % (
            what, field, _shorten(value), _reason(error)))


def _shorten(value):
    text = jsonutils.dumps(value) if not isinstance(value, str) else value
    return text if len(text) <= 200 else text[:200] + '...'


def parse_json(req):
    """The request body as JSON; 400 when it is missing or malformed."""
    if not req.body:
        raise webob.exc.HTTPBadRequest('The request body is empty.')
    try:
        return jsonutils.loads(req.body.decode('utf-8'))
    except (ValueError, UnicodeDecodeError):
        raise webob.exc.HTTPBadRequest('Malformed request body.')


def body(req, schema):
    """Parse and validate the body of ``req`` against ``schema``."""
    return validate(parse_json(req), schema)


def query(req, schema):
    """Validate the query string: {name: last value} against ``schema``.

    Query schemas describe string values (patterns, enums); unknown
    parameters are refused only where the schema says
    ``additionalProperties: false``.
    """
    params = {key: req.GET.getall(key)[-1] for key in req.GET.keys()}
    return validate(params, schema, what='query parameters',
                    top='query string')


# The largest integer the databases' INTEGER columns hold.
MAX_INT = 2147483647


def integer(name, value, minimum=-1, maximum=MAX_INT):
    """``value``, which a schema let through as an integer or as digits,
    as an int: 400 when given as digits past ``minimum`` or ``maximum``
    (a schema's bounds hold for numbers only; Nova's schemas take both
    forms)."""
    number = int(value)
    for bad, word, bound in ((number > maximum, '<=', maximum),
                             (number < minimum, '>=', minimum)):
        if bad:
            raise webob.exc.HTTPBadRequest(
                'Invalid input for field/attribute %s. Value: %s. Must be '
                '%s %d.' % (name, value, word, bound))
    return number

